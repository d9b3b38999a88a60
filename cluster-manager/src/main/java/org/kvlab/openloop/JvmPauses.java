package org.kvlab.openloop;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What stopped a JVM during an open-loop run's measured window, so that a p99 can be attributed: the servers'
 * stop-the-world pauses from their unified JVM logs ({@link #SERVER_LOG_OPTIONS}: every safepoint with its total
 * time, every collection with the heap before and after), and the load generator's collections and allocation from
 * this JVM's management beans ({@link Sample}). Allocation per request does not depend on the machine's load, pause
 * lengths do.
 */
public final class JvmPauses {
  /**
   * Stop-the-world time of one JVM (or of all the servers' JVMs together) in a window: {@code count} pauses of
   * {@code totalMillis}, the longest {@code maxMillis}; {@code bytesPerRequest} allocated per request of the window
   * (NaN if not known, e.g. no collection to estimate it from); {@code detail} the pauses by kind.
   */
  public record Pauses(long count, double totalMillis, double maxMillis, double bytesPerRequest, String detail) {}

  /**
   * Options that make a server JVM log each safepoint and each collection to {@code <dir>/gc-server-<pid>.log} with
   * wall-clock milliseconds (so that pauses can be matched to a run's window), asynchronously (no file I/O inside a
   * pause). Null if {@code dir} cannot be named in a JVM option (whitespace, ':' or quotes in its path).
   */
  static String serverLogOptions(Path dir) {
    String d = dir.toAbsolutePath().normalize().toString();
    if (!d.matches("[^\\s:\"',=]+")) {
      return null;
    }
    return String.format(SERVER_LOG_OPTIONS, d);
  }

  static final String SERVER_LOG_OPTIONS = "-Xlog:async -Xlog:gc,safepoint:file=%s/gc-server-%%p.log:timemillis,uptime,tags";
  /** As {@link #SERVER_LOG_OPTIONS}, into the server's standard output (its log, which remote backends fetch). */
  static final String SERVER_STDOUT_LOG_OPTIONS = "-Xlog:async -Xlog:gc,safepoint:stdout:timemillis,uptime,tags";
  static final String SERVER_LOG_GLOB = "gc-server-*.log";

  /** The timemillis decoration, "[1795598940720ms]" (after the uptime one: the JVM writes decorations in its order). */
  private static final Pattern TIME = Pattern.compile("\\[(\\d{10,})ms\\]");
  private static final Pattern SAFEPOINT = Pattern.compile("Safepoint \"([^\"]+)\".*Total: (\\d+) ns");
  /** A collection's heap before and after: "273M->15M(989M)" (Serial, Parallel, G1) or "96M(9%)->32M(3%)" (ZGC). */
  private static final Pattern HEAP = Pattern.compile("GC\\(\\d+\\) .*?(\\d+)M(?:\\(\\d+%\\))?->(\\d+)M");

  private JvmPauses() {}

  /**
   * The servers' pauses between {@code fromMillis} and {@code toMillis} (wall clock) in every server log in
   * {@code dir}, and their allocation per request at {@code requestsPerSecond} (estimated from the heap before each
   * collection and after the one before it). Null if there is no log.
   */
  static Pauses servers(Path dir, long fromMillis, long toMillis, double requestsPerSecond) throws IOException {
    List<Path> logs;
    try (Stream<Path> s = Files.list(dir)) {
      logs = s.filter(p -> p.getFileName().toString().matches("gc-server-\\d+\\.log")).sorted().toList();
    }
    return logs(logs, fromMillis, toMillis, requestsPerSecond);
  }

  /**
   * As {@link #servers}, for the given log files (e.g. servers' output logs fetched from their hosts, with the
   * pause lines of {@link #SERVER_STDOUT_LOG_OPTIONS} among their other lines). Null if there is none.
   */
  static Pauses logs(List<Path> logs, long fromMillis, long toMillis, double requestsPerSecond) throws IOException {
    if (logs.isEmpty()) {
      return null;
    }
    List<Pauses> each = new ArrayList<>();
    for (Path log : logs) {
      each.add(parse(Files.readAllLines(log), fromMillis, toMillis, requestsPerSecond));
    }
    return sum(each);
  }

  /** As {@link #servers}, for the lines of one JVM's log. */
  static Pauses parse(List<String> lines, long fromMillis, long toMillis, double requestsPerSecond) {
    long count = 0;
    long totalNanos = 0;
    long maxNanos = 0;
    Map<String, long[]> byKind = new LinkedHashMap<>(); // kind -> {count, nanos, max nanos}
    long allocatedMb = 0;
    long allocMillis = 0;
    long lastTime = -1;
    long lastAfterMb = -1;
    for (String line : lines) {
      Matcher t = TIME.matcher(line);
      if (!t.find()) {
        continue;
      }
      long time = Long.parseLong(t.group(1));
      boolean inWindow = time >= fromMillis && time <= toMillis;
      Matcher sp = SAFEPOINT.matcher(line);
      if (sp.find()) {
        if (inWindow) {
          long ns = Long.parseLong(sp.group(2));
          count++;
          totalNanos += ns;
          maxNanos = Math.max(maxNanos, ns);
          long[] k = byKind.computeIfAbsent(sp.group(1), x -> new long[3]);
          k[0]++;
          k[1] += ns;
          k[2] = Math.max(k[2], ns);
        }
        continue;
      }
      Matcher h = HEAP.matcher(line);
      if (h.find()) {
        long before = Long.parseLong(h.group(1));
        long after = Long.parseLong(h.group(2));
        if (inWindow && lastTime >= 0 && before >= lastAfterMb) {
          allocatedMb += before - lastAfterMb;
          allocMillis += time - lastTime;
        }
        lastTime = time;
        lastAfterMb = after;
      }
    }
    double bytesPerRequest = allocMillis > 0 && requestsPerSecond > 0
        ? allocatedMb * 1048576.0 / (allocMillis / 1000.0) / requestsPerSecond : Double.NaN;
    StringBuilder detail = new StringBuilder();
    byKind.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1])).forEach(e -> {
      if (detail.length() > 0) {
        detail.append("; ");
      }
      detail.append(String.format(Locale.ROOT, "%s %d x, %.1f ms, max %.1f ms", e.getKey(), e.getValue()[0],
          e.getValue()[1] / 1e6, e.getValue()[2] / 1e6));
    });
    return new Pauses(count, totalNanos / 1e6, maxNanos / 1e6, bytesPerRequest, detail.toString());
  }

  /** The pauses of several JVMs together: counts and times added, the longest of them, allocation added. */
  static Pauses sum(List<Pauses> each) {
    if (each.size() == 1) {
      return each.get(0);
    }
    long count = 0;
    double total = 0;
    double max = 0;
    double bytes = 0;
    List<String> details = new ArrayList<>();
    for (int i = 0; i < each.size(); i++) {
      Pauses p = each.get(i);
      count += p.count();
      total += p.totalMillis();
      max = Math.max(max, p.maxMillis());
      bytes += p.bytesPerRequest(); // NaN if any is unknown
      details.add("JVM " + (i + 1) + ": " + p.detail());
    }
    return new Pauses(count, total, max, bytes, String.join(" | ", details));
  }

  /**
   * The longest collection pause of this JVM while armed, from the collectors' notifications (their durations are
   * in whole milliseconds; concurrent collectors' "Cycles" beans are left out: they are mostly not pauses).
   */
  static final class Longest implements javax.management.NotificationListener, AutoCloseable {
    private final List<javax.management.NotificationEmitter> emitters = new ArrayList<>();
    private volatile boolean armed;
    /** JVM uptime when armed: a collection that started earlier is not counted (notifications come late). */
    private volatile long armedAtMillis;
    private volatile double longestMillis = Double.NaN;

    Longest() {
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        if (gc instanceof javax.management.NotificationEmitter e && !gc.getName().endsWith("Cycles")) {
          e.addNotificationListener(this, null, null);
          emitters.add(e);
        }
      }
    }

    void arm() {
      armedAtMillis = ManagementFactory.getRuntimeMXBean().getUptime();
      armed = true;
    }

    double disarm() {
      armed = false;
      return longestMillis;
    }

    @Override
    public void handleNotification(javax.management.Notification n, Object handback) {
      if (armed && com.sun.management.GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
        var info = com.sun.management.GarbageCollectionNotificationInfo.from(
            (javax.management.openmbean.CompositeData) n.getUserData());
        if (info.getGcInfo().getStartTime() < armedAtMillis) {
          return;
        }
        double ms = info.getGcInfo().getDuration();
        synchronized (this) {
          longestMillis = Double.isNaN(longestMillis) ? ms : Math.max(longestMillis, ms);
        }
      }
    }

    @Override
    public void close() {
      for (javax.management.NotificationEmitter e : emitters) {
        try {
          e.removeNotificationListener(this);
        } catch (javax.management.ListenerNotFoundException ignored) {
          // not registered: nothing to remove
        }
      }
    }
  }

  /**
   * This JVM's collections and allocation at one moment (the load generator's: it runs in the bench JVM). Two
   * samples give a window's figures ({@link #since}). Allocation is summed over the live threads (a thread that ends
   * in between takes its bytes with it; the load generator's threads live through the run).
   */
  static final class Sample {
    final long[] gcCounts;
    final long[] gcMillis;
    final long allocatedBytes;

    private Sample(long[] counts, long[] millis, long allocated) {
      this.gcCounts = counts;
      this.gcMillis = millis;
      this.allocatedBytes = allocated;
    }

    static Sample now() {
      List<GarbageCollectorMXBean> gcs = ManagementFactory.getGarbageCollectorMXBeans();
      long[] counts = new long[gcs.size()];
      long[] millis = new long[gcs.size()];
      for (int i = 0; i < gcs.size(); i++) {
        counts[i] = Math.max(0, gcs.get(i).getCollectionCount());
        millis[i] = Math.max(0, gcs.get(i).getCollectionTime());
      }
      long allocated = -1;
      if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
          && t.isThreadAllocatedMemorySupported() && t.isThreadAllocatedMemoryEnabled()) {
        long sum = 0;
        for (long b : t.getThreadAllocatedBytes(t.getAllThreadIds())) {
          sum += Math.max(0, b);
        }
        allocated = sum;
      }
      return new Sample(counts, millis, allocated);
    }

    /**
     * From {@code earlier} to this sample, over {@code requests} requests: collections (each collector bean's
     * count and time; for ZGC and Shenandoah the "Pauses" beans are the stop-the-world part), the longest of
     * {@code longestMillis} (from collection notifications; NaN if none), bytes allocated per request.
     */
    Pauses since(Sample earlier, long requests, double longestMillis) {
      List<GarbageCollectorMXBean> gcs = ManagementFactory.getGarbageCollectorMXBeans();
      long count = 0;
      long millis = 0;
      StringBuilder detail = new StringBuilder();
      for (int i = 0; i < gcCounts.length && i < earlier.gcCounts.length && i < gcs.size(); i++) {
        long n = gcCounts[i] - earlier.gcCounts[i];
        long ms = gcMillis[i] - earlier.gcMillis[i];
        String name = gcs.get(i).getName();
        boolean cycles = name.endsWith("Cycles"); // concurrent collectors' cycles: mostly not pauses
        if (!cycles) {
          count += n;
          millis += ms;
        }
        if (n > 0) {
          if (detail.length() > 0) {
            detail.append("; ");
          }
          detail.append(String.format(Locale.ROOT, "%s %d x, %d ms", name, n, ms));
        }
      }
      double bytes = allocatedBytes >= 0 && earlier.allocatedBytes >= 0 && requests > 0
          ? (double) (allocatedBytes - earlier.allocatedBytes) / requests : Double.NaN;
      return new Pauses(count, millis, count == 0 ? 0 : longestMillis, bytes, detail.toString());
    }
  }
}
