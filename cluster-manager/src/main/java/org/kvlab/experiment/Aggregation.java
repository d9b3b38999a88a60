package org.kvlab.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.DataFormatException;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

/**
 * Measurements of YCSB clients and how they add up. Each client JVM writes one HdrHistogram interval
 * log per operation ({@code READ.hdr}, {@code UPDATE.hdr}, ...; one interval per status line, every
 * second) and a JSON export with the count of each return code. Across clients, histograms are merged
 * and percentiles read from the merged histogram (never averaged); throughputs are summed, each
 * client's being its operations in its measured window divided by the window's length.
 */
public final class Aggregation {
  /** Measurements that are not operations of the workload. */
  static final List<String> NOT_OPERATIONS = List.of("CLEANUP", "INIT");

  /**
   * Whether measurement {@code op} is a second view of operations already measured under their own name (the YCSB
   * binding's {@code READ-REMOTE} and {@code UPDATE-REMOTE} are also READs and UPDATEs): reported per operation,
   * left out of a run's total operations and throughput so they are not counted twice.
   */
  static boolean isSecondView(String op) {
    return op.endsWith("-REMOTE") || op.endsWith("-REMOTE-FAILED");
  }

  private Aggregation() {}

  /**
   * One client's measured window: per operation, the histogram of the intervals after the warm-up, and
   * the window's start and end (epoch milliseconds).
   */
  public record ClientWindow(Map<String, Histogram> histograms, long startMillis, long endMillis,
      Timeline timeline) {
    public ClientWindow(Map<String, Histogram> histograms, long startMillis, long endMillis) {
      this(histograms, startMillis, endMillis, new Timeline(0, new TreeMap<>(), new TreeMap<>()));
    }

    public double seconds() {
      return Math.max(0, endMillis - startMillis) / 1000.0;
    }

    public long operations() {
      return histograms.entrySet().stream().filter(e -> !isSecondView(e.getKey()))
          .mapToLong(e -> e.getValue().getTotalCount()).sum();
    }
  }

  /** Reads every {@code *.hdr} interval log in {@code dir} (one client's phase) and keeps what follows the warm-up. */
  public static ClientWindow readClient(Path dir, Duration warmup) throws IOException {
    Map<String, List<Histogram>> intervals = new TreeMap<>();
    long start = Long.MAX_VALUE;
    List<Path> logs;
    try (Stream<Path> files = Files.list(dir)) {
      logs = files.filter(p -> p.getFileName().toString().endsWith(".hdr")).sorted().toList();
    }
    for (Path log : logs) {
      String op = log.getFileName().toString().replaceFirst("\\.hdr$", "");
      if (NOT_OPERATIONS.contains(op)) {
        continue;
      }
      List<Histogram> list = new ArrayList<>();
      long logStart;
      try {
        logStart = readLog(new java.io.ByteArrayInputStream(Files.readAllBytes(log)), list);
      } catch (RuntimeException first) {
        list.clear();
        try { // an interval whose header understates its range (see decode): read again with the lines repaired
          logStart = readLog(new java.io.ByteArrayInputStream(repaired(log)), list);
        } catch (RuntimeException e) {
          throw new IOException("cannot read the histogram log " + log + ": " + e, e);
        }
      }
      if (logStart > 0) {
        start = Math.min(start, logStart);
      }
      for (Histogram h : list) {
        start = Math.min(start, h.getStartTimeStamp());
      }
      intervals.put(op, list);
    }
    return window(intervals, start == Long.MAX_VALUE ? 0 : start, warmup);
  }

  /** Reads one interval log into {@code out}; returns its start time (epoch milliseconds), 0 if it names none. */
  private static long readLog(java.io.InputStream in, List<Histogram> out) {
    try (HistogramLogReader reader = new HistogramLogReader(in)) {
      EncodableHistogram h;
      while ((h = reader.nextIntervalHistogram()) != null) {
        if (h instanceof Histogram hh) {
          out.add(hh);
        }
      }
      return reader.getStartTimeSec() > 0 ? Math.round(reader.getStartTimeSec() * 1000) : 0;
    }
  }

  /**
   * The log's text with every interval re-encoded from what {@link #decode} recovers, so HdrHistogram's own log
   * reader (its time stamps, base time and tags) reads it. Lines other than intervals are kept as they are.
   */
  static byte[] repaired(Path log) throws IOException {
    StringBuilder out = new StringBuilder();
    for (String line : Files.readAllLines(log, java.nio.charset.StandardCharsets.US_ASCII)) {
      int comma = line.lastIndexOf(',');
      if (line.isEmpty() || line.startsWith("#") || line.startsWith("\"") || comma < 0) {
        out.append(line).append('\n');
        continue;
      }
      out.append(line, 0, comma + 1).append(encode(decode(line.substring(comma + 1).strip()))).append('\n');
    }
    return out.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  /**
   * The measured window of one client from its interval histograms, given the start of its phase
   * {@code t0}: an interval counts if its middle is at least {@code warmup} after {@code t0}. The window
   * runs from the first counted interval's start to the end of the last counted interval that has
   * operations (the empty interval YCSB logs while exporting is not part of it).
   */
  public static ClientWindow window(Map<String, List<Histogram>> intervals, long t0, Duration warmup) {
    long from = t0 + warmup.toMillis();
    java.util.SortedMap<Long, Long> timeline = new TreeMap<>();
    java.util.SortedMap<Long, Long> lengths = new TreeMap<>();
    for (Map.Entry<String, List<Histogram>> e : intervals.entrySet()) {
      if (isSecondView(e.getKey())) {
        continue;
      }
      for (Histogram h : e.getValue()) {
        timeline.merge(h.getStartTimeStamp(), h.getTotalCount(), Long::sum);
        lengths.merge(h.getStartTimeStamp(), h.getEndTimeStamp() - h.getStartTimeStamp(), Math::max);
      }
    }
    Timeline tl = new Timeline(t0, timeline, lengths);
    Map<String, Histogram> kept = new TreeMap<>();
    long start = Long.MAX_VALUE;
    long end = Long.MIN_VALUE;
    for (Map.Entry<String, List<Histogram>> e : intervals.entrySet()) {
      Histogram sum = new Histogram(3);
      for (Histogram h : e.getValue()) {
        long middle = (h.getStartTimeStamp() + h.getEndTimeStamp()) / 2;
        if (middle < from) {
          continue;
        }
        start = Math.min(start, h.getStartTimeStamp());
        if (h.getTotalCount() > 0) {
          end = Math.max(end, h.getEndTimeStamp());
          sum.add(h);
        }
      }
      if (sum.getTotalCount() > 0) {
        kept.put(e.getKey(), sum);
      }
    }
    if (end == Long.MIN_VALUE) {
      return new ClientWindow(kept, 0, 0, tl);
    }
    return new ClientWindow(kept, start, end, tl);
  }

  /**
   * Operations completed per interval of one client, warm-up included, for the throughput-over-time chart.
   *
   * @param phaseStartMillis the start of the client's phase (epoch ms), which the warm-up counts from
   * @param opsByIntervalStart epoch ms of each interval's start → operations of every kind in it
   * @param lengthByIntervalStart epoch ms of each interval's start → its length in ms
   */
  public record Timeline(long phaseStartMillis, java.util.SortedMap<Long, Long> opsByIntervalStart,
      java.util.SortedMap<Long, Long> lengthByIntervalStart) {}

  /**
   * Operations per second of a run, summed over its clients, from the earliest client's phase start:
   * element k is the rate (operations / interval length, at least a quarter second) of the intervals that
   * start in second k (YCSB logs one interval per second), up to the end
   * of each client's measured window (the short interval YCSB logs while it exports is left out).
   */
  public static List<Double> perSecond(List<ClientWindow> clients) {
    long t0 = clients.stream().map(ClientWindow::timeline).filter(t -> !t.opsByIntervalStart().isEmpty())
        .mapToLong(t -> Math.min(t.phaseStartMillis(), t.opsByIntervalStart().firstKey())).min().orElse(0);
    TreeMap<Integer, Double> bySecond = new TreeMap<>();
    for (ClientWindow c : clients) {
      c.timeline().opsByIntervalStart().forEach((start, ops) -> {
        if (c.endMillis() <= 0 || start < c.endMillis()) { // not the interval YCSB logs while it exports
          // a rate: the last interval of a phase is shorter than a second
          long millis = Math.max(1, c.timeline().lengthByIntervalStart().getOrDefault(start, 1000L));
          bySecond.merge((int) Math.max(0, (start - t0) / 1000), ops * 1000.0 / Math.max(millis, 1000 / 4), Double::sum);
        }
      });
    }
    List<Double> out = new ArrayList<>();
    if (!bySecond.isEmpty()) {
      for (int k = 0; k <= bySecond.lastKey(); k++) {
        out.add(bySecond.getOrDefault(k, 0.0));
      }
    }
    return out;
  }

  /** Per operation, the histograms of all clients merged into one. */
  public static Map<String, Histogram> merge(List<Map<String, Histogram>> perClient) {
    Map<String, Histogram> merged = new TreeMap<>();
    for (Map<String, Histogram> client : perClient) {
      client.forEach((op, h) -> merged.computeIfAbsent(op, k -> new Histogram(3)).add(h));
    }
    return merged;
  }

  /** Sum over clients of each client's operations of {@code op} (all operations if null) per second of its window. */
  public static double throughput(List<ClientWindow> clients, String op) {
    double sum = 0;
    for (ClientWindow c : clients) {
      if (c.seconds() <= 0) {
        continue;
      }
      long ops = op == null ? c.operations() : c.histograms().containsKey(op) ? c.histograms().get(op).getTotalCount() : 0;
      sum += ops / c.seconds();
    }
    return sum;
  }

  /** Latency statistics of one operation, in microseconds, from its (merged) histogram. */
  public static Results.OpStats stats(String op, Histogram h, double throughput, Map<String, Long> returns) {
    return new Results.OpStats(op, h.getTotalCount(), throughput, h.getMean(), h.getValueAtPercentile(50),
        h.getValueAtPercentile(95), h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue(),
        returns == null ? Map.of() : returns, encode(h));
  }

  /** The histogram compressed and in base64 (HdrHistogram's own encoding), so results can be merged again later. */
  public static String encode(Histogram h) {
    ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
    int n = h.encodeIntoCompressedByteBuffer(buf);
    return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buf.array(), n));
  }

  /**
   * Decodes a histogram in HdrHistogram's compressed encoding. YCSB 0.17 (unpatched, as the project keeps it) can
   * write an interval whose header names a smaller range than its counts cover: its first interval histogram is also
   * its running total, and a value recorded while it is encoded grows the counts after the header was written
   * (seen as {@code ArrayIndexOutOfBoundsException: Index 6183 out of bounds for length 6144} on a loaded machine).
   * The counts themselves are intact, so such an interval is decoded again into a histogram of the widest range.
   */
  public static Histogram decode(String base64) {
    byte[] bytes = Base64.getDecoder().decode(base64);
    try {
      try {
        return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes), 0);
      } catch (ArrayIndexOutOfBoundsException understated) {
        return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes), WIDEST_RANGE);
      }
    } catch (DataFormatException e) {
      throw new IllegalArgumentException("not an encoded histogram: " + e.getMessage(), e);
    }
  }

  /** The range {@link #decode} falls back to: a day in microseconds, far beyond any latency a run measures. */
  private static final long WIDEST_RANGE = 86_400_000_000L;

  /**
   * The return-code counts of a YCSB JSON export ({@code JSONArrayMeasurementsExporter}): operation ->
   * (code -> count), e.g. {@code READ -> {OK: 9800, NOT_FOUND: 200}}.
   */
  public static Map<String, Map<String, Long>> returnCounts(Path exportJson) throws IOException {
    Map<String, Map<String, Long>> out = new TreeMap<>();
    JsonNode root = new ObjectMapper().readTree(exportJson.toFile());
    if (root == null || !root.isArray()) {
      throw new IOException(exportJson + " is not a YCSB JSON array export");
    }
    for (JsonNode n : root) {
      String metric = n.path("metric").asText();
      String measurement = n.path("measurement").asText();
      if (measurement.startsWith("Return=") && !NOT_OPERATIONS.contains(metric)) {
        out.computeIfAbsent(metric, k -> new TreeMap<>()).merge(measurement.substring("Return=".length()),
            n.path("value").asLong(), Long::sum);
      }
    }
    return out;
  }

  /** Adds {@code more} into {@code into}, code by code. */
  public static void addCounts(Map<String, Map<String, Long>> into, Map<String, Map<String, Long>> more) {
    more.forEach((op, codes) -> codes.forEach((code, n) -> into.computeIfAbsent(op, k -> new TreeMap<>())
        .merge(code, n, Long::sum)));
  }

  /** Return codes that make a run fail: all but OK, BATCHED_OK and NOT_FOUND. */
  public static boolean isError(String code) {
    return !code.equals("OK") && !code.equals("BATCHED_OK") && !code.equals("NOT_FOUND");
  }
}
