package org.kvlab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Goal: {@code bench} collects what the servers count and record ({@code Metrics.count/record}) over each run phase
 * and shows it in results.json, the report and the summary, for any protocol: here NuKV's hold of GETs until the
 * stable vector covers the session ({@code nukv.get.waitMicros}) and its snapshots.
 * Method: a small NuKV run (1 datacenter, one 3-replica Raft group in one server JVM, reads at MR+RYW on random
 * replicas, a snapshot every 50 commits, 1,000 records loaded, 2 s measured after 1 s), then the values are checked
 * against what the clients saw and what the configuration allows (no timing).
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class BenchServerMetricsTest {
  @Test
  void when_aNuKVRunEnds_then_itsServersCountersAndHoldTimesOfTheRunPhaseAreInTheResults(@TempDir Path dir)
      throws Exception {
    Path cluster = dir.resolve("nukv-1dc.yaml");
    Files.writeString(cluster, """
        name: nukv-1dc-metrics
        protocol: nukv
        params: { readLevel: mr+ryw, writeLevel: eventual, snapshotEvery: 50 }
        datacenters: 1
        partitions: 1
        replicas: 3
        local: { host: 127.0.0.1, basePort: 7190 }
        storage: { engine: memory, durability: none }
        """);
    Path file = dir.resolve("metrics.yaml");
    Files.writeString(file, "name: e2e-server-metrics\ncluster: { file: " + cluster + ", singlejvm: true }\n" + """
        protocols: [nukv]
        workload: { fieldcount: 1, fieldlength: 16, readproportion: 0.5, updateproportion: 0.5 }
        clients: { processes: 1, threads: 4 }
        recordcount: 1000
        duration: 2s
        warmup: 1s
        """);
    Experiment e = ExperimentLoader.load(file, List.of("nukv"));
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    ExperimentRunner runner = new ExperimentRunner(ExperimentRunner.Options.defaults()
        .withOutputRoot(dir.resolve("results")).withLog(new PrintStream(log, true)));
    Results.ExperimentResult r = runner.run(e);
    assertEquals(Results.OK, r.status(), log.toString());
    Results.RunResult run = r.runs().get(0);
    assertTrue(run.ok(), run.reason());
    assertNotNull(run.serverMetrics(), "server metrics collected");

    // Handled messages over the run phase: at least one GetReq per read the clients made (a replica that cannot
    // serve one passes it on), and the PUTs of the run phase only (the load phase's 1,000 inserts left out).
    long reads = run.op("READ").returns().values().stream().mapToLong(Long::longValue).sum();
    long updates = run.op("UPDATE").returns().values().stream().mapToLong(Long::longValue).sum();
    Results.ServerMetric gets = run.serverMetric("GetReq");
    Results.ServerMetric puts = run.serverMetric("PutReq");
    assertTrue(gets != null && gets.count() >= reads, "GetReq " + gets + " for " + reads + " reads");
    assertTrue(puts != null && puts.count() >= updates && puts.count() < updates + 1_000,
        "PutReq " + puts + " for " + updates + " updates (the load phase's inserts are not in it)");

    // NuKV's holds: reads at RYW on random replicas of a group wait for followers to apply the session's writes.
    Results.ServerMetric wait = run.serverMetric("nukv.get.waitMicros");
    assertNotNull(wait, "GETs held until sv covered the session: " + run.serverMetrics());
    assertEquals("histogram", wait.kind());
    assertTrue(wait.count() > 0 && wait.count() <= gets.count(), wait.toString());
    assertTrue(0 <= wait.p50() && wait.p50() <= wait.p99() && wait.p99() <= wait.max() && wait.mean() <= wait.max(),
        wait.toString());
    assertTrue(wait.max() <= 1_600_000, "a GET is held at most waitMax (1.5 s; 3 significant digits): " + wait);

    // Snapshots of the run phase: every replica holds the 1,000 loaded keys (updates add none), and a snapshot reads
    // from the store only the keys changed since the last one, at most one per commit in between (50). (The median:
    // the first snapshot after a replica installed the leader's, had it lagged that far, reads every key again.)
    Results.ServerMetric taken = run.serverMetric("nukv.snapshot.taken");
    assertTrue(taken != null && taken.count() > 0 && "counter".equals(taken.kind()), String.valueOf(taken));
    Results.ServerMetric keys = run.serverMetric("nukv.snapshot.keys");
    assertTrue(keys != null && keys.count() == taken.count() && keys.max() == 1_000 && keys.p50() == 1_000,
        String.valueOf(keys));
    Results.ServerMetric read = run.serverMetric("nukv.snapshot.keysRead");
    assertTrue(read != null && read.p50() <= 50, String.valueOf(read));

    // In results.json, report.html and the summary.
    Path out = runner.outputDirectory();
    Results.ExperimentResult json = Reports.readJson(out.resolve("results.json"));
    assertEquals(wait, json.runs().get(0).serverMetric("nukv.get.waitMicros"));
    String html = Files.readString(out.resolve("report.html"));
    assertTrue(html.contains("<h2>Server metrics</h2>") && html.contains("nukv.get.waitMicros"), "report");
    ByteArrayOutputStream summary = new ByteArrayOutputStream();
    Reports.printSummary(r, new PrintStream(summary, true, StandardCharsets.UTF_8));
    String text = summary.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("Server metrics over each run phase") && text.contains("nukv.get.waitMicros n=")
        && text.contains("nukv.snapshot.taken "), text);
    assertTrue(!text.contains("GetReq"), "the summary shows the protocol's own metrics: " + text);
    assertEquals(0, ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count());
  }
}
