package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.experiment.Experiment;
import org.kvlab.experiment.ExperimentLoader;
import org.kvlab.experiment.Reports;
import org.kvlab.experiment.Results;

/** The main job: the demo benchmarks eventual against every installed causal protocol and reports. */
class DemoCommandTest {
  @Test
  void when_demoExperimentIsBuilt_then_eventualComesFirstAndEveryInstalledProtocolIsCompared() throws Exception {
    List<String> installed = org.kvlab.api.Protocols.all().stream().map(org.kvlab.api.Protocol::name).toList();
    Experiment e = ExperimentLoader.parse(DemoCommand.experimentText(), "demo.yaml", null, installed);
    assertEquals("eventual", e.protocols().get(0));
    assertTrue(e.protocols().containsAll(List.of("gentlerain", "causalspartanx")), e.protocols().toString());
    assertEquals(DemoCommand.protocols(), e.protocols());
  }

  /**
   * Measured seconds per protocol (after 1 s of warm-up). The run phase lasts warm-up + these seconds from each client
   * JVM's first operation (kvlab.runseconds); it used to count from the moment YCSB's threads start, before each
   * opens its session, and on a loaded machine (load ~30 on two cores) that took most of a 2-second run, whose window
   * then measured nothing. Six seconds keep several of YCSB's 1 s intervals in the window however late a loaded
   * machine lets its status thread cut them.
   */
  private static final String SECONDS = "6";

  @Test
  @Timeout(1200) // seven runs of five JVMs each: minutes on a loaded machine; this bound only stops a hang
  void when_demoRuns_then_everyProtocolRunsCleanAndTheReportIsWritten(@TempDir Path dir) throws Exception {
    int code = Main.run("demo", "--seconds", SECONDS, "--output", dir.toString());
    assertEquals(Main.OK, code);
    Path out = dir.resolve("demo").resolve("latest");
    assertTrue(Files.isRegularFile(out.resolve("report.html")), "no report in " + out);
    Results.ExperimentResult r = Reports.readJson(out.resolve("results.json"));
    assertEquals(Results.OK, r.status());
    assertEquals(DemoCommand.protocols(), r.runs().stream().map(Results.RunResult::protocol).toList());
    Path nukvOut = dir.resolve("demo-nukv").resolve("latest");
    Results.ExperimentResult nukv = Reports.readJson(nukvOut.resolve("results.json"));
    assertEquals(Results.OK, nukv.status());
    assertEquals(List.of("nukv"), nukv.runs().stream().map(Results.RunResult::protocol).toList());
    List<Results.RunResult> all = new java.util.ArrayList<>(r.runs());
    all.addAll(nukv.runs());
    for (Results.RunResult run : all) {
      assertTrue(run.ok(), run.protocol() + ": " + run.reason());
      assertTrue(run.throughput() > 0, run.protocol() + " measured no throughput");
      Results.OpStats read = run.op("READ");
      Results.OpStats update = run.op("UPDATE");
      assertTrue(read != null && read.count() > 0 && update != null && update.count() > 0, run.ops().toString());
      assertTrue(read.p50() <= read.p99() && update.p50() <= update.p99());
      assertEquals(0L, run.ops().stream().mapToLong(o -> o.returns().getOrDefault("ERROR", 0L)).sum(),
          run.protocol() + " had errors: " + run.ops());
    }
  }

  @Test
  void when_nukvExperimentIsBuilt_then_itRunsNuKVOnThreeReplicaGroupsWithGuaranteesOnEveryOperation(@TempDir Path dir)
      throws Exception {
    List<String> installed = org.kvlab.api.Protocols.all().stream().map(org.kvlab.api.Protocol::name).toList();
    Experiment e = ExperimentLoader.parse(DemoCommand.nukvExperimentText(dir.resolve("c.yaml")), "demo-nukv.yaml", null,
        installed);
    assertEquals(List.of("nukv"), e.protocols());
    assertTrue(DemoCommand.nukvInstalled());
    assertEquals("mr+ryw", e.workload().get("kvlab.readlevel"));
    assertEquals("mw+wfr", e.workload().get("kvlab.writelevel"));
  }

  @Test
  @Timeout(600)
  void when_tourRuns_then_itReplicatesAcrossDatacentersAndStopsCleanly() {
    assertEquals(Main.OK, Main.run("demo", "--tour", "--operations", "200", "--cluster",
        "../examples/eventual-2dc-3p.yaml"));
  }
}
