package org.kvlab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.config.ClusterConfig;
import org.kvlab.cluster.local.LocalClusterProcesses;

/**
 * Goal: {@code bench} runs an experiment end to end — a cluster in its own JVMs per run, YCSB load and
 * run phases in client JVMs, the cluster stopped — and writes plausible results.json, results.csv,
 * charts and report.html.
 * Method: a tiny experiment (1 protocol, 2 GET:PUT variations, 1 datacenter x 2 partitions, 2 client
 * JVMs of 2 threads, 2 s measured after a 1 s warm-up) run by {@link ExperimentRunner} with the kvlab
 * YCSB binding; then the outputs are checked and no child process may be left.
 */
@Timeout(value = 900, unit = TimeUnit.SECONDS) // stops a hang only: ~15 s per test on an idle machine; the runner's own
// limits (60 s for a cluster to start, the phase timeout) end a slow run well before this
class BenchEndToEndTest {
  @Test
  void when_theSameExperimentIsAlreadyRunning_then_aSecondBenchIsRefused(@TempDir Path dir) throws Exception {
    Experiment e = ExperimentLoaderTest.parse(
        "name: lockcheck\ncluster: { datacenters: 1, partitions: 1, storage: memory }\nprotocols: [eventual]\nduration: 1s\n");
    Path lockFile = org.kvlab.cluster.local.LocalClusterProcesses.stateDir("bench-lockcheck.lock");
    Files.createDirectories(lockFile.getParent());
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(lockFile,
        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
         java.nio.channels.FileLock held = ch.lock()) {
      ExperimentRunner runner = new ExperimentRunner(ExperimentRunner.Options.defaults().withOutputRoot(dir)
          .withLog(new PrintStream(new ByteArrayOutputStream(), true)));
      IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
          () -> runner.run(e));
      assertTrue(refused.getMessage().startsWith("another ./kvlab bench of experiment 'lockcheck' is running on this"
          + " machine"), refused.getMessage());
      assertTrue(refused.getMessage().contains("Fix: wait for it to finish"), refused.getMessage());
      assertTrue(runner.awaitFinished(java.time.Duration.ofSeconds(1)), "a refused run counts as finished");
      assertTrue(held.isValid());
    }
  }

  @Test
  void when_aTinyExperimentRuns_then_resultsAreWrittenAndPlausible(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("e2e.yaml");
    Files.writeString(file, """
        name: e2e
        cluster: { datacenters: 1, partitions: 2, storage: memory }
        protocols: [eventual]
        workload: { fieldcount: 1, fieldlength: 16 }
        sweep:
          readproportion: [0.5, 0.9]
        clients: { processes: 2, threads: 2 }
        recordcount: 200
        duration: 2s
        warmup: 1s
        """);
    Experiment e = ExperimentLoader.load(file, ExperimentLoaderTest.INSTALLED);
    assertEquals(Experiment.KVLAB_DB, e.db());
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    List<String> progress = new ArrayList<>();
    ExperimentRunner runner = new ExperimentRunner(ExperimentRunner.Options.defaults()
        .withOutputRoot(dir.resolve("results")).withLog(new PrintStream(log, true)).withProgress(progress::add));
    Results.ExperimentResult r = runner.run(e);

    assertEquals(Results.OK, r.status(), log.toString());
    assertEquals(2, r.runs().size());
    for (Results.RunResult run : r.runs()) {
      assertTrue(run.ok(), run.reason());
      assertEquals(2, run.clients());
      assertTrue(run.throughput() > 0 && run.operations() > 0, run.toString());
      // A window that exists and lies within the run. Its length depends on when YCSB's status thread cuts its 1 s
      // intervals, which a loaded machine delays; how it is computed is AggregationTest's (warm-up left out, ...).
      assertTrue(run.measuredSeconds() > 0 && run.measuredSeconds() <= run.seconds(),
          "measured window " + run.measuredSeconds() + " s of a " + run.seconds() + " s run");
      for (String op : List.of("READ", "UPDATE")) {
        Results.OpStats s = run.op(op);
        assertTrue(s != null && s.count() > 0, op + " measured in " + run.ops());
        assertTrue(s.p50() <= s.p95() && s.p95() <= s.p99() && s.p99() <= s.p999() && s.p999() <= s.max(), s.toString());
        assertTrue(s.returns().getOrDefault("OK", 0L) > 0, s.returns().toString());
        assertTrue(s.returns().keySet().stream().noneMatch(Aggregation::isError), s.returns().toString());
      }
      double perOp = run.ops().stream().mapToDouble(Results.OpStats::throughput).sum();
      assertEquals(run.throughput(), perOp, run.throughput() * 1e-9);
      assertTrue(run.opsPerSecond().size() >= 2 && run.opsPerSecond().stream().allMatch(v -> v >= 0)
          && run.opsPerSecond().stream().mapToDouble(Double::doubleValue).max().orElse(0) > 0,
          "per-second rates over the warm-up and the measured window: " + run.opsPerSecond());
    }
    Map<String, String> reads = Map.of("0.5", "0.5", "0.9", "0.9");
    for (Results.RunResult run : r.runs()) {
      String share = run.variation().get("readproportion");
      assertEquals(reads.get(share), run.properties().get("readproportion"));
      Results.OpStats read = run.op("READ");
      double fraction = (double) read.count() / run.operations();
      double p = Double.parseDouble(share);
      // 0.1, or 5 standard deviations of the share of a few operations (a loaded machine may do only a few hundred)
      double tolerance = Math.max(0.1, 5 * Math.sqrt(p * (1 - p) / run.operations()));
      assertTrue(Math.abs(fraction - p) < tolerance, "GET share " + fraction + " of " + run.operations() + " for " + share);
    }
    assertTrue(progress.stream().anyMatch(p -> p.matches("run \\d/2 eventual readproportion=0\\.\\d: [\\d,]+ ops/s \\(sum of 2 clients\\), \\d/3 s.*")),
        String.join("\n", progress));

    Path out = runner.outputDirectory();
    assertEquals(out.toRealPath(), dir.resolve("results/e2e/latest").toRealPath());
    Results.ExperimentResult read = Reports.readJson(out.resolve("results.json"));
    assertEquals(r.runs().get(1).throughput(), read.runs().get(1).throughput());
    assertEquals(r.environment().cores(), Runtime.getRuntime().availableProcessors());
    List<String> csv = Files.readAllLines(out.resolve("results.csv"));
    assertEquals(1 + 2 * 3, csv.size(), String.join("\n", csv));
    assertTrue(csv.get(0).startsWith("run,id,protocol,readproportion,repeat,status,op,count,throughput_ops_s"));
    for (String chart : List.of("throughput", "latency-read", "latency-update", "percentiles-read", "percentiles-update",
        "throughput-over-time")) {
      assertTrue(Files.size(out.resolve(chart + ".svg")) > 1000, chart);
      assertTrue(Files.size(out.resolve(chart + ".png")) > 1000, chart);
    }
    String html = Files.readString(out.resolve("report.html"));
    assertTrue(html.contains("<svg") && html.contains("eventual") && html.contains("git commit") && html.contains("cores"));
    Path run1 = out.resolve("runs").resolve(r.runs().get(0).id());
    assertTrue(Files.exists(run1.resolve("cluster.yaml")));
    assertTrue(Files.readString(run1.resolve("run/dc0-c1/stderr.txt")).contains(" sec: "));
    assertTrue(Files.isRegularFile(run1.resolve("run/dc0-c0/hdr/READ.hdr")));
    assertTrue(!Files.exists(run1.resolve("data")), "server data is deleted after each run");

    // everything started is stopped
    ClusterConfig cluster = ClusterConfig.load(run1.resolve("cluster.yaml"));
    assertTrue(LocalClusterProcesses.statuses(cluster).stream().allMatch(java.util.Optional::isEmpty));
    assertEquals(0, ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count());
  }

  /**
   * A sweep of a protocol parameter runs: each run's cluster file has its value, and results.json, the CSV, the
   * charts and the report label the runs by it.
   */
  @Test
  void when_aProtocolParameterIsSwept_then_eachRunsClusterHasItsValueAndTheOutputsLabelIt(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("modes.yaml");
    Files.writeString(file, """
        name: e2e-modes
        cluster: { datacenters: 1, partitions: 2, storage: memory, singlejvm: true }
        protocols: [camu]
        sweep:
          cluster.params.mode: [pb, tom]
        workload: { fieldcount: 1, fieldlength: 16, readproportion: 0, updateproportion: 0, txproportion: 1,
                    txkeys: 2, txpartitions: 2 }
        clients: { processes: 1, threads: 2 }
        recordcount: 100
        duration: 2s
        warmup: 1s
        """);
    Experiment e = ExperimentLoader.load(file, List.of("camu"));
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    ExperimentRunner runner = new ExperimentRunner(ExperimentRunner.Options.defaults()
        .withOutputRoot(dir.resolve("results")).withLog(new PrintStream(log, true)));
    Results.ExperimentResult r = runner.run(e);

    assertEquals(Results.OK, r.status(), log.toString());
    assertEquals("cluster.params.mode", r.xAxis());
    assertEquals(2, r.runs().size());
    Path out = runner.outputDirectory();
    for (int i = 0; i < 2; i++) {
      Results.RunResult run = r.runs().get(i);
      String mode = List.of("pb", "tom").get(i);
      assertTrue(run.ok(), run.reason());
      assertEquals(Map.of("cluster.params.mode", mode), run.variation());
      assertTrue(run.op("TX") != null && run.op("TX").count() > 0, "transactions measured in " + run.ops());
      assertTrue(run.properties().keySet().stream().noneMatch(k -> k.startsWith("cluster.")), run.properties().toString());
      ClusterConfig cluster = ClusterConfig.load(out.resolve("runs").resolve(run.id()).resolve("cluster.yaml"));
      assertEquals(Map.of("mode", mode), cluster.params().asMap());
    }
    Results.ExperimentResult read = Reports.readJson(out.resolve("results.json"));
    assertEquals(Map.of("cluster.params.mode", "tom"), read.runs().get(1).variation());
    List<String> csv = Files.readAllLines(out.resolve("results.csv"));
    assertTrue(csv.get(0).startsWith("run,id,protocol,cluster.params.mode,repeat,status,op,"), csv.get(0));
    assertTrue(csv.stream().anyMatch(l -> l.contains(",camu,tom,1,ok,")), String.join("\n", csv));
    for (String chart : List.of("throughput", "latency-tx", "percentiles-tx")) { // bars per mode: text values
      assertTrue(Files.size(out.resolve(chart + ".svg")) > 1000, chart);
    }
    String html = Files.readString(out.resolve("report.html"));
    assertTrue(html.contains("cluster.params.mode=pb") && html.contains("cluster.params.mode=tom"), "report labels");
    assertEquals(0, ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count());
  }
}
