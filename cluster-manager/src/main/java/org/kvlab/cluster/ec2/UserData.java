package org.kvlab.cluster.ec2;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;

/**
 * The first-boot script of every instance (cloud-init runs it as root). It first arms the expiry: a systemd timer
 * at the expiry time (persistent, so it also fires after a reboot that missed it) and, as a second line of
 * defence, {@code shutdown -h} at the same time. The instances are started with
 * {@code instance-initiated-shutdown-behavior: terminate}, so the shutdown terminates them and the bill stops even
 * if the machine that started them was switched off. Then it installs a headless JDK 17 (apt, dnf or yum).
 */
public final class UserData {
  private static final DateTimeFormatter CALENDAR = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);

  private UserData() {}

  /** The script, as text. */
  public static String script(String cluster, String owner, Instant expires) {
    String iso = DateTimeFormatter.ISO_INSTANT.format(expires);
    String calendar = CALENDAR.format(expires) + " UTC";
    return """
        #!/bin/bash
        # kvlab cluster %1$s (owner %2$s): this instance terminates itself at %3$s.
        set -u
        EXPIRES='%3$s'
        # 1. Expiry first, so that nothing below can prevent it.
        if command -v systemctl >/dev/null 2>&1; then
          cat > /etc/systemd/system/kvlab-expiry.service <<'UNIT'
        [Unit]
        Description=kvlab: shut down (and so terminate) this instance at its expiry
        [Service]
        Type=oneshot
        ExecStart=/sbin/shutdown -h now kvlab-expiry
        UNIT
          cat > /etc/systemd/system/kvlab-expiry.timer <<'UNIT'
        [Unit]
        Description=kvlab: expiry of this instance at %4$s
        [Timer]
        OnCalendar=%4$s
        Persistent=true
        [Install]
        WantedBy=timers.target
        UNIT
          systemctl daemon-reload && systemctl enable --now kvlab-expiry.timer
        fi
        minutes=$(( ( $(date -d "$EXPIRES" +%%s) - $(date +%%s) ) / 60 ))
        if [ "$minutes" -lt 1 ]; then minutes=1; fi
        shutdown -h +"$minutes" "kvlab: cluster %1$s expires at $EXPIRES" || /sbin/shutdown -h +"$minutes"
        # 2. A headless JDK 17 for the kvlab servers and clients.
        if command -v apt-get >/dev/null 2>&1; then
          export DEBIAN_FRONTEND=noninteractive
          apt-get update -qq && apt-get install -y -qq openjdk-17-jdk-headless
        elif command -v dnf >/dev/null 2>&1; then
          dnf install -y -q java-17-amazon-corretto-headless || dnf install -y -q java-17-openjdk-headless
        elif command -v yum >/dev/null 2>&1; then
          yum install -y -q java-17-amazon-corretto-headless || yum install -y -q java-17-openjdk-headless
        fi
        java -version > /var/log/kvlab-java.txt 2>&1 && touch /var/lib/kvlab-ready
        """.formatted(cluster, owner, iso, calendar);
  }

  /** The script base64-encoded, as RunInstances takes it. */
  public static String encoded(String cluster, String owner, Instant expires) {
    return Base64.getEncoder().encodeToString(script(cluster, owner, expires).getBytes(StandardCharsets.UTF_8));
  }
}
