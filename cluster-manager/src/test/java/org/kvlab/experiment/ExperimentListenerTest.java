package org.kvlab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Goal: a front end can follow a benchmark live: {@link ExperimentRunner#addListener} gets each run's start
 * and end and, about once a second, the clients' throughput and the latencies of the intervals their
 * histogram logs gained; a listener that throws does not stop the experiment.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS) // a bench run starts 3 JVMs: a loaded machine takes minutes
class ExperimentListenerTest {

  @Test
  void when_intervalsAreAppended_then_eachPollReturnsOnlyTheNewCompleteOnes(@TempDir Path dir) throws Exception {
    Path hdr = dir.resolve("c0").resolve("hdr");
    Files.createDirectories(hdr);
    Path log = hdr.resolve("READ.hdr");
    try (PrintStream out = new PrintStream(new FileOutputStream(log.toFile()), false)) {
      HistogramLogWriter w = new HistogramLogWriter(out);
      w.outputComment("[Logging for: READ]");
      w.outputLogFormatVersion();
      w.outputStartTime(System.currentTimeMillis());
      w.outputLegend();
      w.outputIntervalHistogram(histogram(100, 1000, 1000)); // p50 100 us, p99 1 ms
      out.flush();
      LiveHistograms live = LiveHistograms.ofDirs(List.of(hdr, dir.resolve("missing")));
      Map<String, Histogram> first = live.poll();
      assertEquals(1000, first.get("READ").getTotalCount());
      assertEquals(1000, first.get(ExperimentListener.Interval.ALL).getTotalCount());
      assertTrue(first.get("READ").getValueAtPercentile(50) < 120, "p50 " + first.get("READ").getValueAtPercentile(50));
      assertTrue(live.poll().isEmpty(), "nothing new");

      w.outputIntervalHistogram(histogram(200, 2000, 10));
      out.flush();
      // half a line: YCSB is still writing it; it is read once complete
      Files.writeString(log, "0.500,1.0", StandardCharsets.US_ASCII, StandardOpenOption.APPEND);
      Map<String, Histogram> second = live.poll();
      assertEquals(10, second.get("READ").getTotalCount());
      Files.writeString(log, "00,0.1,garbage\n", StandardCharsets.US_ASCII, StandardOpenOption.APPEND);
      assertTrue(live.poll().isEmpty(), "a damaged line is left out");
    }
    assertNull(LiveHistograms.parse("#[StartTime: 1.0]"));
    assertNull(LiveHistograms.parse("\"StartTimestamp\",\"Interval_Length\""));
  }

  private static Histogram histogram(long low, long high, int n) {
    Histogram h = new Histogram(3);
    h.setStartTimeStamp(System.currentTimeMillis());
    for (int i = 0; i < n; i++) {
      h.recordValue(i < n * 98 / 100 ? low : high);
    }
    h.setEndTimeStamp(System.currentTimeMillis() + 1000);
    return h;
  }

  @Test
  void when_aBenchRuns_then_theListenerSeesRunsAndLiveIntervals(@TempDir Path dir) throws Exception {
    Experiment e = ExperimentLoader.parse("""
        name: listened
        cluster: { datacenters: 1, partitions: 1, storage: memory }
        protocols: [eventual]
        workload: { fieldcount: 1, fieldlength: 16 }
        clients: { processes: 1, threads: 2 }
        recordcount: 200
        duration: 3s
        warmup: 1s
        """, "listened.yaml", null, ExperimentLoaderTest.INSTALLED);
    List<String> events = new CopyOnWriteArrayList<>();
    List<ExperimentListener.Interval> intervals = new CopyOnWriteArrayList<>();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    ExperimentRunner runner = new ExperimentRunner(ExperimentRunner.Options.defaults()
        .withOutputRoot(dir.resolve("results")).withLog(new PrintStream(log, true)));
    runner.addListener(new ExperimentListener() {
      @Override
      public void runStarted(Experiment.Run run, int total) {
        events.add("started " + run.index() + "/" + total + " " + run.protocol());
      }

      @Override
      public void interval(Interval interval) {
        intervals.add(interval);
      }

      @Override
      public void runFinished(Results.RunResult result) {
        events.add("finished " + result.index() + " " + result.status());
      }
    });
    runner.addListener(new ExperimentListener() {
      @Override
      public void interval(Interval interval) {
        throw new IllegalStateException("a broken listener");
      }
    });
    Results.ExperimentResult r = runner.run(e);

    assertEquals(Results.OK, r.status(), log.toString());
    assertEquals(List.of("started 1/1 eventual", "finished 1 ok"), events);
    assertTrue(log.toString().contains("a progress listener failed (ignored)"), log.toString());
    List<ExperimentListener.Interval> run = intervals.stream().filter(i -> i.phase().equals("run")).toList();
    assertFalse(run.isEmpty(), "intervals of the run phase: " + intervals);
    assertTrue(run.stream().allMatch(i -> i.run().protocol().equals("eventual") && i.runs() == 1));
    assertTrue(run.stream().anyMatch(i -> i.opsPerSecond() > 0), "throughput: " + run);
    List<ExperimentListener.Latency> all = run.stream().map(i -> i.latencies().get(ExperimentListener.Interval.ALL))
        .filter(java.util.Objects::nonNull).toList();
    assertFalse(all.isEmpty(), "latencies while it ran: " + run);
    for (ExperimentListener.Latency l : all) {
      assertTrue(l.count() > 0 && l.p50Micros() > 0 && l.p50Micros() <= l.p99Micros(), l.toString());
    }
    // Every operation the run phase's logs hold was reported once, those logged after the last poll while the
    // client ran included (the runner polls once more when its clients have exited).
    List<Path> runLogs;
    try (java.util.stream.Stream<Path> files = Files.walk(dir.resolve("results"))) {
      runLogs = files.filter(p -> p.getFileName().toString().equals("hdr")
          && p.getParent().getParent().getFileName().toString().equals("run")).toList();
    }
    assertEquals(1, runLogs.size(), runLogs.toString());
    assertEquals(LiveHistograms.ofDirs(runLogs).poll().get(ExperimentListener.Interval.ALL).getTotalCount(),
        all.stream().mapToLong(ExperimentListener.Latency::count).sum());
    assertEquals(0, ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count());
    // the report records where it ran: this machine's backend, the servers' addresses and the clients on localhost
    Results.Environment env = Reports.readJson(runner.outputDirectory().resolve("results.json")).environment();
    assertEquals("local", env.backend());
    assertEquals(1, env.hosts().size(), env.hosts().toString());
    assertEquals(List.of("localhost"), env.hosts().get(0).clients());
    assertEquals(1, env.hosts().get(0).servers().size(), env.hosts().toString());
    assertTrue(Files.readString(runner.outputDirectory().resolve("report.html")).contains("datacenter 0 hosts"));
  }

  @Test
  void when_aClientCannotBeReadForAWhile_then_itsLinesComeAtALaterPollOnce() throws Exception {
    String line = "1.0,1.0,2.0," + java.util.Base64.getEncoder().encodeToString(encoded(histogram(100, 1000, 50))) + "\n";
    java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
    List<Map<String, Long>> asked = new CopyOnWriteArrayList<>();
    // a remote client's log: unreachable at the first poll, then its bytes past the offset asked for
    LiveHistograms live = new LiveHistograms(List.of((offsets, max) -> {
      asked.add(offsets);
      if (calls.incrementAndGet() == 1) {
        throw new org.kvlab.cluster.BackendException("host unreachable");
      }
      byte[] all = (line + line.substring(0, 5)).getBytes(StandardCharsets.US_ASCII);
      long from = offsets.getOrDefault("READ.hdr", 0L);
      return from >= all.length ? Map.of() : Map.of("READ.hdr", java.util.Arrays.copyOfRange(all, (int) from, all.length),
          "notes.txt", new byte[] {'x'});
    }));
    assertTrue(live.poll().isEmpty(), "unreachable: nothing, no error");
    assertEquals(50, live.poll().get("READ").getTotalCount());
    assertTrue(live.poll().isEmpty(), "the complete line is read once; the partial one waits");
    assertEquals(Map.of(), asked.get(0));
    assertEquals(Map.of("READ.hdr", (long) line.length(), "notes.txt", 1L), asked.get(2));
  }

  private static byte[] encoded(Histogram h) {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(h.getNeededByteBufferCapacity());
    int n = h.encodeIntoCompressedByteBuffer(b);
    return java.util.Arrays.copyOf(b.array(), n);
  }
}
