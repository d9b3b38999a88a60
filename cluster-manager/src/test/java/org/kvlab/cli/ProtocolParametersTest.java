package org.kvlab.cli;

import org.kvlab.cli.InProcessCli.Run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.Protocols;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;
import org.kvlab.experiment.ExperimentLoader;

/**
 * Goal: a protocol parameter's value that the protocol cannot run with ({@code Protocol.checkParameters}) is refused
 * before anything starts — by the cluster-file loader (so {@code kvlab local up}) and by {@code kvlab bench} for the
 * template and every swept {@code cluster.params.<name>} value — with the file, line and column of the value, the
 * cause, and the fix (did you mean, when the values are a fixed set); every shipped example and experiment still loads.
 * Method: cluster files and experiment files as text, for every protocol that takes parameters; {@code kvlab local up}
 * and {@code kvlab bench} in this JVM (they refuse before starting anything, so nothing runs).
 */
class ProtocolParametersTest {
  static final Path REPO = Path.of("..").toAbsolutePath().normalize();
  static final List<String> INSTALLED = Protocols.all().stream().map(p -> p.name()).toList();

  @TempDir Path dir;

  /** A cluster file of {@code protocol} whose params are the lines {@code params} (line 4 on). */
  private static String cluster(String protocol, int datacenters, int partitions, String... params) {
    return "name: t\nprotocol: " + protocol + "\nparams:\n" + String.join("", Stream.of(params).map(p -> "  " + p + "\n")
        .toList()) + "datacenters: " + datacenters + "\npartitions: " + partitions + "\nlocal: { basePort: 7100 }\n";
  }

  private static String refused(String yaml) {
    return assertThrows(ConfigException.class, () -> ClusterConfig.parse(yaml, "c.yaml")).getMessage();
  }

  @Test
  void when_aClusterFileGivesAValueTheProtocolRefuses_then_theLoaderNamesLineColumnCauseAndFix() throws Exception {
    // a finite set: did you mean
    assertEquals("c.yaml:4:9: params.mode: 'tmo' is not one of pb, tom, camu. Fix: did you mean 'tom'? Use pb, tom"
        + " or camu", refused(cluster("camu", 1, 4, "mode: tmo")));
    assertEquals("c.yaml:5:15: params.writeLevel: 'mw+wrf' is not a write level. Fix: did you mean 'mw+wfr'? Use"
        + " eventual, mw, wfr or mw+wfr", refused(cluster("nukv", 1, 1, "hlc: true", "writeLevel: mw+wrf")));
    assertEquals("c.yaml:4:14: params.readLevel: 'strong' is not a read level. Fix: use eventual, mr, ryw or mr+ryw",
        refused(cluster("nukv", 1, 1, "readLevel: strong")));
    assertEquals("c.yaml:4:8: params.hlc: 'yes' is not true or false. Fix: write true or false",
        refused(cluster("nukv", 1, 1, "hlc: yes")));
    assertEquals("c.yaml:4:13: params.tracking: 'datacentre' is neither a mode nor DC.P=GROUP entries. Fix: did you"
        + " mean 'datacenter'? Use datacenter, server, system or explicit entries DC.P=GROUP for every server, e.g."
        + " \"0.0=a 0.1=b 1.0=a 1.1=b\"", refused(cluster("accf", 2, 2, "tracking: datacentre")));
    // values the servers would refuse at start, by form, range or topology
    assertTrue(refused(cluster("gentlerain", 2, 1, "heartbeat: 0ms")).startsWith(
        "c.yaml:4:14: params.heartbeat: '0ms' must be more than 0. Fix: write e.g. 10ms (its default)"));
    assertTrue(refused(cluster("causalspartanx", 2, 1, "pruneLag: 1s", "dsvInterval: -5ms")).startsWith(
        "c.yaml:5:16: params.dsvInterval: '-5ms' must be more than 0. Fix: write e.g. 5ms"));
    assertTrue(refused(cluster("cops", 2, 1, "depRetry: soon")).startsWith(
        "c.yaml:4:13: params.depRetry: 'soon' is not a duration. Fix: write e.g. 10ms, 2s or 1m"));
    assertTrue(refused(cluster("nukv", 1, 1, "snapshotEvery: 5")).startsWith(
        "c.yaml:4:18: params.snapshotEvery: must be at least 10"));
    assertTrue(refused(cluster("nukv", 1, 1, "batch: many")).startsWith(
        "c.yaml:4:10: params.batch: 'many' is not a whole number. Fix: write a whole number, e.g. 256"));
    assertTrue(refused(cluster("camu", 1, 4, "pbLinks: 0-1;2-4")).startsWith(
        "c.yaml:4:12: params.pbLinks: cannot read the link '2-4'. Fix: write 'a-b;...' with two different partitions"
            + " below 4"));
    assertTrue(refused(cluster("camu", 1, 4, "switches: 20:0-1:pb;x:1-2:tom")).startsWith(
        "c.yaml:4:13: params.switches: cannot read the switch 'x:1-2:tom'"));
    assertTrue(refused(cluster("camu", 1, 4, "adaptiveLow: 80")).startsWith(
        "c.yaml:4:16: params.adaptiveLow: 80 is not from 0 to below adaptiveHigh (75)"));
    assertTrue(refused(cluster("accf", 2, 2, "tracking: 0.0=a 0.1=b 1.0=a 1.1=b 2.0=c")).startsWith(
        "c.yaml:4:13: params.tracking: server 2.0 is not in the cluster (2 datacenters x 2 partitions). Fix: name"
            + " servers 0.0 to 1.1"));
    assertTrue(refused(cluster("accf", 2, 2, "checkingGroup: dc3")).startsWith(
        "c.yaml:4:18: params.checkingGroup: no checking group 'dc3' in this cluster. Fix: did you mean 'dc0'? Name"
            + " one of the groups of the 'checking' parameter: dc0, dc1"));
    // a value refused only with another parameter's default: at the params section, naming that default
    assertTrue(refused(cluster("camu", 1, 4, "adaptiveHigh: 20")).startsWith("c.yaml:3:1: params.adaptiveLow: 25 is"
        + " not from 0 to below adaptiveHigh (20) (not given: its default). Fix: write a percentage from 0 to 19"));

    // accepted values load
    assertEquals("tom", ClusterConfig.parse(cluster("camu", 1, 4, "mode: tom", "pbLinks: 1-2", "switches: 20:0-3:pb"),
        "c.yaml").params().string("mode", null));
    ClusterConfig.parse(cluster("nukv", 1, 1, "readLevel: mr+ryw", "writeLevel: MW+WFR", "heartbeatTimeout: 2s"), "c.yaml");
    ClusterConfig.parse(cluster("accf", 2, 2, "checking: 0.0=a+b 0.1=b 1.0=a 1.1=b", "checkingGroup: b"), "c.yaml");
    ClusterConfig.parse(cluster("gentlerain", 2, 1, "pruneLag: 0ms", "recoveryMargin: 0ms"), "c.yaml");
  }

  @Test
  void when_aClusterHasAShapeTheProtocolCannotRunOn_then_theLoaderBenchAndSimNameTheKeyCauseAndFix() throws Exception {
    String camuFix = "Fix: set datacenters: 1 (CaMu's replication is not implemented, see"
        + " docs/protocols.md#camu-replication)";
    // at the value of datacenters (line 5: after one parameter)
    assertEquals("c.yaml:5:14: datacenters: 2 datacenters, but camu runs one replica per partition, in 1 datacenter. "
        + camuFix, refused(cluster("camu", 2, 4, "mode: pb")));
    // at the value of replicas
    assertEquals("c.yaml:8:11: replicas: 3 replicas per partition, but camu runs 1. Fix: remove replicas (CaMu's"
        + " replication is not implemented, see docs/protocols.md#camu-replication)",
        refused(cluster("camu", 1, 4, "mode: pb") + "replicas: 3\n"));
    // the shape is checked before the values: both wrong, the shape is named
    assertTrue(refused(cluster("camu", 2, 4, "mode: tmo")).startsWith("c.yaml:5:14: datacenters: 2 datacenters"));

    // bench: at cluster.datacenters, or at the template that sets it
    ConfigException e = assertThrows(ConfigException.class, () -> ExperimentLoader.parse("name: t\n"
        + "cluster: { datacenters: 2, partitions: 4 }\nprotocols: [eventual, camu]\nduration: 1s\n", "x.yaml", null,
        INSTALLED));
    assertEquals("x.yaml:2:25: cluster.datacenters: protocol camu refuses it: 2 datacenters, but camu runs one replica"
        + " per partition, in 1 datacenter. " + camuFix + ", or leave camu out of 'protocols'", e.getMessage());
    Path template = dir.resolve("ev.yaml");
    Files.writeString(template, "name: g\nprotocol: eventual\ndatacenters: 2\npartitions: 2\nlocal: { basePort: 7100 }\n");
    e = assertThrows(ConfigException.class, () -> ExperimentLoader.parse("name: t\ncluster: { file: " + template
        + " }\nprotocols: [camu]\nduration: 1s\n", "x.yaml", null, INSTALLED));
    assertEquals("x.yaml:2:18: cluster.file: protocol camu refuses its datacenters: 2 datacenters, but camu runs one"
        + " replica per partition, in 1 datacenter. " + camuFix + ", or leave camu out of 'protocols'", e.getMessage());

    // sim: at its option
    Run sim = kvlab("sim", "--protocol", "camu", "--datacenters", "2", "--partitions", "2", "--seeds", "1");
    assertEquals(Main.USAGE, sim.code(), sim.out() + sim.err());
    assertTrue(sim.err().contains("--datacenters: protocol camu refuses it: 2 datacenters, but camu runs one replica"
        + " per partition, in 1 datacenter. Fix: set --datacenters 1 (CaMu's replication"), sim.err());
    assertFalse(sim.out().contains("SEED"), "no seed was simulated: " + sim.out());
  }

  @Test
  void when_theShippedExamplesAndExperimentsLoad_then_theProtocolsAcceptTheirParameters() throws Exception {
    try (Stream<Path> files = Files.list(REPO.resolve("examples"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        ClusterConfig.load(f);
      }
    }
    try (Stream<Path> files = Files.list(REPO.resolve("experiments"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        String text = Files.readString(f);
        if (text.contains("mode: open-loop")) {
          continue; // another loader (org.kvlab.openloop)
        }
        ExperimentLoader.parse(text.replace("file: examples/", "file: " + REPO.resolve("examples") + "/"),
            f.toString(), f, INSTALLED);
      }
    }
  }

  @Test
  void when_aSweptParameterValueIsRefused_then_theExperimentIsRefusedAtThatValue() throws Exception {
    String head = "name: t\ncluster: { datacenters: 1, partitions: 4 }\nprotocols: [camu]\nduration: 1s\nsweep:\n";
    ConfigException e = assertThrows(ConfigException.class, () -> ExperimentLoader.parse(
        head + "  cluster.params.mode: [pb, tmo, camu]\n", "x.yaml", null, INSTALLED));
    assertEquals("x.yaml:6:29: sweep.cluster.params.mode[1]: protocol camu refuses mode 'tmo': 'tmo' is not one of pb,"
        + " tom, camu. Fix: did you mean 'tom'? Use pb, tom or camu", e.getMessage());

    // two swept parameters: the combination is checked, and the value named is the one refused
    e = assertThrows(ConfigException.class, () -> ExperimentLoader.parse(head
        + "  cluster.params.adaptiveHigh: [90, 50]\n  cluster.params.adaptiveLow: [10, 60]\n", "x.yaml", null, INSTALLED));
    assertEquals("x.yaml:7:36: sweep.cluster.params.adaptiveLow[1]: protocol camu refuses adaptiveLow '60' (with"
        + " cluster.params.adaptiveHigh=50): 60 is not from 0 to below adaptiveHigh (50). Fix: write a percentage from 0"
        + " to 49 (a PB link touched in fewer of the window's rounds switches to TOM), or raise adaptiveHigh",
        e.getMessage());

    // with a template: each swept value over the template's parameters, for every protocol that reads them
    Path template = dir.resolve("gr.yaml");
    Files.writeString(template, "name: g\nprotocol: gentlerain\nparams: { heartbeat: 10ms, gstInterval: 5ms }\n"
        + "datacenters: 2\npartitions: 1\nlocal: { basePort: 7100 }\n");
    ExperimentLoader.parse("name: t\ncluster: { file: " + template + " }\nprotocols: [gentlerain, causalspartanx]\n"
        + "duration: 1s\nsweep: { cluster.params.heartbeat: [5ms, 20ms] }\n", "x.yaml", null, INSTALLED);
    e = assertThrows(ConfigException.class, () -> ExperimentLoader.parse("name: t\ncluster: { file: " + template
        + " }\nprotocols: [gentlerain, causalspartanx]\nduration: 1s\nsweep: { cluster.params.heartbeat: [5ms, 0s] }\n",
        "x.yaml", null, INSTALLED));
    assertTrue(e.getMessage().startsWith("x.yaml:5:42: sweep.cluster.params.heartbeat[1]: protocol gentlerain refuses"
        + " heartbeat '0s': '0s' must be more than 0. Fix: write e.g. 10ms"), e.getMessage());
  }

  private static Run kvlab(String... args) {
    return InProcessCli.run(args);
  }

  @Test
  void when_localUpOrBenchGetARefusedValue_then_theyExitWithUsageBeforeStartingAnything() throws Exception {
    Path file = dir.resolve("camu.yaml");
    Files.writeString(file, "name: pp-refused\nprotocol: camu\nparams:\n  mode: fast\ndatacenters: 1\npartitions: 2\n"
        + "local: { basePort: 7100 }\n");
    Run up = kvlab("local", "up", file.toString());
    assertEquals(Main.USAGE, up.code(), up.out() + up.err());
    assertTrue(up.err().contains(file + ":4:9: params.mode: 'fast' is not one of pb, tom, camu. Fix: use pb, tom or"
        + " camu"), up.err());
    assertFalse(Files.exists(Path.of(".kvlab/local/pp-refused")), "no cluster state: nothing was started");

    Path experiment = dir.resolve("x.yaml");
    Files.writeString(experiment, "name: pp-refused\ncluster: { datacenters: 1, partitions: 2, storage: memory }\n"
        + "protocols: [camu]\nduration: 1s\nsweep: { cluster.params.mode: [pb, tom, fast] }\n");
    Path results = dir.resolve("results");
    Run bench = kvlab("bench", experiment.toString(), "--output", results.toString());
    assertEquals(Main.USAGE, bench.code(), bench.out() + bench.err());
    assertTrue(bench.err().contains(experiment + ":5:41: sweep.cluster.params.mode[2]: protocol camu refuses mode"
        + " 'fast': 'fast' is not one of pb, tom, camu. Fix: use pb, tom or camu"), bench.err());
    assertFalse(Files.exists(results), "no results: no run started");
    assertFalse(Files.exists(Path.of(".kvlab/local/bench-pp-refused")), "no bench cluster was started");
    Run sim = kvlab("sim", "--protocol", "camu", "--param", "mode=tmo", "--datacenters", "1", "--partitions", "2",
        "--seeds", "1");
    assertEquals(Main.USAGE, sim.code(), sim.out() + sim.err());
    assertTrue(sim.err().contains("--param mode: 'tmo' is not one of pb, tom, camu. Fix: did you mean 'tom'? Use pb,"
        + " tom or camu"), sim.err());
    assertFalse(sim.out().contains("SEED"), "no seed was simulated: " + sim.out());
  }
}
