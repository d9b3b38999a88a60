package org.kvlab.cluster.ssh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.kvlab.runtime.LoopbackPorts;

/**
 * Real OpenSSH hosts for tests, started by {@code scripts/test-env/sshd-hosts up} (one sshd per network namespace
 * with its own address, or on 127.0.0.x when namespaces are not available) and stopped by
 * {@code scripts/test-env/sshd-hosts down} (by PID) on {@link #close()} and in a shutdown hook. Public for the designer's
 * Deploy tab tests (cluster-designer uses this module's test jar).
 */
public final class SshTestHosts implements AutoCloseable {
  public record Host(String name, String address, int port, long sshdPid, String netns) {}

  public final Path dir;
  public final List<Host> hosts;
  public final String mode;
  public final String user;
  public final Path key;
  public final Path knownHosts;
  public final String delay;
  private final Thread hook;
  private boolean closed;

  private SshTestHosts(Path dir, List<Host> hosts, String mode, String user, Path key, Path knownHosts, String delay,
      Thread hook) {
    this.dir = dir;
    this.hosts = hosts;
    this.mode = mode;
    this.user = user;
    this.key = key;
    this.knownHosts = knownHosts;
    this.delay = delay;
    this.hook = hook;
  }

  static Path script() {
    Path p = Path.of("").toAbsolutePath();
    for (; p != null; p = p.getParent()) {
      Path s = p.resolve("scripts/test-env/sshd-hosts");
      if (Files.isExecutable(s)) {
        return s;
      }
    }
    throw new IllegalStateException("scripts/test-env/sshd-hosts not found above " + Path.of("").toAbsolutePath());
  }

  public static SshTestHosts start(Path dir, int count, int delayMillis) throws IOException, InterruptedException {
    int port = LoopbackPorts.freeBlock(1);
    Thread hook = new Thread(() -> down(dir), "sshd-hosts-down");
    Runtime.getRuntime().addShutdownHook(hook);
    Process p = new ProcessBuilder(script().toString(), "up", dir.toString(), Integer.toString(count),
        Integer.toString(port), Integer.toString(delayMillis)).redirectErrorStream(true).start();
    String out;
    boolean done = p.waitFor(90, TimeUnit.SECONDS);
    out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!done || p.exitValue() != 0) {
      p.destroyForcibly();
      down(dir);
      throw new IllegalStateException("scripts/test-env/sshd-hosts up failed (" + (done ? "exit " + p.exitValue() : "timeout")
          + "):\n" + out + "\nFix: run scripts/test-env/sshd-hosts install as root (scripts/test does)");
    }
    List<Host> hosts = new ArrayList<>();
    String mode = null, user = null, delay = "none";
    Path key = null, known = null;
    for (String line : out.split("\n")) {
      String[] w = line.trim().split("\\s+", 2);
      switch (w[0]) {
        case "host" -> {
          String[] f = line.trim().split("\\s+");
          hosts.add(new Host(f[1], f[2], Integer.parseInt(f[3]), Long.parseLong(f[4]), f[5]));
        }
        case "mode" -> mode = w[1];
        case "user" -> user = w[1];
        case "key" -> key = Path.of(w[1]);
        case "known_hosts" -> known = Path.of(w[1]);
        case "delay", "no-delay" -> delay = line.trim();
        default -> { }
      }
    }
    return new SshTestHosts(dir, hosts, mode, user, key, known, delay, hook);
  }

  /** The {@code ssh:} section of a hosts file for these hosts, each with its remote directory under {@code remote}. */
  public String sshSection(Path remote) {
    return "ssh:\n"
        + "  user: " + user + "\n"
        + "  keyFile: " + key + "\n"
        + "  knownHosts: " + knownHosts + "\n"
        + "  port: " + hosts.get(0).port() + "\n"
        + "  dir: " + remote + "/{host}\n"
        + "  connectTimeout: 5s\n";
  }

  public SshSettings settings() {
    return SshSettings.withKey(user, key, knownHosts).withPort(hosts.get(0).port());
  }

  /** Processes running in the test hosts' namespaces other than their sshd (none in loopback mode). */
  public List<Long> strayProcesses() throws IOException, InterruptedException {
    List<Long> pids = new ArrayList<>();
    for (Host h : hosts) {
      if (h.netns().equals("-")) {
        continue;
      }
      Process p = new ProcessBuilder("ip", "netns", "pids", h.netns()).redirectErrorStream(true).start();
      p.waitFor(10, TimeUnit.SECONDS);
      for (String s : new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\\s+")) {
        if (!s.isBlank() && Long.parseLong(s.trim()) != h.sshdPid()) {
          pids.add(Long.parseLong(s.trim()));
        }
      }
    }
    return pids;
  }

  private static void down(Path dir) {
    try {
      Process p = new ProcessBuilder(script().toString(), "down", dir.toString()).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    } catch (IOException | InterruptedException | RuntimeException e) {
      // best effort (also runs in a shutdown hook)
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    down(dir);
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway
    }
  }
}
