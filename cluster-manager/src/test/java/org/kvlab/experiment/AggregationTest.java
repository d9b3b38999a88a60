package org.kvlab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Goal: results add up across clients the way docs/bench.md says: percentiles from histograms merged
 * over clients (the same as one histogram fed every sample, and unlike averaged percentiles),
 * throughput as the sum of each client's operations over its own measured window, and intervals in the
 * warm-up left out.
 */
class AggregationTest {
  private static final long T0 = 1_700_000_000_000L;

  /** An interval histogram of [start, end) ms holding {@code values} (microseconds). */
  static Histogram interval(long start, long end, long... values) {
    Histogram h = new Histogram(3);
    for (long v : values) {
      h.recordValue(v);
    }
    h.setStartTimeStamp(start);
    h.setEndTimeStamp(end);
    return h;
  }

  @Test
  void when_clientsAreMerged_then_percentilesEqualThoseOfOneHistogramOfAllSamples() {
    Random random = new Random(42);
    Histogram all = new Histogram(3);
    List<Aggregation.ClientWindow> clients = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      List<Histogram> intervals = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        long[] values = new long[1000 + 500 * c];
        for (int k = 0; k < values.length; k++) {
          // each client has its own latency distribution (a slow one among them)
          values[k] = 100 + (long) Math.abs(random.nextGaussian() * 300 * (c + 1)) + (random.nextInt(100) == 0 ? 20_000 : 0);
          all.recordValue(values[k]);
        }
        intervals.add(interval(T0 + i * 1000L, T0 + (i + 1) * 1000L, values));
      }
      clients.add(Aggregation.window(Map.of("READ", intervals), T0, Duration.ZERO));
    }
    Histogram merged = Aggregation.merge(clients.stream().map(Aggregation.ClientWindow::histograms).toList()).get("READ");
    assertEquals(all.getTotalCount(), merged.getTotalCount());
    for (double q : new double[] {50, 90, 95, 99, 99.9, 100}) {
      assertEquals(all.getValueAtPercentile(q), merged.getValueAtPercentile(q), "p" + q);
    }
    assertEquals(all.getMean(), merged.getMean(), 1e-9);
    assertEquals(all.getMaxValue(), merged.getMaxValue());

    Results.OpStats stats = Aggregation.stats("READ", merged, 0, Map.of("OK", merged.getTotalCount()));
    assertEquals(all.getValueAtPercentile(99), stats.p99());
    assertEquals(all.getValueAtPercentile(99.9), stats.p999());
    assertTrue(stats.p50() <= stats.p95() && stats.p95() <= stats.p99() && stats.p99() <= stats.p999()
        && stats.p999() <= stats.max());
    // the encoded histogram decodes to the same distribution (results.json can be merged again later)
    assertEquals(merged, Aggregation.decode(stats.histogram()));

    // averaging the clients' p99s would be wrong: it differs from the merged p99
    double averaged = clients.stream().mapToLong(c -> c.histograms().get("READ").getValueAtPercentile(99)).average().orElseThrow();
    assertNotEquals((double) merged.getValueAtPercentile(99), averaged);
  }

  @Test
  void when_aRunsTimelineIsBuilt_then_eachSecondSumsTheOperationsOfEveryClientAndKindWarmUpIncluded() {
    // client a: READ and UPDATE intervals from T0; client b starts 1 s later, READ only
    Aggregation.ClientWindow a = Aggregation.window(Map.of(
        "READ", List.of(interval(T0, T0 + 1000, 1, 2), interval(T0 + 1000, T0 + 2000, 1, 2, 3)),
        "UPDATE", List.of(interval(T0, T0 + 1000, 5), interval(T0 + 1000, T0 + 2000, 5, 6))), T0, Duration.ofSeconds(1));
    Aggregation.ClientWindow b = Aggregation.window(Map.of(
        "READ", List.of(interval(T0 + 1000, T0 + 2000, 7), interval(T0 + 2000, T0 + 3000, 7, 8, 9, 10))),
        T0 + 1000, Duration.ofSeconds(1));
    assertEquals(List.of(3.0, 6.0, 4.0), Aggregation.perSecond(List.of(a, b)));
    assertEquals(List.of(3.0, 5.0), Aggregation.perSecond(List.of(a)), "the warm-up second is kept");
    // a last interval of half a second with 2 operations: 4 per second
    Aggregation.ClientWindow c = Aggregation.window(Map.of(
        "READ", List.of(interval(T0, T0 + 1000, 1, 2), interval(T0 + 1000, T0 + 1500, 3, 4))), T0, Duration.ZERO);
    assertEquals(List.of(2.0, 4.0), Aggregation.perSecond(List.of(c)), "a rate, not a count, for a short interval");
    assertEquals(List.of(), Aggregation.perSecond(List.of()));
  }

  @Test
  void when_throughputsAreAdded_then_eachClientCountsOverItsOwnWindow() {
    // client A: 1000 reads + 500 updates in 10 s; client B: 1000 reads in 5 s
    Aggregation.ClientWindow a = Aggregation.window(Map.of(
        "READ", List.of(interval(T0, T0 + 10_000, new long[1000])),
        "UPDATE", List.of(interval(T0, T0 + 10_000, new long[500]))), T0, Duration.ZERO);
    Aggregation.ClientWindow b = Aggregation.window(Map.of(
        "READ", List.of(interval(T0, T0 + 5_000, new long[1000]))), T0, Duration.ZERO);
    assertEquals(10.0, a.seconds(), 1e-9);
    assertEquals(5.0, b.seconds(), 1e-9);
    assertEquals(100 + 50 + 200, Aggregation.throughput(List.of(a, b), null), 1e-9);
    assertEquals(100 + 200, Aggregation.throughput(List.of(a, b), "READ"), 1e-9);
    assertEquals(50, Aggregation.throughput(List.of(a, b), "UPDATE"), 1e-9);
  }

  @Test
  void when_remoteOperationsAreMeasuredAlsoOnTheirOwn_then_theyAreReportedButNotCountedTwice() {
    // 1000 reads and 500 updates in 10 s, 100 of the reads and 50 of the updates remote (also in READ-REMOTE etc.)
    Aggregation.ClientWindow c = Aggregation.window(Map.of(
        "READ", List.of(interval(T0, T0 + 10_000, new long[1000])),
        "UPDATE", List.of(interval(T0, T0 + 10_000, new long[500])),
        "READ-REMOTE", List.of(interval(T0, T0 + 10_000, new long[100])),
        "UPDATE-REMOTE-FAILED", List.of(interval(T0, T0 + 10_000, new long[50]))), T0, Duration.ZERO);
    assertEquals(1500, c.operations());
    assertEquals(150, Aggregation.throughput(List.of(c), null), 1e-9);
    assertEquals(10, Aggregation.throughput(List.of(c), "READ-REMOTE"), 1e-9);
    assertEquals(List.of(1500L), List.copyOf(c.timeline().opsByIntervalStart().values()));
  }

  @Test
  void when_thereIsAWarmup_then_itsIntervalsAreLeftOutOfCountsPercentilesAndWindow() {
    List<Histogram> intervals = new ArrayList<>();
    // 3 slow warm-up seconds (10 ms, 100 ops/s), then 5 fast seconds (1 ms, 1000 ops/s)
    for (int i = 0; i < 8; i++) {
      long[] values = new long[i < 3 ? 100 : 1000];
      java.util.Arrays.fill(values, i < 3 ? 10_000 : 1_000);
      // ticks a few ms after whole seconds, as YCSB's status thread makes them
      intervals.add(interval(T0 + i * 1000L + 7, T0 + (i + 1) * 1000L + 7, values));
    }
    // the last interval YCSB logs while exporting: empty, not part of the window
    intervals.add(interval(T0 + 8007, T0 + 9300));
    Aggregation.ClientWindow w = Aggregation.window(Map.of("READ", intervals), T0, Duration.ofSeconds(3));
    Histogram h = w.histograms().get("READ");
    assertEquals(5000, h.getTotalCount());
    assertEquals(1000, h.getValueAtPercentile(100), 1);
    assertEquals(T0 + 3007, w.startMillis());
    assertEquals(T0 + 8007, w.endMillis());
    assertEquals(1000, Aggregation.throughput(List.of(w), null), 1e-9);

    Aggregation.ClientWindow none = Aggregation.window(Map.of("READ", intervals), T0, Duration.ZERO);
    assertEquals(5300, none.operations());
    assertEquals(8.0, none.seconds(), 1e-9);
  }

  @Test
  void when_ycsbLogsAreRead_then_operationsComeFromTheirFilesAndCleanupIsIgnored(@TempDir Path dir) throws Exception {
    writeLog(dir.resolve("READ.hdr"), "READ", List.of(
        interval(T0 + 20, T0 + 1_010, 100, 200, 300),
        interval(T0 + 1_010, T0 + 2_010, 400, 500),
        interval(T0 + 2_010, T0 + 2_500)));
    writeLog(dir.resolve("UPDATE.hdr"), "UPDATE", List.of(interval(T0 + 30, T0 + 1_010, 1000)));
    writeLog(dir.resolve("CLEANUP.hdr"), "CLEANUP", List.of(interval(T0 + 2_400, T0 + 2_450, 5_000_000)));
    Aggregation.ClientWindow w = Aggregation.readClient(dir, Duration.ZERO);
    assertEquals(List.of("READ", "UPDATE"), new ArrayList<>(w.histograms().keySet()));
    assertEquals(5, w.histograms().get("READ").getTotalCount());
    assertEquals(1, w.histograms().get("UPDATE").getTotalCount());
    assertEquals(T0 + 20, w.startMillis());
    assertEquals(T0 + 2_010, w.endMillis());

    Aggregation.ClientWindow afterWarmup = Aggregation.readClient(dir, Duration.ofSeconds(1));
    assertEquals(2, afterWarmup.operations());
  }

  /** Writes an interval log the way YCSB 0.17's OneMeasurementHdrHistogram does. */
  static void writeLog(Path file, String name, List<Histogram> intervals) throws Exception {
    try (PrintStream out = new PrintStream(Files.newOutputStream(file))) {
      HistogramLogWriter w = new HistogramLogWriter(out);
      w.outputComment("[Logging for: " + name + "]");
      w.outputLogFormatVersion();
      w.outputStartTime(intervals.get(0).getStartTimeStamp());
      w.setBaseTime(intervals.get(0).getStartTimeStamp());
      w.outputLegend();
      for (Histogram h : intervals) {
        w.outputIntervalHistogram(h);
      }
    }
  }

  @Test
  void when_theExportIsRead_then_returnCodesAreCountedPerOperation(@TempDir Path dir) throws Exception {
    Path export = dir.resolve("export.json");
    Files.writeString(export, """
        [ { "metric" : "OVERALL", "measurement" : "RunTime(ms)", "value" : 3000 },
          { "metric" : "READ", "measurement" : "Operations", "value" : 12 },
          { "metric" : "READ", "measurement" : "Return=OK", "value" : 10 },
          { "metric" : "READ", "measurement" : "Return=NOT_FOUND", "value" : 2 },
          { "metric" : "UPDATE", "measurement" : "Return=ERROR", "value" : 3 },
          { "metric" : "CLEANUP", "measurement" : "Return=OK", "value" : 1 } ]
        """);
    Map<String, Map<String, Long>> counts = Aggregation.returnCounts(export);
    assertEquals(Map.of("READ", Map.of("OK", 10L, "NOT_FOUND", 2L), "UPDATE", Map.of("ERROR", 3L)), counts);
    Aggregation.addCounts(counts, Map.of("READ", Map.of("OK", 5L)));
    assertEquals(15L, counts.get("READ").get("OK"));
    assertTrue(Aggregation.isError("ERROR"));
    assertTrue(!Aggregation.isError("NOT_FOUND") && !Aggregation.isError("OK"));
  }

  /**
   * A log YCSB 0.17 wrote in a demo run (two intervals of UPDATE): the first interval's header names a smaller range
   * than its counts cover, which HdrHistogram's decoder refuses with an ArrayIndexOutOfBoundsException. Its counts
   * are read in full (7,320 updates, max 39.5 ms as the log's Interval_Max column says), and the second as before.
   */
  @Test
  void when_ycsbWroteAnIntervalWithAnUnderstatedRange_then_itsCountsAreStillReadInFull(@TempDir Path dir)
      throws Exception {
    Path hdr = dir.resolve("hdr");
    Files.createDirectories(hdr);
    try (var in = AggregationTest.class.getResourceAsStream("ycsb-understated-header.hdr")) {
      Files.copy(in, hdr.resolve("UPDATE.hdr"));
    }
    String first = Files.readAllLines(hdr.resolve("UPDATE.hdr")).get(4);
    String base64 = first.substring(first.lastIndexOf(',') + 1);
    assertThrows(ArrayIndexOutOfBoundsException.class, () -> Histogram.decodeFromCompressedByteBuffer(
        java.nio.ByteBuffer.wrap(java.util.Base64.getDecoder().decode(base64)), 0), "the library's own decoder");
    Histogram h = Aggregation.decode(base64);
    assertEquals(7320, h.getTotalCount());
    assertEquals(39_551, h.getMaxValue(), 39_551 / 1000.0);

    Aggregation.ClientWindow w = Aggregation.readClient(hdr, Duration.ZERO);
    assertEquals(7320 + 12_872, w.histograms().get("UPDATE").getTotalCount());
    assertEquals(1795925306573L + 23, w.startMillis());
  }
}
