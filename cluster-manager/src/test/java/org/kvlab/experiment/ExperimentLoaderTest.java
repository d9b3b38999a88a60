package org.kvlab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.config.ClusterConfig.StorageSpec;
import org.kvlab.config.ConfigException;
import org.kvlab.store.Durability;

/**
 * Goal: experiment files load into what docs/bench.md says, and every malformed one is reported with
 * the file, line, column, problem and a fix (did-you-mean for misspelt keys and properties).
 */
class ExperimentLoaderTest {
  static final List<String> INSTALLED = List.of("eventual", "gentlerain", "causalspartanx");
  static final Path REPO = Path.of("..").toAbsolutePath().normalize();
  private static final String BASE = "name: t\ncluster: { datacenters: 2, partitions: 1 }\nprotocols: [eventual]\nduration: 2s\n";

  static Experiment parse(String yaml) throws ConfigException {
    return ExperimentLoader.parse(yaml, "x.yaml", null, INSTALLED);
  }

  static String error(String yaml) {
    return assertThrows(ConfigException.class, () -> parse(yaml)).getMessage();
  }

  @Test
  void when_theShippedExperimentsLoad_then_theyHaveTheirDocumentedShape() throws Exception {
    Experiment smoke = ExperimentLoader.load(REPO.resolve("experiments/smoke.yaml"), INSTALLED);
    assertEquals("smoke", smoke.name());
    assertEquals(List.of("eventual"), smoke.protocols());
    assertTrue(smoke.runs().size() <= 2, "smoke must stay tiny");
    assertTrue(smoke.timed() && smoke.duration().plus(smoke.warmup()).toSeconds() <= 10);

    Experiment fig = ExperimentLoader.load(REPO.resolve("experiments/dkvf-fig-8.4.yaml"), INSTALLED);
    assertEquals(List.of("eventual", "gentlerain", "causalspartanx"), fig.protocols());
    assertEquals(2, fig.cluster().datacenters());
    assertEquals(3, fig.cluster().partitions());
    assertEquals("readproportion", fig.xAxis());
    assertEquals(List.of("0.05", "0.25", "0.5", "0.75", "0.95"), fig.sweeps().get(0).values());
    assertEquals(15, fig.runs().size());
    assertEquals("64", fig.workload().get("fieldlength"));

    for (String anchor : List.of("dkvf-anchor", "dkvf-anchor-2x3", "dkvf-anchor-2x3-dc0", "dkvf-anchor-2x3-dc0-csx",
        "redis-anchor")) {
      Experiment a = ExperimentLoader.load(REPO.resolve("experiments/" + anchor + ".yaml"), INSTALLED);
      assertEquals("30", a.clients().threads() + "", anchor);
      assertEquals("0.5", a.workload().get("readproportion"), anchor);
      assertEquals(10_000, a.recordCount(), anchor);
    }
    assertEquals(List.of(0), ExperimentLoader.load(REPO.resolve("experiments/dkvf-anchor-2x3-dc0.yaml"), INSTALLED)
        .clients().datacenters());
    Experiment csx = ExperimentLoader.load(REPO.resolve("experiments/dkvf-anchor-2x3-dc0-csx.yaml"), INSTALLED);
    assertEquals(List.of("causalspartanx"), csx.protocols());
    assertEquals(List.of(0), csx.clients().datacenters());
    assertEquals(2, csx.cluster().datacenters());
    assertEquals(3, csx.cluster().partitions());
    Experiment redis = ExperimentLoader.load(REPO.resolve("experiments/redis-anchor.yaml"), INSTALLED);
    assertEquals("org.kvlab.ycsb.RedisDB", redis.db());
    assertEquals("6390", redis.workload().get("redis.port"));
  }

  @Test
  void when_aFullFileLoads_then_everyKeyIsRead() throws Exception {
    Experiment e = parse("""
        name: full
        cluster:
          datacenters: 2
          partitions: 3
          storage: memory
          wan: 40ms
          jvm: -Xmx256m
          singlejvm: true
        protocols: [eventual, gentlerain]
        workload:
          fieldlength: 64
          insertproportion: 0.1
        sweep:
          readproportion: [0.1, 0.5]
          wan: [off, on]
        clients: { processes: 2, threads: 8, jvm: -Xmx128m }
        recordcount: 500
        operationcount: 10000
        warmup: 2s
        repeats: 3
        load: false
        db: site.ycsb.BasicDB
        workloadclass: site.ycsb.workloads.CoreWorkload
        timeout: 5m
        """);
    assertEquals(StorageSpec.Engine.MEMORY, e.cluster().engine());
    assertEquals(Durability.NONE, e.cluster().durability());
    assertEquals(40, e.cluster().wanRttMillis());
    assertEquals("-Xmx256m", e.cluster().serverJvmOptions());
    assertTrue(e.cluster().singleJvm());
    assertEquals(new Experiment.Clients(2, 8, "-Xmx128m"), e.clients());
    assertEquals(500, e.recordCount());
    assertEquals(10000, e.operationCount());
    assertNull(e.duration());
    assertEquals(Duration.ofSeconds(2), e.warmup());
    assertEquals(Duration.ofMinutes(5), e.timeout());
    assertEquals(false, e.load());
    assertEquals("site.ycsb.BasicDB", e.db());
    // 2 protocols x (2 x 2 variations) x 3 repeats, repeats outermost, protocols innermost
    List<Experiment.Run> runs = e.runs();
    assertEquals(24, runs.size());
    assertEquals(new Experiment.Run(1, "eventual", new Experiment.Variation(Map.of("readproportion", "0.1", "wan", "off")), 1),
        runs.get(0));
    assertEquals("gentlerain", runs.get(1).protocol());
    assertEquals("002-gentlerain-readproportion=0.1-wan=off-1", runs.get(1).id());
    assertEquals(Map.of("readproportion", "0.1", "wan", "on"), runs.get(2).variation().values());
    assertEquals(3, runs.get(23).repeat());
  }

  @Test
  void when_optionalKeysAreLeftOut_then_defaultsApply() throws Exception {
    Experiment e = parse(BASE);
    assertEquals(1000, e.recordCount());
    assertEquals(Duration.ZERO, e.warmup());
    assertEquals(1, e.repeats());
    assertEquals(new Experiment.Clients(1, 1, "-Xmx256m -XX:+UseSerialGC"), e.clients());
    assertEquals(List.of(), e.clients().datacenters());
    assertEquals(Experiment.KVLAB_DB, e.db());
    assertEquals(false, e.cluster().singleJvm());
    assertEquals(Experiment.KVLAB_WORKLOAD, e.workloadClass());
    assertEquals(StorageSpec.Engine.JE, e.cluster().engine());
    assertEquals(List.of(new Experiment.Variation(Map.of())), e.variations());
    assertEquals("001-eventual-1", e.runs().get(0).id());
    assertTrue(e.timeout().compareTo(Duration.ofSeconds(2)) > 0);
  }

  @Test
  void when_theClusterIsAFile_then_itIsTheTemplate(@TempDir Path dir) throws Exception {
    Path exp = dir.resolve("exp.yaml");
    Files.writeString(exp, "name: t\ncluster: { file: " + REPO.resolve("examples/eventual-2dc-3p-wan.yaml")
        + ", durability: sync }\nprotocols: [gentlerain]\nduration: 1s\nsweep: { wan: [off, on] }\n");
    Experiment e = ExperimentLoader.load(exp, INSTALLED);
    assertEquals(2, e.cluster().datacenters());
    assertEquals(3, e.cluster().partitions());
    assertEquals(Durability.SYNC, e.cluster().durability());
    assertEquals("eventual", e.cluster().template().protocol());
    assertTrue(e.cluster().wanRttMillis() > 0);
  }

  @Test
  void when_keysAreMisspelt_then_theClosestKnownOneIsSuggested() {
    assertEquals("x.yaml:4:1: unknown top-level key 'duraton'. Fix: did you mean 'duration'? The known top-level keys are"
        + " name, cluster, protocols, workload, sweep, clients, recordcount, operationcount, duration, warmup, repeats,"
        + " load, db, workloadclass, timeout.",
        error("name: t\ncluster: { datacenters: 1, partitions: 1 }\nprotocols: [eventual]\nduraton: 2s\n"));
    assertEquals("x.yaml:6:3: workload.readproprtion: unknown YCSB property 'readproprtion'. Fix: did you mean"
        + " 'readproportion'? (A name not close to a known property is passed to YCSB as it is.)",
        error(BASE + "workload:\n  readproprtion: 0.5\n"));
    assertEquals("x.yaml:3:23: protocols[1]: 'gentleran' is not an installed protocol. Fix: did you mean 'gentlerain'?"
        + " The installed protocols are causalspartanx, eventual, gentlerain (./kvlab protocols lists them).",
        error("name: t\ncluster: { datacenters: 1, partitions: 1 }\nprotocols: [eventual, gentleran]\nduration: 2s\n"));
    assertEquals("x.yaml:6:3: clients: unknown key 'thread'. Fix: did you mean 'threads'? The known keys of"
        + " 'clients' are processes, threads, jvm, datacenters.", error(BASE + "clients:\n  thread: 4\n"));
  }

  @Test
  void when_valuesAreWrong_then_theMessageNamesLineColumnAndFix() {
    assertEquals("x.yaml:6:3: workload.threadcount: 'threadcount' is set by bench. Fix: use 'clients: { threads: N }'"
        + " (threads per client JVM), or sweep 'threads'.", error(BASE + "workload:\n  threadcount: 4\n"));
    assertEquals("x.yaml:6:25: sweep.readproportion[1]: 1.5 is not a proportion. Fix: write a number from 0 to 1, e.g. 0.5.",
        error(BASE + "sweep:\n  readproportion: [0.5, 1.5]\n"));
    assertEquals("x.yaml:8:25: sweep.readproportion[1]: readproportion 0.9 and the workload's other proportions (0.2)"
        + " add up to more than 1. Fix: lower it to at most 0.8.",
        error(BASE + "workload:\n  insertproportion: 0.2\nsweep:\n  readproportion: [0.5, 0.9]\n"));
    assertEquals("x.yaml:6:19: sweep.readproportion: must be a list of values, but is a decimal number '0.5'. Fix: write"
        + " e.g. 'readproportion: [0.05, 0.5, 0.95]'.", error(BASE + "sweep:\n  readproportion: 0.5\n"));
    assertEquals("x.yaml:4:1: duration: 'operationcount' (line 5) and 'duration' are both given. Fix: keep one: a run"
        + " phase lasts either a number of operations or a time.", error(BASE + "operationcount: 100\n"));
    assertEquals("x.yaml:1:1: missing 'duration' (or 'operationcount'). Fix: add a line like 'duration: 30s' (the measured"
        + " time, after the warm-up) or 'operationcount: 100000'.",
        error("name: t\ncluster: { datacenters: 1, partitions: 1 }\nprotocols: [eventual]\n"));
    assertEquals("x.yaml:6:14: sweep.wan[1]: 'on' needs a round-trip time, and none is given. Fix: set 'cluster.wan:"
        + " 100ms' (or emulation.rtt in the cluster file), or write the time here, e.g. 100ms.",
        error(BASE + "sweep:\n  wan: [off, on]\n"));
    assertEquals("x.yaml:5:9: warmup: '1500ms' is not a whole number of seconds (YCSB measures in 1 s intervals). Fix:"
        + " round it to seconds, e.g. 2s.", error(BASE + "warmup: 1500ms\n"));
    assertEquals("x.yaml:5:21: clients.threads: 0 is out of range. Fix: use a number from 1 to 1024.",
        error(BASE + "clients: { threads: 0 }\n"));
    assertEquals("x.yaml:5:29: clients.datacenters[1]: datacenter 2 is not in the cluster, which has 2 (numbered from"
        + " 0). Fix: use datacenters 0..1, e.g. 'datacenters: [0]'.", error(BASE + "clients: { datacenters: [0, 2] }\n"));
    assertEquals("x.yaml:5:29: clients.datacenters[1]: datacenter 1 is listed twice. Fix: list each datacenter once.",
        error(BASE + "clients: { datacenters: [1, 1] }\n"));
    assertEquals("x.yaml:1:7: name: 'T x' is not a valid experiment name. Fix: use at most 64 lower-case letters, digits,"
        + " '.', '_' and '-', starting with a letter or digit, e.g. 'getput-sweep'.",
        error("name: T x\ncluster: { datacenters: 1, partitions: 1 }\nprotocols: [eventual]\nduration: 2s\n"));
    assertEquals("x.yaml:2:72: cluster.durability: storage memory cannot give durability sync. Fix: use storage je, or"
        + " durability none.", error("name: t\ncluster: { datacenters: 1, partitions: 1, storage: memory, durability:"
        + " sync }\nprotocols: [eventual]\nduration: 2s\n"));
    assertEquals("x.yaml:2:18: cluster.file: cluster file 'nope.yaml' does not exist (looked in the working directory)."
        + " Fix: check the path, e.g. 'file: examples/eventual-2dc-3p.yaml'.",
        error("name: t\ncluster: { file: nope.yaml }\nprotocols: [eventual]\nduration: 2s\n"));
    assertEquals("x.yaml:5:1: key 'duration' is given twice (first on line 4). Fix: keep only one of them.",
        error(BASE + "duration: 2s\n"));
  }

  @Test
  void when_theFileIsNotYamlOrEmpty_then_thatIsSaid(@TempDir Path dir) throws Exception {
    assertEquals("x.yaml: the experiment file is empty. Fix: write at least name, cluster, protocols and duration (or"
        + " operationcount); see docs/bench.md.", error(""));
    assertEquals("x.yaml:6:1: YAML syntax error: a tab character where YAML expects indentation. Fix: indent with"
        + " spaces, not tabs.", error(BASE + "clients:\n\tthreads: 2\n"));
    Path missing = dir.resolve("missing.yaml");
    assertEquals(missing + ": cannot read experiment file " + missing + ": no such file. Fix: check the path.",
        assertThrows(ConfigException.class, () -> ExperimentLoader.load(missing, INSTALLED)).getMessage());
    Path invalidTemplate = dir.resolve("bad-cluster.yaml");
    Files.writeString(invalidTemplate, "name: c\nprotocol: eventual\ndatacenters: 1\npartitons: 1\nlocal: { basePort: 7000 }\n");
    String message = error("name: t\ncluster: { file: " + invalidTemplate + " }\nprotocols: [eventual]\nduration: 2s\n");
    assertTrue(message.startsWith("x.yaml:2:18: cluster.file: the cluster file is invalid: " + invalidTemplate
        + ":4:1: unknown top-level key 'partitons'. Fix: did you mean 'partitions'?"), message);
  }

  // cluster.params.<name> sweeps: the protocol parameters of each run's cluster file

  private static final List<String> WITH_CAMU = List.of("eventual", "camu", "nukv");

  static Experiment parseCamu(String yaml) throws ConfigException {
    return ExperimentLoader.parse(yaml, "x.yaml", null, WITH_CAMU);
  }

  static String camuError(String yaml) {
    return assertThrows(ConfigException.class, () -> parseCamu(yaml)).getMessage();
  }

  @Test
  void when_aProtocolParameterIsSwept_then_eachVariationHasOneValueAndTheFirstSweepIsTheXAxis() throws Exception {
    Experiment e = parseCamu("""
        name: modes
        cluster: { datacenters: 1, partitions: 2 }
        protocols: [camu]
        sweep:
          cluster.params.mode: [pb, tom, camu]
          cluster.params.round: [2ms, 5ms]
        duration: 1s
        """);
    assertEquals("cluster.params.mode", e.xAxis());
    assertEquals(List.of("pb", "tom", "camu"), e.sweeps().get(0).values());
    assertEquals(6, e.runs().size());
    assertEquals("cluster.params.mode=pb cluster.params.round=2ms", e.runs().get(0).variation().label());
    assertEquals("001-camu-cluster.params.mode=pb-cluster.params.round=2ms-1", e.runs().get(0).id());
    assertTrue(ExperimentLoader.isClusterParam("cluster.params.mode"));
    assertEquals("mode", ExperimentLoader.clusterParam("cluster.params.mode"));
  }

  @Test
  void when_aSweptParameterIsNotTheProtocols_then_theClusterFileLoadersMessageNamesItsParameters() {
    String base = "name: t\ncluster: { datacenters: 1, partitions: 2 }\nprotocols: [camu]\nduration: 1s\nsweep:\n";
    String typo = camuError(base + "  cluster.params.mdoe: [pb, tom]\n");
    assertTrue(typo.startsWith("x.yaml:6:3: sweep.cluster.params.mdoe: 'mdoe' is not a parameter of protocol camu."
        + " Fix: did you mean 'cluster.params.mode'? Protocol camu reads: adaptive ("), typo);
    assertTrue(typo.contains("mode (pb | tom | camu, default camu"), typo);

    // every protocol of the experiment must read it: eventual reads none
    String mixed = camuError("name: t\ncluster: { datacenters: 1, partitions: 2 }\nprotocols: [camu, eventual]\n"
        + "duration: 1s\nsweep:\n  cluster.params.mode: [pb, tom]\n");
    assertEquals("x.yaml:6:3: sweep.cluster.params.mode: 'mode' is not a parameter of protocol eventual. Fix: remove"
        + " the sweep, or sweep it in an experiment of the protocols that read it. Protocol eventual reads no"
        + " parameters.", mixed);

    assertEquals("x.yaml:6:3: sweep.cluster.param.mode: unknown sweep variable 'cluster.param.mode'. Fix: a protocol"
        + " parameter is swept as 'cluster.params.<name>', e.g. 'cluster.params.mode: [pb, tom, camu]' (the parameters"
        + " of the cluster file's 'params'); other cluster variables are wan, clockskew and durability.",
        camuError(base + "  cluster.param.mode: [pb]\n"));
    assertTrue(camuError(base + "  params.mode: [pb]\n").startsWith("x.yaml:6:3: sweep.params.mode: unknown sweep"
        + " variable 'params.mode'. Fix: a protocol parameter is swept as 'cluster.params.<name>'"));
    assertEquals("x.yaml:6:24: sweep.cluster.params.mode: must be a list of values, but is text 'pb'."
        + " Fix: write e.g. 'cluster.params.mode: [a, b]', one value per run of each protocol.",
        camuError(base + "  cluster.params.mode: pb\n"));
    assertEquals("x.yaml:6:29: sweep.cluster.params.mode[1]: 'pb' is listed twice. Fix: list each value once.",
        camuError(base + "  cluster.params.mode: [pb, pb]\n"));
    assertTrue(camuError(base + "  cluster.params.mode: []\n").startsWith("x.yaml:6:24: sweep.cluster.params.mode: has"
        + " no values."));
  }

  @Test
  void when_theCamuModesExperimentLoads_then_itSweepsTheModeOfOneProtocol() throws Exception {
    // its cluster template is relative to the repository (where ./kvlab runs), the tests run in cluster-manager/
    String text = Files.readString(REPO.resolve("experiments/camu-modes.yaml"))
        .replace("file: examples/", "file: " + REPO.resolve("examples") + "/");
    Experiment modes = ExperimentLoader.parse(text, "camu-modes.yaml", null, WITH_CAMU);
    assertEquals(List.of("camu"), modes.protocols());
    assertEquals("cluster.params.mode", modes.xAxis());
    assertEquals(List.of("pb", "tom", "camu"), modes.sweeps().get(0).values());
    assertEquals(3, modes.runs().size());
  }

  @Test
  void when_theNukvGuaranteesExperimentLoads_then_itSweepsRemoteTrafficLevelsAndHlc() throws Exception {
    String text = Files.readString(REPO.resolve("experiments/nukv-guarantees.yaml"))
        .replace("file: examples/", "file: " + REPO.resolve("examples") + "/");
    Experiment e = ExperimentLoader.parse(text, "nukv-guarantees.yaml", null, WITH_CAMU);
    assertEquals(List.of("nukv"), e.protocols());
    assertEquals(List.of("kvlab.remoteproportion", "cluster.params.writeLevel", "cluster.params.readLevel",
        "cluster.params.hlc"), e.sweeps().stream().map(Experiment.Sweep::name).toList());
    assertEquals(2 * 2 * 2 * 2 * e.repeats(), e.runs().size());
    assertEquals(3, e.cluster().template().topology().replicas());
    assertEquals(15, e.cluster().wanRttMillis());
  }
}
