package org.kvlab.cli;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
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
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The guided tour: starts a 2-datacenter x 3-partition Eventual cluster in this JVM, writes and reads
 * in both datacenters, shows replication and latency, and stops cleanly.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Start a local 2-datacenter x 3-partition cluster, write and read in both datacenters, "
        + "show replication and per-operation latency, and stop.")
final class DemoCommand implements Callable<Integer> {
  @Option(names = "--cluster", defaultValue = "examples/eventual-2dc-3p.yaml", description = "cluster file (default: ${DEFAULT-VALUE})")
  Path file;

  @Option(names = "--operations", defaultValue = "20000", description = "operations in the latency run (default: ${DEFAULT-VALUE})")
  int operations;

  @Override
  public Integer call() throws Exception {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"); // the demo prints its own story
    }
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
      if (!cluster.awaitConnected(Duration.ofSeconds(30))) {
        throw new Main.CliException(Main.FAILED, "servers did not connect to each other within 30 s");
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
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
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

  /** Moves the cluster to free ports if its own are taken (e.g. by a running local cluster). */
  private static ClusterConfig freePorts(ClusterConfig config) {
    for (int offset = 0; offset < 2000; offset += 100) {
      ClusterConfig c = config.withPortOffset(offset);
      if (c.servers().stream().allMatch(DemoCommand::free)) {
        if (offset != 0) {
          System.out.println("(ports of " + config.source() + " are in use; the demo uses ports +" + offset + ")");
        }
        return c;
      }
    }
    throw new Main.CliException(Main.FAILED, "no free ports near those of " + config.source());
  }

  private static boolean free(ServerSpec s) {
    try (ServerSocket probe = new ServerSocket()) {
      probe.bind(new InetSocketAddress(s.host(), s.port()));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
