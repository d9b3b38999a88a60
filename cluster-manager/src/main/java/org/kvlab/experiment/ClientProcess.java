package org.kvlab.experiment;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.kvlab.cluster.ClientHandle;

/**
 * One YCSB client JVM of one phase, started by the run's {@link org.kvlab.cluster.ClusterBackend} (on this
 * machine or on a client host). The status lines YCSB prints to standard error with {@code -s} (every second)
 * are parsed as they come for the progress line; the other lines are kept for failure reasons.
 */
final class ClientProcess {
  /** {@code 2024-05-01 10:00:00:123 12 sec: 12345 operations; 1028.5 current ops/sec; ...}. */
  static final Pattern STATUS = Pattern.compile(
      "\\b(\\d+) sec: (\\d+) operations;(?: ([0-9.,]+|∞|Infinity|NaN) current ops/sec;)?");

  /** What the last status line said. */
  record Status(long seconds, long operations, double currentOpsPerSecond) {}

  final String name;
  /** Where its files are (collected to, for a remote client). */
  final Path dir;
  private volatile ClientHandle handle;
  private volatile Status latest = new Status(0, 0, 0);
  private final Deque<String> lastErrorLines = new ArrayDeque<>();
  private final StackTraceCause cause = new StackTraceCause();

  ClientProcess(String name, Path dir) {
    this.name = name;
    this.dir = dir;
  }

  void started(ClientHandle h) {
    this.handle = h;
  }

  ClientHandle handle() {
    return handle;
  }

  /** Takes one line of the client's standard error. */
  void onErrorLine(String line) {
    Status s = parseStatus(line);
    if (s != null) {
      latest = s;
    } else if (!line.isBlank()) {
      remember(line);
    }
  }

  /**
   * What the client's last stack trace says went wrong, e.g. {@code site.ycsb.WorkloadException: Unknown request
   * distribution "abc"}, with its root cause if it has one; null if it printed no exception.
   */
  synchronized String causeLine() {
    return cause.line();
  }

  /** Parses a YCSB status line; null if {@code line} is not one. */
  static Status parseStatus(String line) {
    Matcher m = STATUS.matcher(line);
    if (!m.find()) {
      return null;
    }
    double current = 0;
    String c = m.group(3);
    if (c != null && !c.equals("∞") && !c.equals("Infinity") && !c.equals("NaN")) {
      try {
        current = Double.parseDouble(c.replace(",", ""));
      } catch (NumberFormatException e) {
        current = 0;
      }
    }
    return new Status(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), current);
  }

  Status latest() {
    return latest;
  }

  /** The last lines of standard error that are not status lines (for failure reasons). */
  synchronized List<String> lastErrorLines() {
    return List.copyOf(lastErrorLines);
  }

  boolean waitFor(long millis) throws InterruptedException {
    return handle.waitFor(millis);
  }

  /** Exit code, -1 while it runs. */
  int exitCode() {
    return handle.exitCode();
  }

  void kill() {
    ClientHandle h = handle;
    if (h != null) {
      h.kill();
    }
  }

  private synchronized void remember(String line) {
    cause.take(line);
    lastErrorLines.addLast(line);
    while (lastErrorLines.size() > 8) {
      lastErrorLines.removeFirst();
    }
  }
}
