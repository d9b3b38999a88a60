package org.kvlab.cli;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import org.kvlab.api.Session;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.runtime.LoopbackPorts;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The main job: a YCSB benchmark (about 30 s per protocol) of Eventual against every causal protocol installed, on a local
 * 2-datacenter x 3-partition cluster, with a table and an HTML report, then NuKV at MR+RYW / MW+WFR on 3-replica Raft
 * groups (its own cluster shape, a second report) if it is installed ({@code --tour}: the older guided tour,
 * which writes and reads by hand in both datacenters and shows replication).
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {"Benchmark Eventual against every causal protocol installed (about 30 s per protocol): for each, start a "
        + "local 2-datacenter x 3-partition cluster (all servers in one JVM), load it and run YCSB 50/50 from one client "
        + "JVM per datacenter, then print a table and the report's path; then NuKV (per-operation session guarantees) "
        + "on 3-replica Raft groups in 2 datacenters, reads at MR+RYW and writes at MW+WFR, in a second report.",
        "--tour instead writes and reads by hand in both datacenters of one Eventual cluster and shows replication.",
        "--consensus instead runs M²Paxos, Multi-Paxos and EPaxos side by side in the simulator (under a minute): peak"
            + " throughput at 3, 5 and 7 replicas, a table and one chart."})
final class DemoCommand implements Callable<Integer> {
  static final String EXPERIMENT = "demo.yaml";
  static final String NUKV_EXPERIMENT = "demo-nukv.yaml";
  static final String NUKV_CLUSTER = "demo-nukv-cluster.yaml";

  @Option(names = "--tour", description = "the guided tour instead of the benchmark")
  boolean tour;

  @Option(names = "--consensus", description = "M²Paxos, Multi-Paxos and EPaxos side by side in the simulator instead")
  boolean consensus;

  @Option(names = "--print-experiment", description = "print the demo's experiment file (to copy and change) and exit")
  boolean printExperiment;

  @Option(names = "--output", defaultValue = "results", description = "where results go (default: ${DEFAULT-VALUE})")
  Path output;

  @Option(names = "--seconds", hidden = true, description = "measured seconds per protocol, with 1 s of warm-up (tests)")
  Integer seconds;

  @Option(names = "--cluster", defaultValue = "examples/eventual-2dc-3p.yaml", description = "cluster file (default: ${DEFAULT-VALUE})")
  Path file;

  @Option(names = "--operations", defaultValue = "20000", description = "operations in the latency run (default: ${DEFAULT-VALUE})")
  int operations;

  @Override
  public Integer call() throws Exception {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"); // the demo prints its own story
    }
    if (printExperiment) {
      System.out.print(experimentText());
      if (nukvInstalled()) {
        System.out.println("\n# ---- and then, in a second experiment:\n");
        System.out.print(resource(NUKV_EXPERIMENT));
      }
      return Main.OK;
    }
    if (consensus) {
      return ConsensusDemo.run(output);
    }
    return tour ? tour() : benchmark();
  }

  /** The demo experiment, with eventual first and then every other installed protocol. */
  static String experimentText() throws IOException {
    return resource(EXPERIMENT).replace("protocols: [eventual]", "protocols: [" + String.join(", ", protocols()) + "]");
  }

  /** The demo's NuKV experiment, its cluster template written to {@code clusterFile}. */
  static String nukvExperimentText(Path clusterFile) throws IOException {
    Files.writeString(clusterFile, resource(NUKV_CLUSTER));
    return resource(NUKV_EXPERIMENT).replace("file: CLUSTER_FILE", "file: \"" + clusterFile.toAbsolutePath() + "\"");
  }

  static boolean nukvInstalled() {
    return org.kvlab.api.Protocols.all().stream().anyMatch(p -> p.name().equals("nukv"));
  }

  private static String resource(String name) throws IOException {
    try (java.io.InputStream in = DemoCommand.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(name + " is missing from the kvlab jar (a broken build: rebuild with KVLAB_BUILD=always ./kvlab demo)");
      }
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  private static String shorten(String text, Integer seconds) {
    return seconds == null ? text : text.replace("duration: 10s", "duration: " + seconds + "s")
        .replace("warmup: 3s", "warmup: 1s").replace("recordcount: 2000", "recordcount: 200");
  }

  /** Eventual, then every installed protocol whose summary ({@code ./kvlab protocols}) says it is causal. */
  static List<String> protocols() {
    List<String> names = new ArrayList<>(List.of("eventual"));
    org.kvlab.api.Protocols.all().stream()
        .filter(p -> !p.name().equals("eventual") && p.summary().toLowerCase(java.util.Locale.ROOT).contains("causal"))
        .map(org.kvlab.api.Protocol::name).sorted().forEach(names::add);
    return names;
  }

  private int benchmark() throws Exception {
    List<String> installed = org.kvlab.api.Protocols.all().stream().map(org.kvlab.api.Protocol::name).toList();
    String text = shorten(experimentText(), seconds);
    org.kvlab.experiment.Experiment experiment = org.kvlab.experiment.ExperimentLoader.parse(text,
        EXPERIMENT + " (built in; ./kvlab demo --print-experiment)", null, installed);
    System.out.printf("kvlab demo: %s on a local 2-datacenter x 3-partition cluster each (all servers in one JVM), "
        + "YCSB 50/50 read/update, 64-byte values, zipfian keys, 1 client JVM x 30 threads per datacenter (as DKVF's YCSB clients), "
        + "%d s measured after %d s of warm-up%n%n", String.join(", ", protocols()), experiment.duration().toSeconds(),
        experiment.warmup().toSeconds());
    BenchCommand.Outcome outcome = BenchCommand.execute(experiment, org.kvlab.experiment.ExperimentRunner.Options
        .defaults().withOutputRoot(output).withCommand("./kvlab demo"));
    org.kvlab.experiment.Results.RunResult base = outcome.result().runs().stream()
        .filter(r -> r.protocol().equals("eventual") && r.ok()).findFirst().orElse(null);
    if (base != null && base.throughput() > 0) {
      System.out.println();
      for (org.kvlab.experiment.Results.RunResult r : outcome.result().runs()) {
        if (r.ok() && r != base) {
          System.out.printf(java.util.Locale.ROOT, "%s: %.2fx the throughput of eventual%n", r.protocol(),
              r.throughput() / base.throughput());
        }
      }
    }
    int code = outcome.exitCode();
    if (nukvInstalled() && code == Main.OK) {
      code = nukv(installed);
    }
    System.out.println("\nNext: open the report above; ./kvlab demo --tour for replication by hand; ./kvlab bench "
        + "experiments/dkvf-fig-8.4.yaml for the full GET:PUT sweep (docs/bench.md)");
    return code;
  }

  /** NuKV (session guarantees per operation over Raft groups) on its own cluster shape: 2 datacenters x 3 replicas. */
  private int nukv(List<String> installed) throws Exception {
    Path template = Files.createTempFile("kvlab-demo-nukv", ".yaml");
    try {
      String text = shorten(nukvExperimentText(template), seconds);
      org.kvlab.experiment.Experiment experiment = org.kvlab.experiment.ExperimentLoader.parse(text,
          NUKV_EXPERIMENT + " (built in; ./kvlab demo --print-experiment)", null, installed);
      System.out.printf("%nkvlab demo, NuKV: per-key session guarantees over Raft (seed 003 ch. 4) on a local 2-datacenter"
          + " x 1-partition cluster whose partition is a 3-replica Raft group in each datacenter (six servers, one JVM),"
          + " YCSB 50/50 with every read at MR+RYW and every write at MW+WFR, %d s measured after %d s of warm-up%n%n",
          experiment.duration().toSeconds(), experiment.warmup().toSeconds());
      return BenchCommand.execute(experiment, org.kvlab.experiment.ExperimentRunner.Options.defaults()
          .withOutputRoot(output).withCommand("./kvlab demo")).exitCode();
    } finally {
      Files.deleteIfExists(template);
    }
  }

  private int tour() throws Exception {
    ClusterConfig config = Clusters.load(file);
    Path data = Files.createTempDirectory("kvlab-demo");
    config = config.withStorage(new ClusterConfig.StorageSpec(config.storage().engine(), config.storage().durability(), data));
    config = freePorts(config);
    long t0 = System.nanoTime();
    System.out.printf("kvlab demo: cluster %s, protocol %s, %d datacenters x %d partitions, storage %s (%s)%n",
        config.name(), config.protocol(), config.topology().datacenters(), config.topology().partitions(),
        config.storage().engine().name().toLowerCase(), data);
    try (LocalCluster cluster = LocalCluster.start(config, Clusters.protocol(config));
         ClientRuntime clients = new ClientRuntime(config, cluster.protocol(), 2)) {
      if (!cluster.awaitConnected(Duration.ofSeconds(60))) {
        throw new Main.CliException(Main.FAILED, "servers did not connect to each other within 60 s");
      }
      System.out.printf("%d servers up on %s (one JVM), all channels connected, in %.0f ms%n%n",
          config.servers().size(), addresses(config), (System.nanoTime() - t0) / 1e6);
      int dcs = config.topology().datacenters();
      List<Session> sessions = new ArrayList<>();
      for (int dc = 0; dc < dcs; dc++) {
        sessions.add(clients.openSession(dc));
      }

      System.out.println("1. Writes in each datacenter, read back where they were written and in the other one:");
      for (int dc = 0; dc < dcs; dc++) {
        for (int i = 0; i < 3; i++) {
          String key = "user:" + dc + i;
          String value = "profile-" + i + "@dc" + dc;
          long s = System.nanoTime();
          sessions.get(dc).put(key, ByteString.copyFromUtf8(value));
          double putMs = (System.nanoTime() - s) / 1e6;
          s = System.nanoTime();
          Optional<ByteString> local = sessions.get(dc).get(key);
          double getMs = (System.nanoTime() - s) / 1e6;
          int other = (dc + 1) % dcs;
          long r = System.nanoTime();
          Optional<ByteString> remote = awaitValue(sessions.get(other), key, value);
          System.out.printf("   dc%d put %-8s = %-18s %6.2f ms | dc%d get %6.2f ms -> %s | dc%d sees it after %6.2f ms (partition %d)%n",
              dc, key, "\"" + value + "\"", putMs, dc, getMs, ShellCommand.show(local.orElseThrow()), other,
              (System.nanoTime() - r) / 1e6, config.topology().partitionOf(key));
          if (remote.isEmpty()) {
            throw new Main.CliException(Main.FAILED, "write of " + key + " did not replicate to dc" + other);
          }
        }
      }

      if (dcs > 1) {
        System.out.println("\n2. Concurrent writes of one key in two datacenters: last writer wins everywhere.");
        sessions.get(0).put("photo", ByteString.copyFromUtf8("beach.jpg (dc0)"));
        sessions.get(1).put("photo", ByteString.copyFromUtf8("party.jpg (dc1)"));
        Thread.sleep(50);
        for (int dc = 0; dc < dcs; dc++) {
          System.out.printf("   dc%d reads photo = %s%n", dc, ShellCommand.show(sessions.get(dc).get("photo").orElseThrow()));
        }
      }

      System.out.printf("%n3. Latency: %d operations (50%% get, 50%% put, 100-byte values) from one session in dc0:%n", operations);
      Histogram get = new Histogram(3);
      Histogram put = new Histogram(3);
      ByteString payload = ByteString.copyFrom(new byte[100]);
      long runStart = System.nanoTime();
      for (int i = 0; i < operations; i++) {
        String key = "k" + (i % 1000);
        long s = System.nanoTime();
        if ((i & 1) == 0) {
          sessions.get(0).put(key, payload);
          put.recordValue((System.nanoTime() - s) / 1000);
        } else {
          sessions.get(0).get(key);
          get.recordValue((System.nanoTime() - s) / 1000);
        }
      }
      double secs = (System.nanoTime() - runStart) / 1e9;
      System.out.printf("   %-4s %8s %8s %8s %8s%n", "op", "count", "p50 ms", "p99 ms", "max ms");
      for (var e : List.of(java.util.Map.entry("get", get), java.util.Map.entry("put", put))) {
        Histogram h = e.getValue();
        System.out.printf("   %-4s %8d %8.3f %8.3f %8.3f%n", e.getKey(), h.getTotalCount(),
            h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0);
      }
      System.out.printf("   %.0f operations/s from one synchronous session%n", operations / secs);
      sessions.forEach(Session::close);
    }
    LocalCommand.deleteTree(data);
    System.out.println("\ncluster stopped cleanly. Next: ./kvlab local up examples/eventual-2dc-3p.yaml, then ./kvlab shell "
        + "examples/eventual-2dc-3p.yaml --dc 1");
    return Main.OK;
  }

  private static Optional<ByteString> awaitValue(Session s, String key, String value) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      Optional<ByteString> v = s.get(key);
      if (v.isPresent() && v.get().toStringUtf8().equals(value)) {
        return v;
      }
      Thread.sleep(0, 200_000);
    }
    return Optional.empty();
  }

  private static String addresses(ClusterConfig config) {
    ServerSpec first = config.servers().get(0);
    ServerSpec last = config.servers().get(config.servers().size() - 1);
    return first.host() + ":" + first.port() + "-" + last.port();
  }

  /**
   * Moves the cluster to free ports if its own are taken (e.g. by a running local cluster), and reserves them for
   * this JVM ({@link LoopbackPorts#reserve}: a demo run by another checkout at the same moment takes others).
   */
  private static ClusterConfig freePorts(ClusterConfig config) {
    for (int offset = 0; offset < 2000; offset += 100) {
      ClusterConfig c = config.withPortOffset(offset);
      if (LoopbackPorts.reserve(c.servers().stream().map(s -> new InetSocketAddress(s.host(), s.port())).toList())) {
        if (offset != 0) {
          System.out.println("(ports of " + config.source() + " are in use; the demo uses ports +" + offset + ")");
        }
        return c;
      }
    }
    throw new Main.CliException(Main.FAILED, "no free ports near those of " + config.source());
  }
}
