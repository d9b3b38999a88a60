package org.kvlab.cluster.ec2;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;

/**
 * The first-boot script of every instance (cloud-init runs it as root; its output goes to {@link #LOG}). It first
 * arms the expiry, computed from the instance's own clock and the cluster's lifetime (a relative duration, so a
 * wrong clock on the machine that ran {@code up} cannot move it): a systemd timer at that time (persistent, so it
 * also fires after a reboot that missed it) and, as a second line of defence, {@code shutdown -h} after the same
 * number of minutes. The instances are started with {@code instance-initiated-shutdown-behavior: terminate}, so the
 * shutdown terminates them and the bill stops even if the machine that started them was switched off.
 *
 * <p>Then it installs a headless JDK 17 (apt, dnf or yum). Debian and Ubuntu cloud images run unattended-upgrades
 * at first boot, which holds the dpkg lock: apt-get waits for the lock ({@code -o DPkg::Lock::Timeout}) and each
 * step is retried. At the end it writes {@link #READY} when {@code java -version} works, else {@link #FAILED};
 * {@link BootCheck} reads them, so a failed install is reported at once rather than after the whole wait.
 */
public final class UserData {
  public static final String READY = "/var/lib/kvlab-ready";
  public static final String FAILED = "/var/lib/kvlab-failed";
  public static final String LOG = "/var/log/kvlab-setup.log";
  /** How long apt-get waits for the dpkg lock, in seconds, per try. */
  static final int APT_LOCK_TIMEOUT_S = 600;
  static final int APT_TRIES = 5;

  private UserData() {}

  /**
   * The script, as text.
   *
   * @param lifetime how long the instance lives from its first boot
   * @param expires the expiry as {@code up} tagged it (shown in a comment; the instance computes its own)
   */
  public static String script(String cluster, String owner, Duration lifetime, Instant expires) {
    long minutes = Math.max(1, lifetime.toMinutes());
    return """
        #!/bin/bash
        # kvlab cluster %1$s (owner %2$s): this instance terminates itself %3$d minutes after its first boot
        # (tagged kvlab:expires %4$s).
        set -u
        exec >>%5$s 2>&1
        LIFETIME_MINUTES=%3$d
        EXPIRES=$(date -u -d "+$LIFETIME_MINUTES minutes" '+%%Y-%%m-%%d %%H:%%M:%%S UTC')
        # 1. Expiry first, so that nothing below can prevent it.
        if command -v systemctl >/dev/null 2>&1; then
          cat > /etc/systemd/system/kvlab-expiry.service <<'UNIT'
        [Unit]
        Description=kvlab: shut down (and so terminate) this instance at its expiry
        [Service]
        Type=oneshot
        ExecStart=/sbin/shutdown -h now kvlab-expiry
        UNIT
          cat > /etc/systemd/system/kvlab-expiry.timer <<UNIT
        [Unit]
        Description=kvlab: expiry of this instance at $EXPIRES
        [Timer]
        OnCalendar=$EXPIRES
        Persistent=true
        [Install]
        WantedBy=timers.target
        UNIT
          systemctl daemon-reload && systemctl enable --now kvlab-expiry.timer
        fi
        shutdown -h +"$LIFETIME_MINUTES" "kvlab: cluster %1$s expires at $EXPIRES" || /sbin/shutdown -h +"$LIFETIME_MINUTES"
        # 2. A headless JDK 17 for the kvlab servers and clients. First boot of Debian/Ubuntu images runs
        # unattended-upgrades, which holds the dpkg lock: wait for it, and retry each step.
        retry() {
          for try in $(seq 1 %7$d); do
            "$@" && return 0
            echo "kvlab: '$*' failed (try $try of %7$d); retrying in 15 s"
            sleep 15
          done
          return 1
        }
        if command -v apt-get >/dev/null 2>&1; then
          export DEBIAN_FRONTEND=noninteractive
          APT="apt-get -o DPkg::Lock::Timeout=%6$d -o Acquire::Retries=3"
          retry $APT update -qq && retry $APT install -y -qq openjdk-17-jdk-headless
        elif command -v dnf >/dev/null 2>&1; then
          retry dnf install -y -q java-17-amazon-corretto-headless || retry dnf install -y -q java-17-openjdk-headless
        elif command -v yum >/dev/null 2>&1; then
          retry yum install -y -q java-17-amazon-corretto-headless || retry yum install -y -q java-17-openjdk-headless
        fi
        if java -version > /var/log/kvlab-java.txt 2>&1; then
          touch %8$s
        else
          echo "kvlab: no working java after the install"
          touch %9$s
        fi
        """.formatted(cluster, owner, minutes, expires, LOG, APT_LOCK_TIMEOUT_S, APT_TRIES, READY, FAILED);
  }

  /** The script base64-encoded, as RunInstances takes it. */
  public static String encoded(String cluster, String owner, Duration lifetime, Instant expires) {
    return Base64.getEncoder().encodeToString(script(cluster, owner, lifetime, expires).getBytes(StandardCharsets.UTF_8));
  }
}
