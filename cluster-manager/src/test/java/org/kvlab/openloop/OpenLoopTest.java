package org.kvlab.openloop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.Session;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;
import org.kvlab.protocols.eventual.Eventual;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.testing.TestClusters;

/** The open-loop mode of kvlab bench: its schedule, its accounting, the knee, and its experiment file. */
class OpenLoopTest {
  @TempDir
  Path dir;

  @Test
  @Timeout(120)
  void when_aRateIsOffered_then_everyScheduledRequestIsSentAndEachMeasuredOneIsTimedFromItsIntendedStart()
      throws Exception {
    ClusterConfig config = TestClusters.loopback("eventual", 1, 1, TestClusters.memory());
    try (LocalCluster cluster = LocalCluster.start(config, new Eventual());
         ClientRuntime rt = new ClientRuntime(config, new Eventual(), 1)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)));
      List<Session> sessions = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        sessions.add(rt.openSession(0));
      }
      OpenLoopLoad.Workload w = new OpenLoopLoad.Workload(100, 0.5, 16, 7);
      OpenLoopLoad.load(sessions, w);
      assertTrue(sessions.get(0).get("user99").isPresent(), "load writes every record");
      // 500/s for 0.2 s of warm-up and 1 s measured: requests 0..599 are due; 100 fall in the warm-up.
      OpenLoopLoad.Outcome o = OpenLoopLoad.run(sessions, w, 500, 200_000_000L, 1_000_000_000L, 30_000_000_000L);
      assertEquals(600, o.issued(), "the schedule decides how many requests are sent, not the replies");
      assertEquals(0, o.errors(), String.valueOf(o.firstError()));
      assertFalse(o.abandoned());
      assertEquals(500, o.measured(), "requests due after the warm-up are measured");
      assertEquals(500, o.latency().getTotalCount());
      assertEquals(600, java.util.Arrays.stream(o.perSecond()).sum(), "every completion is counted in some second");
      assertTrue(o.latency().getMinValue() >= 1);
      assertTrue(o.latency().getMaxValue() < 30_000_000L, "no request is timed from before the run");
      // The window in wall-clock time, for matching the servers' logged pauses to it: 1 s, or more if replies lag.
      assertTrue(o.windowToMillis() - o.windowFromMillis() >= 1000, o.windowFromMillis() + ".." + o.windowToMillis());
      assertTrue(Math.abs(o.windowFromMillis() - (System.currentTimeMillis() - 1000)) < 60_000);
      assertTrue(o.generator() != null && o.generator().bytesPerRequest() > 0,
          "the generator's own allocation per request is measured: " + o.generator());
    }
  }

  @Test
  @Timeout(120)
  void when_theSessionsAreOnSeveralThreads_then_eachThreadsDriverSendsItsShareOfTheScheduleOnce() throws Exception {
    ClusterConfig config = TestClusters.loopback("eventual", 1, 1, TestClusters.memory());
    try (LocalCluster cluster = LocalCluster.start(config, new Eventual());
         ClientRuntime rt = new ClientRuntime(config, new Eventual(), 2)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)));
      List<Session> sessions = new ArrayList<>();
      for (int i = 0; i < 5; i++) { // 5 sessions on 2 threads: the threads' shares differ (3 and 2 sessions)
        sessions.add(rt.openSession(0));
      }
      assertEquals(2, sessions.stream().map(Session::executor).distinct().count(), "the sessions use both threads");
      OpenLoopLoad.Workload w = new OpenLoopLoad.Workload(100, 0.5, 16, 7);
      OpenLoopLoad.load(sessions, w);
      // 2,000/s for 0.1 s of warm-up and 0.5 s measured: requests 0..1199 are due, 200 in the warm-up.
      OpenLoopLoad.Outcome o = OpenLoopLoad.run(sessions, w, 2000, 100_000_000L, 500_000_000L, 30_000_000_000L);
      assertEquals(1200, o.issued(), "every request of the schedule is sent once, whichever thread its session is on");
      assertEquals(0, o.errors(), String.valueOf(o.firstError()));
      assertFalse(o.abandoned());
      assertEquals(1000, o.measured());
      assertEquals(1000, o.latency().getTotalCount());
    }
  }

  @Test
  @Timeout(180)
  void when_aSweepRuns_then_eachRateCarriesTheServersLoggedPausesAndTheGeneratorsCollections() throws Exception {
    Path cluster = dir.resolve("ol-pauses-eventual-1.yaml");
    Files.writeString(cluster, "name: ol-pauses-eventual-1\nprotocol: eventual\ndatacenters: 1\npartitions: 1\n"
        + "servers:\n  - { id: 0_0, host: 127.0.0.1, port: " + org.kvlab.runtime.LoopbackPorts.freeBlock(1) + " }\n"
        + "storage: { engine: memory, durability: none }\n"
        + "security: { secretFile: '" + dir.resolve("ol.secret") + "' }\n");
    Path file = dir.resolve("ol-pauses.yaml");
    Files.writeString(file, """
        mode: open-loop
        name: ol-pauses
        clusters: [ol-pauses-eventual-1.yaml]
        jvm: -Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1
        rates: [300]
        warmup: 0s
        duration: 2s
        p99bound: 50ms
        sessions: 2
        records: 50
        """);
    List<String> progress = new ArrayList<>();
    OpenLoopBench.Report r = OpenLoopBench.run(OpenLoopExperiment.load(file), dir.resolve("results"), progress::add);
    assertEquals(1, r.points().size(), progress.toString());
    OpenLoopBench.Point p = r.points().get(0);
    assertEquals(0, p.errors(), p.firstError());
    assertTrue(p.serverPauses() != null, "the server's pauses are read from its log: " + progress);
    assertTrue(p.serverPauses().count() >= 0 && p.serverPauses().totalMillis() >= 0);
    assertTrue(p.generatorGc() != null && p.generatorGc().bytesPerRequest() > 0, String.valueOf(p.generatorGc()));
    Path logs = r.directory().resolve("gc-ol-pauses-eventual-1");
    List<Path> serverLogs;
    try (var l = Files.list(logs)) {
      serverLogs = l.toList();
    }
    assertEquals(1, serverLogs.size(), serverLogs.toString());
    String serverLog = Files.readString(serverLogs.get(0));
    assertTrue(serverLog.contains("[gc] Using Serial"), "the server JVM logs its collector");
    // collect (the default): a full collection of the server before the rate, asked for with jcmd
    assertTrue(serverLog.contains("Pause Full (Diagnostic Command)"), "the server was collected before the rate");
    assertTrue(progress.stream().noneMatch(l -> l.startsWith("warning:")), progress.toString());
    assertTrue(progress.stream().anyMatch(l -> l.contains("; server: ") && l.contains("; generator: ")), progress.toString());
    String csv = Files.readString(r.directory().resolve("openloop.csv"));
    assertTrue(csv.lines().findFirst().orElseThrow().endsWith("generator_bytes_per_req"), csv);
    // The generator ran as a client process of the local backend: its files are in generator-<cluster>/, and
    // openloop.json names the backend and where the generator ran.
    assertTrue(progress.contains("load generator for ol-pauses-eventual-1 on localhost"), progress.toString());
    Path gen = r.directory().resolve("generator-ol-pauses-eventual-1");
    assertEquals(1, Files.readAllLines(gen.resolve("points.jsonl")).size());
    assertTrue(Files.size(gen.resolve("rate-0.hdr")) > 0 && Files.readString(gen.resolve("host.txt")).startsWith("host "));
    assertTrue(Files.readString(gen.resolve("command.txt")).contains(OpenLoopClient.class.getName()));
    var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.directory().resolve("openloop.json").toFile());
    assertEquals("local", json.path("backend").asText());
    assertEquals("localhost", json.path("generatorHosts").path("ol-pauses-eventual-1").asText(), json.toString());
    assertEquals(1, json.path("points").size());
  }

  @Test
  void when_theGeneratorConnects_then_itsClientAllowsEveryRequestUntilTheRunIsAbandoned() {
    ClusterConfig config = TestClusters.loopback("eventual", 1, 1, TestClusters.memory());
    ClusterConfig raised = OpenLoopBench.forLoadGenerator(config);
    // abandoned at IN_FLIGHT_MAX, checked by each session thread's driver: the client allows a batch more
    assertEquals(OpenLoopLoad.IN_FLIGHT_MAX + OpenLoopLoad.BATCH_MAX, raised.limits().clientRequestsInFlightMax());
    assertEquals(config.limits().frameBytesMax(), raised.limits().frameBytesMax(), "only the in-flight limit changes");
    assertEquals(config.servers(), raised.servers());
  }

  @Test
  void when_theGeneratorsOptionsAreGiven_then_theyReplaceTheBenchJvmsOwn() {
    List<String> own = OpenLoopBench.generatorJvm();
    assertTrue(own.stream().allMatch(o -> o.startsWith("-X")), "only the bench JVM's -X options go on: " + own);
    System.setProperty(OpenLoopBench.GENERATOR_JVM_PROPERTY, " -Xms2g -Xmx2g  -XX:+UseSerialGC ");
    try {
      assertEquals(List.of("-Xms2g", "-Xmx2g", "-XX:+UseSerialGC"), OpenLoopBench.generatorJvm());
    } finally {
      System.clearProperty(OpenLoopBench.GENERATOR_JVM_PROPERTY);
    }
    assertEquals(own, OpenLoopBench.generatorJvm());
  }

  private static OpenLoopBench.Point point(String protocol, double rate, double p99Micros, long errors) {
    return new OpenLoopBench.Point(protocol, "c", rate, rate, 100, errors, false, p99Micros / 2, p99Micros, p99Micros,
        p99Micros, p99Micros, new long[0], null);
  }

  @Test
  void when_p99CrossesTheBound_then_theKneeIsTheHighestRateBeforeIt() {
    List<OpenLoopBench.Point> points = List.of(point("a", 1000, 800, 0), point("a", 2000, 4000, 0),
        point("a", 4000, 9000, 0), point("a", 8000, 3000, 0), // a lucky run past the knee does not count
        point("b", 1000, 6000, 0), point("c", 1000, 100, 0), point("c", 2000, 100, 5));
    Map<String, Double> knee = OpenLoopBench.knee(points, 5000);
    assertEquals(2000.0, knee.get("a"));
    assertEquals(0.0, knee.get("b"), "no rate within the bound");
    assertEquals(1000.0, knee.get("c"), "a rate with errors is past the knee");
  }

  @Test
  void when_theExperimentFileIsValid_then_itLoadsWithDefaults() throws Exception {
    Files.writeString(dir.resolve("c.yaml"), "name: c\nprotocol: eventual\ndatacenters: 1\npartitions: 1\n"
        + "servers:\n  - { id: 0_0, host: 127.0.0.1, port: 7200 }\n");
    Path f = dir.resolve("ol.yaml");
    Files.writeString(f, "mode: open-loop\nname: ol-test\nclusters: [c.yaml]\nrates: [1000, 2000]\np99bound: 2ms\n");
    assertTrue(OpenLoopExperiment.isOpenLoop(f));
    OpenLoopExperiment e = OpenLoopExperiment.load(f);
    assertEquals(List.of(1000.0, 2000.0), e.rates());
    assertEquals(Duration.ofMillis(2), e.p99Bound());
    assertEquals(64, e.sessions());
    assertEquals(Duration.ZERO, e.prime(), "no JIT warm-up unless asked");
    assertTrue(e.collect(), "a full collection before each rate unless told not to");
    assertEquals(dir.resolve("c.yaml").normalize(), e.clusters().get(0));
    Path ycsb = dir.resolve("y.yaml");
    Files.writeString(ycsb, "name: y\nprotocols: [eventual]\n");
    assertFalse(OpenLoopExperiment.isOpenLoop(ycsb));
  }

  @Test
  void when_theExperimentFileHasAMistake_then_theErrorNamesTheLineAndAFix() throws Exception {
    Path f = dir.resolve("bad.yaml");
    Files.writeString(f, "mode: open-loop\nname: x\nclusters: [nowhere.yaml]\nrates: [1000]\n");
    ConfigException missing = assertThrows(ConfigException.class, () -> OpenLoopExperiment.load(f));
    assertTrue(missing.getMessage().contains("nowhere.yaml does not exist") && missing.getMessage().contains(":3:"),
        missing.getMessage());
    Files.writeString(f, "mode: open-loop\nname: x\nclusters: [a.yaml]\nrate: [1000]\n");
    ConfigException typo = assertThrows(ConfigException.class, () -> OpenLoopExperiment.load(f));
    assertTrue(typo.getMessage().contains("did you mean 'rates'"), typo.getMessage());
    Files.writeString(dir.resolve("a.yaml"), "name: a\nprotocol: eventual\ndatacenters: 1\npartitions: 1\n"
        + "servers:\n  - { id: 0_0, host: 127.0.0.1, port: 7200 }\n");
    Files.writeString(f, "mode: open-loop\nname: x\nclusters: [a.yaml]\nrates: [1000]\ncollect: yes\n");
    ConfigException collect = assertThrows(ConfigException.class, () -> OpenLoopExperiment.load(f));
    assertTrue(collect.getMessage().contains("'yes' is not true or false") && collect.getMessage().contains(":5:")
        && collect.getMessage().contains("collect: false"), collect.getMessage());
    Files.writeString(f, "mode: open-loop\nname: x\nclusters: [a.yaml]\nrates: [1000]\ncollect: false\n");
    assertFalse(OpenLoopExperiment.load(f).collect());
  }
}
