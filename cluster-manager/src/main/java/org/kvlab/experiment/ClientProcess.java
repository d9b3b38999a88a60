package org.kvlab.experiment;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One YCSB client JVM of one phase. Its standard output and error go to {@code stdout.txt} and
 * {@code stderr.txt} in its directory; the status lines YCSB prints with {@code -s} (every second) are
 * parsed on the way for the progress line.
 */
final class ClientProcess {
  /** {@code 2024-05-01 10:00:00:123 12 sec: 12345 operations; 1028.5 current ops/sec; ...}. */
  static final Pattern STATUS = Pattern.compile(
      "\\b(\\d+) sec: (\\d+) operations;(?: ([0-9.,]+|∞|Infinity|NaN) current ops/sec;)?");

  /** What the last status line said. */
  record Status(long seconds, long operations, double currentOpsPerSecond) {}

  final String name;
  final Path dir;
  final Process process;
  private volatile Status latest = new Status(0, 0, 0);
  private final Deque<String> lastErrorLines = new ArrayDeque<>();
  private final Thread outPump;
  private final Thread errPump;

  private ClientProcess(String name, Path dir, Process process) {
    this.name = name;
    this.dir = dir;
    this.process = process;
    this.outPump = pump(process.getInputStream(), dir.resolve("stdout.txt"), false);
    this.errPump = pump(process.getErrorStream(), dir.resolve("stderr.txt"), true);
  }

  static ClientProcess start(String name, Path dir, List<String> command) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("command.txt"), String.join(" ", command) + "\n");
    Process p = new ProcessBuilder(command).directory(null).start();
    p.getOutputStream().close();
    return new ClientProcess(name, dir, p);
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

  /** Waits up to {@code millis} for the process and its output to end; true if it has. */
  boolean waitFor(long millis) throws InterruptedException {
    if (!process.waitFor(millis, TimeUnit.MILLISECONDS)) {
      return false;
    }
    outPump.join(5_000);
    errPump.join(5_000);
    return true;
  }

  void kill() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  private Thread pump(InputStream in, Path file, boolean parse) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
           OutputStream out = Files.newOutputStream(file)) {
        String line;
        while ((line = r.readLine()) != null) {
          out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
          if (parse) {
            Status s = parseStatus(line);
            if (s != null) {
              latest = s;
            } else if (!line.isBlank()) {
              remember(line);
            }
          }
        }
      } catch (IOException e) {
        if (!(e instanceof java.io.InterruptedIOException)) {
          remember("(output of " + name + " lost: " + e.getMessage() + ")");
        }
      } catch (UncheckedIOException e) {
        remember("(output of " + name + " lost: " + e.getMessage() + ")");
      }
    }, "bench-" + name + (parse ? "-err" : "-out"));
    t.setDaemon(true);
    t.start();
    return t;
  }

  private synchronized void remember(String line) {
    lastErrorLines.addLast(line);
    while (lastErrorLines.size() > 8) {
      lastErrorLines.removeFirst();
    }
  }
}
