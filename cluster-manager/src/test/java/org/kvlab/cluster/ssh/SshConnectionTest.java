package org.kvlab.cluster.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link SshConnection} against real OpenSSH servers (scripts/test-env/sshd-hosts). */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SshConnectionTest {
  @TempDir static Path tmp;
  static SshTestHosts hosts;

  @BeforeAll
  static void startHosts() throws Exception {
    hosts = SshTestHosts.start(tmp.resolve("hosts"), 2, 0);
  }

  @AfterAll
  static void stopHosts() {
    if (hosts != null) {
      hosts.close();
    }
  }

  private static KnownHostsFile strict() throws SshException {
    return new KnownHostsFile(hosts.knownHosts, SshSettings.HostKeyPolicy.STRICT, null);
  }

  @Test
  void connects_with_a_key_file_and_runs_commands_with_their_exit_status() throws Exception {
    SshTestHosts.Host h = hosts.hosts.get(0);
    try (SshConnection c = SshConnection.open(h.address(), hosts.settings(), strict())) {
      SshConnection.ExecResult r = c.exec("echo hello; echo oops >&2; exit 3");
      assertEquals(3, r.exitStatus());
      assertEquals("hello\n", r.stdout());
      assertEquals("oops\n", r.stderr());
      SshConnection.ExecResult ip = c.exec("hostname -I 2>/dev/null || true; exit 0");
      assertTrue(ip.ok());
      if (hosts.mode.equals("netns")) {
        // The command ran on the host: inside its namespace, whose address is the host's own.
        assertTrue(ip.stdout().contains(h.address()), ip.stdout());
      }
    }
  }

  @Test
  void a_command_longer_than_its_timeout_is_reported() throws Exception {
    SshTestHosts.Host h = hosts.hosts.get(0);
    try (SshConnection c = SshConnection.open(h.address(), hosts.settings(), strict())) {
      long t0 = System.nanoTime();
      SshException e = assertThrows(SshException.class, () -> c.exec("sleep 20", Duration.ofMillis(500)));
      assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10));
      assertTrue(e.getMessage().contains("did not finish within 500 ms"), e.getMessage());
      assertTrue(c.exec("true").ok(), "the connection is still usable");
    }
  }

  @Test
  void uploads_and_downloads_files_with_the_given_mode() throws Exception {
    SshTestHosts.Host h = hosts.hosts.get(1);
    Path remoteDir = tmp.resolve("remote-" + h.name());
    Files.createDirectories(remoteDir);
    String remote = remoteDir.resolve("secret").toString();
    try (SshConnection c = SshConnection.open(h.address(), hosts.settings(), strict())) {
      c.upload(new ByteArrayInputStream("s3cret".getBytes(StandardCharsets.UTF_8)), remote, 0600);
      assertEquals("600", c.exec("stat -c %a " + SshConnection.quote(remote)).stdout().trim());
      Path back = tmp.resolve("back");
      c.download(remote, back);
      assertEquals("s3cret", Files.readString(back));
    }
  }

  @Test
  void a_changed_host_key_is_refused_naming_host_fingerprint_and_fix() throws Exception {
    SshTestHosts.Host h = hosts.hosts.get(0);
    // A known_hosts that records h1's address with h2's key: the key h1 presents does not match.
    List<String> lines = Files.readAllLines(hosts.knownHosts);
    String otherKey = lines.get(1).substring(lines.get(1).indexOf(' ') + 1);
    String entry = "[" + h.address() + "]:" + h.port();
    Path wrong = tmp.resolve("known_hosts_wrong");
    Files.writeString(wrong, entry + " " + otherKey + "\n");
    String presented = lines.get(0).split(" ")[2];
    String fingerprint = KnownHostsFile.fingerprint(java.util.Base64.getDecoder().decode(presented));
    KnownHostsFile known = new KnownHostsFile(wrong, SshSettings.HostKeyPolicy.ACCEPT_NEW, (a, b, c) -> {
      throw new AssertionError("a changed key must never be accepted");
    });
    SshException e = assertThrows(SshException.class,
        () -> SshConnection.open(h.address(), hosts.settings().withKnownHosts(wrong), known).close());
    assertTrue(e.getMessage().contains("HOST KEY MISMATCH"), e.getMessage());
    assertTrue(e.getMessage().contains(entry), e.getMessage());
    assertTrue(e.getMessage().contains(fingerprint), e.getMessage());
    assertTrue(e.getMessage().contains("ssh-keygen -R"), e.getMessage());
    assertEquals(1, Files.readAllLines(wrong).size(), "known_hosts unchanged");
  }

  @Test
  void an_unknown_host_key_is_refused_unless_accept_new_which_reports_and_records_it() throws Exception {
    SshTestHosts.Host h = hosts.hosts.get(1);
    Path empty = tmp.resolve("known_hosts_empty");
    Files.writeString(empty, "");
    SshException e = assertThrows(SshException.class, () -> SshConnection.open(h.address(),
        hosts.settings().withKnownHosts(empty), new KnownHostsFile(empty, SshSettings.HostKeyPolicy.STRICT, null)));
    assertTrue(e.getMessage().contains("unknown host key"), e.getMessage());
    assertTrue(e.getMessage().contains("SHA256:"), e.getMessage());
    assertTrue(e.getMessage().contains("--accept-new-host-keys"), e.getMessage());

    List<String> reported = new ArrayList<>();
    KnownHostsFile acceptNew = new KnownHostsFile(empty, SshSettings.HostKeyPolicy.ACCEPT_NEW,
        (host, type, fp) -> reported.add(host + " " + type + " " + fp));
    try (SshConnection c = SshConnection.open(h.address(), hosts.settings().withKnownHosts(empty), acceptNew)) {
      assertTrue(c.exec("true").ok());
    }
    assertEquals(1, reported.size());
    assertTrue(reported.get(0).startsWith("[" + h.address() + "]:" + h.port() + " ssh-ed25519 SHA256:"), reported.get(0));
    // Recorded: a strict check now passes with the same file.
    try (SshConnection c = SshConnection.open(h.address(), hosts.settings().withKnownHosts(empty),
        new KnownHostsFile(empty, SshSettings.HostKeyPolicy.STRICT, null))) {
      assertTrue(c.exec("true").ok());
    }
    // ssh-keygen reads the recorded line and computes the same fingerprint.
    Process p = new ProcessBuilder("ssh-keygen", "-lf", empty.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor());
    assertTrue(reported.get(0).endsWith(out.split("\\s+")[1]), out + " vs " + reported.get(0));
  }

  @Test
  void a_key_file_readable_by_others_is_refused_like_openssh_does() throws Exception {
    Path open = tmp.resolve("open_key");
    Files.copy(hosts.key, open);
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r--r--"));
    SshException e = assertThrows(SshException.class, () -> SshConnection.open(hosts.hosts.get(0).address(),
        SshSettings.withKey(hosts.user, open, hosts.knownHosts).withPort(hosts.hosts.get(0).port()), strict()));
    assertTrue(e.getMessage().contains("accessible by others"), e.getMessage());
    assertTrue(e.getMessage().contains("chmod 600 " + open), e.getMessage());
  }

  @Test
  void a_wrong_user_key_is_refused_with_the_fix() throws Exception {
    Path other = tmp.resolve("other_key");
    Process p = new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other.toString())
        .redirectErrorStream(true).start();
    assertEquals(0, p.waitFor());
    SshException e = assertThrows(SshException.class, () -> SshConnection.open(hosts.hosts.get(0).address(),
        SshSettings.withKey(hosts.user, other, hosts.knownHosts).withPort(hosts.hosts.get(0).port()), strict()));
    assertTrue(e.getMessage().contains("authentication refused"), e.getMessage());
    assertTrue(e.getMessage().contains("authorized_keys"), e.getMessage());
  }

  @Test
  void an_unreachable_host_is_reported_within_the_connect_timeout() throws Exception {
    // An address of the test's subnet (or loopback range) where no host answers.
    SshTestHosts.Host h = hosts.hosts.get(0);
    String nobody = h.address().substring(0, h.address().lastIndexOf('.')) + ".250";
    SshSettings settings = hosts.settings().withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(10));
    long t0 = System.nanoTime();
    SshException e = assertThrows(SshException.class, () -> SshConnection.open(nobody, settings, strict()));
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    // Without the 2 s connect timeout, Linux gives up on an unanswered connect after about 127 s (6 SYN retries):
    // 60 s tells the two apart however slowly a loaded machine runs this thread (it was 15 s, a bound load can reach)
    assertTrue(ms < 60_000, "reported after " + ms + " ms");
    assertTrue(e.getMessage().startsWith(hosts.user + "@" + nobody + ":"), e.getMessage());
    assertNotNull(e.fix());
    assertTrue(e.getMessage().contains("Fix:"), e.getMessage());
  }
}
