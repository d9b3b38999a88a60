package org.kvlab.experiment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.NodeId;
import org.kvlab.config.ClusterConfig;
import org.kvlab.store.Durability;

/** Goal: each sweep variable does to a run what docs/bench.md says, and generated cluster files load back unchanged. */
class RunPlanTest {
  @Test
  void when_variablesAreSwept_then_theRunGetsThem(@TempDir Path dir) throws Exception {
    Experiment e = ExperimentLoaderTest.parse("""
        name: p
        cluster: { datacenters: 2, partitions: 2, wan: 80ms }
        protocols: [eventual, gentlerain]
        workload: { insertproportion: 0.1, fieldlength: 64 }
        sweep:
          readproportion: [0.3]
          wan: [on, off, 20ms]
          clockskew: [5ms]
          threads: [7]
          durability: [sync]
          requestdistribution: [uniform]
        duration: 1s
        """);
    List<Experiment.Run> runs = e.runs();
    RunPlan on = RunPlan.of(e, runs.get(1), dir, null);
    assertEquals("gentlerain", on.cluster().protocol());
    assertEquals("0.3", on.properties().get("readproportion"));
    assertEquals("0.6", on.properties().get("updateproportion"));
    assertEquals("uniform", on.properties().get("requestdistribution"));
    assertEquals("64", on.properties().get("fieldlength"));
    assertEquals(7, on.threads());
    assertEquals(1, on.clientsPerDatacenter());
    assertEquals(Durability.SYNC, on.cluster().storage().durability());
    assertEquals(80, on.cluster().emulation().rttMillis()[0][1]);
    assertEquals(Map.of(new NodeId(0, 1), 5L, new NodeId(1, 0), 5L), on.cluster().emulation().skewMillis());
    assertEquals(4, on.cluster().servers().stream().map(ClusterConfig.ServerSpec::port).distinct().count());
    assertTrue(on.cluster().servers().stream().allMatch(s -> s.host().equals("127.0.0.1")));
    assertEquals("bench-p", on.cluster().name());
    assertNull(RunPlan.of(e, runs.get(2), dir, null).cluster().emulation().rttMillis());
    assertEquals(20, RunPlan.of(e, runs.get(4), dir, null).cluster().emulation().rttMillis()[1][0]);
  }

  @Test
  void when_clientsAreInSomeDatacenters_then_onlyThoseGetClientJvms(@TempDir Path dir) throws Exception {
    String base = "name: p\ncluster: { datacenters: 3, partitions: 1 }\nprotocols: [eventual]\nduration: 1s\n";
    Experiment all = ExperimentLoaderTest.parse(base + "clients: { processes: 2 }\n");
    RunPlan everywhere = RunPlan.of(all, all.runs().get(0), dir, null);
    assertEquals(List.of(0, 1, 2), everywhere.clientDatacenters());
    assertEquals(6, everywhere.clientCount());
    Experiment some = ExperimentLoaderTest.parse(base + "clients: { processes: 2, datacenters: [2, 0] }\n");
    RunPlan dc0and2 = RunPlan.of(some, some.runs().get(0), dir, null);
    assertEquals(List.of(0, 2), dc0and2.clientDatacenters());
    assertEquals(4, dc0and2.clientCount());
    Experiment one = ExperimentLoaderTest.parse(base + "clients: { datacenters: 1 }\n");
    assertEquals(List.of(1), RunPlan.of(one, one.runs().get(0), dir, null).clientDatacenters());
  }

  /** docs/bench.md: with a template, {@code cluster.wan} replaces the template's round-trip times. */
  @Test
  void when_aTemplateAndClusterWanAreGiven_then_theRunsHaveTheWanNotTheTemplatesRtt(@TempDir Path dir) throws Exception {
    Path template = dir.resolve("t.yaml");
    java.nio.file.Files.writeString(template, """
        name: t
        protocol: eventual
        datacenters: 3
        partitions: 1
        local: { basePort: 7150 }
        emulation:
          rtt:
            - [0, 40ms, 60ms]
            - [40ms, 0, 80ms]
            - [60ms, 80ms, 0]
          skew: { 1_0: 5ms }
        """);
    String head = "name: w\nprotocols: [eventual]\nduration: 1s\ncluster: { file: " + template;
    Experiment wan = ExperimentLoaderTest.parse(head + ", wan: 100ms }\n");
    assertEquals(100, wan.cluster().wanRttMillis());
    ClusterConfig c = RunPlan.of(wan, wan.runs().get(0), dir.resolve("a"), null).cluster();
    assertArrayEquals(new long[][] {{0, 100, 100}, {100, 0, 100}, {100, 100, 0}}, c.emulation().rttMillis());
    assertEquals(Map.of(new NodeId(1, 0), 5L), c.emulation().skewMillis(), "the template's clock skew is kept");

    // the wan sweep's 'on' is cluster.wan; 'off' and a time as without a template
    Experiment swept = ExperimentLoaderTest.parse(head + ", wan: 100ms }\nsweep: { wan: [on, off, 7ms] }\n");
    assertEquals(100, RunPlan.of(swept, swept.runs().get(0), dir.resolve("b"), null).cluster().emulation().rttMillis()[2][0]);
    assertNull(RunPlan.of(swept, swept.runs().get(1), dir.resolve("c"), null).cluster().emulation().rttMillis());
    assertEquals(7, RunPlan.of(swept, swept.runs().get(2), dir.resolve("d"), null).cluster().emulation().rttMillis()[0][2]);

    // wan: 0ms removes the template's WAN; without cluster.wan the template's own times are kept
    Experiment none = ExperimentLoaderTest.parse(head + ", wan: 0ms }\n");
    assertNull(RunPlan.of(none, none.runs().get(0), dir.resolve("e"), null).cluster().emulation().rttMillis());
    Experiment kept = ExperimentLoaderTest.parse(head + " }\n");
    assertEquals(80, kept.cluster().wanRttMillis());
    assertArrayEquals(new long[][] {{0, 40, 60}, {40, 0, 80}, {60, 80, 0}},
        RunPlan.of(kept, kept.runs().get(0), dir.resolve("f"), null).cluster().emulation().rttMillis());
  }

  @Test
  void when_theGetShareIsSet_then_updatesTakeTheRest() {
    assertEquals("0.95", RunPlan.updateShare(Map.of(), "0.05"));
    assertEquals("0", RunPlan.updateShare(Map.of(), "1"));
    assertEquals("0.4", RunPlan.updateShare(Map.of("insertproportion", "0.05", "rotxproportion", "0.05"), "0.5"));
  }

  @Test
  void when_aClusterIsWrittenAsYaml_then_itLoadsBackEqual(@TempDir Path dir) throws Exception {
    Experiment e = ExperimentLoaderTest.parse("name: w\ncluster: { datacenters: 2, partitions: 3, wan: 40ms, storage: je,"
        + " durability: sync }\nprotocols: [causalspartanx]\nduration: 1s\nsweep: { clockskew: [3ms] }\n");
    ClusterConfig planned = RunPlan.of(e, e.runs().get(0), dir.resolve("data"), null).cluster();
    ClusterConfig loaded = ClusterConfig.parse(ClusterFiles.toYaml(planned), "generated.yaml");
    assertEquals(planned.name(), loaded.name());
    assertEquals(planned.protocol(), loaded.protocol());
    assertEquals(planned.topology(), loaded.topology());
    assertEquals(planned.servers(), loaded.servers());
    assertEquals(planned.storage(), loaded.storage());
    assertArrayEquals(planned.emulation().rttMillis(), loaded.emulation().rttMillis());
    assertEquals(planned.emulation().skewMillis(), loaded.emulation().skewMillis());
    assertEquals(planned.limits(), loaded.limits());
  }

  @Test
  void when_aProtocolParameterIsSwept_then_eachRunsClusterFileHasItsValueOverTheTemplates(@TempDir Path dir)
      throws Exception {
    Path template = dir.resolve("nukv.yaml");
    java.nio.file.Files.writeString(template, """
        name: t
        protocol: nukv
        params: { hlc: true, readLevel: mr, forwardPeriod: 2ms }
        datacenters: 2
        partitions: 1
        replicas: 3
        local: { host: 127.0.0.1, basePort: 7140 }
        emulation:
          rtt:
            - [0, 15ms]
            - [15ms, 0]
        """);
    Experiment e = ExperimentLoader.parse("name: p\ncluster: { file: " + template + " }\nprotocols: [nukv]\n"
        + "duration: 1s\nsweep:\n  cluster.params.hlc: [false, true]\n  cluster.params.writeLevel: [eventual, mw+wfr]\n",
        "x.yaml", null, List.of("nukv"));
    List<Experiment.Run> runs = e.runs();
    assertEquals(4, runs.size());
    RunPlan first = RunPlan.of(e, runs.get(0), dir.resolve("r1"), null);
    assertEquals(Map.of("hlc", "false", "readLevel", "mr", "forwardPeriod", "2ms", "writeLevel", "eventual"),
        first.cluster().params().asMap());
    assertEquals(Map.of("hlc", "true", "readLevel", "mr", "forwardPeriod", "2ms", "writeLevel", "mw+wfr"),
        RunPlan.of(e, runs.get(3), dir.resolve("r4"), null).cluster().params().asMap());
    assertTrue(first.properties().keySet().stream().noneMatch(k -> k.startsWith("cluster.")),
        "a cluster parameter is not a YCSB property: " + first.properties());
    assertEquals(15, first.cluster().emulation().rttMillis()[0][1]);
    assertEquals(3, first.cluster().topology().replicas());
    // the generated cluster file loads back (through the cluster-file loader, which checks the parameters) equal
    ClusterConfig loaded = ClusterConfig.parse(ClusterFiles.toYaml(first.cluster()), "generated.yaml");
    assertEquals(first.cluster().params().asMap(), loaded.params().asMap());

    // a generated cluster (no template) gets only the swept parameter
    Experiment generated = ExperimentLoader.parse("name: g\ncluster: { datacenters: 1, partitions: 2 }\n"
        + "protocols: [camu]\nduration: 1s\nsweep: { cluster.params.mode: [pb, tom] }\n", "x.yaml", null, List.of("camu"));
    assertEquals(Map.of("mode", "tom"), RunPlan.of(generated, generated.runs().get(1), dir.resolve("g"), null)
        .cluster().params().asMap());

    // a running cluster's parameters cannot change
    IllegalArgumentException running = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> RunPlan.of(generated, generated.runs().get(0), dir.resolve("x"), first.cluster()));
    assertTrue(running.getMessage().contains("Fix: run without --use-running, or remove that sweep"), running.getMessage());
  }

  /**
   * A timed run of the kvlab workload lasts warm-up + duration from the client's first operation (kvlab.runseconds),
   * with YCSB's own limit, which counts from the threads' start, as a backstop; another workload class gets YCSB's.
   */
  @Test
  void when_aTimedRunIsPlanned_then_theKvlabWorkloadCountsItsLengthFromTheFirstOperation(@TempDir Path dir)
      throws Exception {
    String text = "name: t\ncluster: { datacenters: 1, partitions: 1 }\nprotocols: [eventual]\nduration: 4s\nwarmup: 1s\n";
    Experiment kvlab = ExperimentLoaderTest.parse(text);
    String props = ExperimentRunner.properties(kvlab, RunPlan.of(kvlab, kvlab.runs().get(0), dir, null), false, 0, 1);
    assertTrue(props.contains("\nkvlab.runseconds=5\n"), props);
    assertTrue(props.contains("\nmaxexecutiontime=" + (5 + ExperimentRunner.START_ALLOWANCE_SECONDS) + "\n"), props);

    Experiment core = ExperimentLoaderTest.parse(text + "workloadclass: site.ycsb.workloads.CoreWorkload\n");
    props = ExperimentRunner.properties(core, RunPlan.of(core, core.runs().get(0), dir, null), false, 0, 1);
    assertTrue(props.contains("\nmaxexecutiontime=5\n") && !props.contains("kvlab.runseconds"), props);

    Experiment counted = ExperimentLoaderTest.parse(text.replace("duration: 4s", "operationcount: 100"));
    props = ExperimentRunner.properties(counted, RunPlan.of(counted, counted.runs().get(0), dir, null), false, 0, 1);
    assertTrue(!props.contains("kvlab.runseconds") && !props.contains("maxexecutiontime"), props);
  }
}
