package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.NodeId;
import org.kvlab.api.OperationException;
import org.kvlab.api.Session;
import org.kvlab.api.TxnRequest;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.ControlClient;
import org.kvlab.testing.TestClusters;
import org.kvlab.wire.Status;

/**
 * Goal: CaMu's crash recovery on the real runtime (docs/protocols.md#camu-crash-recovery): a partition killed with
 * SIGKILL and restarted on its data directory (JE, durability sync) keeps every transaction it acknowledged, and the
 * cluster orders and executes transactions again, including ones that touch the restarted partition.
 * Method: CaMu (mode camu) on 1 datacenter x 3 partitions, link 0-1 PB and the others TOM, each server in its own
 * JVM; three sessions run 2-key write transactions on unique keys; server 0_1 is SIGKILLed, the writers stop, 0_1
 * is restarted and must report that it resumed from its saved state (metric camu.recovered); every acknowledged
 * write must read back, and 30 new transactions (over every pair of partitions) must complete and read back.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class CamuCrashRecoveryTest {
  private final List<Process> processes = new ArrayList<>();

  @AfterEach
  void stopAll() {
    processes.forEach(Process::destroyForcibly);
  }

  @Test
  void when_aPartitionIsKilledAndRestarted_then_acknowledgedTransactionsSurviveAndOrderingResumes(@TempDir Path dir)
      throws Exception {
    Path file = writeClusterFile(dir);
    ClusterConfig config = ClusterConfig.load(file);
    NodeId victim = new NodeId(0, 1);
    Process victimProcess = null;
    for (int p = 0; p < 3; p++) {
      Process started = startServer(file, new NodeId(0, p), dir);
      if (p == 1) {
        victimProcess = started;
      }
    }
    awaitConnected(config, Duration.ofSeconds(90));

    Map<String, String> acknowledged = new ConcurrentHashMap<>();
    try (ClientRuntime clients = new ClientRuntime(config, Clusters.protocol(config), 2)) {
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        int writer = w;
        Session s = clients.openSession(0, Duration.ofSeconds(5));
        assertTrue(s.supportsTransactions());
        Thread t = new Thread(() -> {
          for (int i = 0; !stop.get(); i++) {
            String a = "w" + writer + "-" + i + "-a";
            String b = "w" + writer + "-" + i + "-b";
            String v = "v" + writer + "." + i;
            try {
              s.transact(TxnRequest.of(List.of(), Map.of(a, ByteString.copyFromUtf8(v), b,
                  ByteString.copyFromUtf8(v))));
              acknowledged.put(a, v);
              acknowledged.put(b, v);
            } catch (OperationException e) {
              return; // a partition died under us: this transaction was not acknowledged (its outcome is unknown)
            }
          }
        });
        t.start();
        writers.add(t);
      }
      awaitSize(acknowledged, 200);
      victimProcess.destroyForcibly(); // SIGKILL
      assertTrue(victimProcess.waitFor(30, TimeUnit.SECONDS));
      stop.set(true);
      for (Thread t : writers) {
        t.join(30_000);
      }
      int ackedBeforeCrash = acknowledged.size();

      startServer(file, victim, dir);
      awaitConnected(config, Duration.ofSeconds(90));
      Status restarted = ControlClient.status(config, config.server(victim), Duration.ofSeconds(5));
      assertEquals(1L, restarted.getOperationsOrDefault("camu.recovered", 0L),
          "the restarted partition must resume from its saved ordering state: " + restarted.getOperationsMap());
      Session check = clients.openSession(0, Duration.ofSeconds(20));
      List<String> lost = new ArrayList<>();
      for (Map.Entry<String, String> e : acknowledged.entrySet()) {
        Optional<ByteString> v = check.get(e.getKey());
        if (v.isEmpty() || !v.get().toStringUtf8().equals(e.getValue())) {
          lost.add(e.getKey());
        }
      }
      assertEquals(List.of(), lost, "acknowledged transactions lost (of " + ackedBeforeCrash / 2 + ")");

      // ordering resumes: transactions over every pair of partitions, the restarted one included
      Map<Integer, List<String>> byPartition = new java.util.TreeMap<>();
      for (int i = 0; byPartition.size() < 3 || byPartition.values().stream().anyMatch(l -> l.size() < 10); i++) {
        String k = "after-" + i;
        byPartition.computeIfAbsent(config.topology().partitionOf(k), x -> new ArrayList<>()).add(k);
      }
      int done = 0;
      for (int i = 0; i < 10; i++) {
        for (int[] pair : new int[][] {{0, 1}, {1, 2}, {0, 2}}) {
          String a = byPartition.get(pair[0]).get(i);
          String b = byPartition.get(pair[1]).get(i);
          check.transact(TxnRequest.of(List.of(), Map.of(a, ByteString.copyFromUtf8("x" + i), b,
              ByteString.copyFromUtf8("x" + i))));
          assertEquals(Optional.of("x" + i), check.get(a).map(ByteString::toStringUtf8), a);
          assertEquals(Optional.of("x" + i), check.get(b).map(ByteString::toStringUtf8), b);
          done++;
        }
      }
      assertEquals(30, done);
    }
    for (ServerSpec s : config.servers()) {
      assertTrue(ControlClient.shutdown(config, s, Duration.ofSeconds(5)));
    }
    for (Process p : processes) {
      if (p.isAlive()) {
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "server did not stop after a shutdown request");
      }
    }
  }

  private static void awaitSize(Map<?, ?> map, int size) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (map.size() < size) {
      assertTrue(System.nanoTime() < deadline, "transactions did not get going: " + map.size() / 2 + " of "
          + size / 2);
      Thread.sleep(10);
    }
  }

  /** CaMu, 1 datacenter x 3 partitions on free loopback ports, JE storage, durability sync. */
  private static Path writeClusterFile(Path dir) throws IOException {
    int base = TestClusters.freeBasePort(3);
    Path file = dir.resolve("camu-crash.yaml");
    Files.writeString(file, """
        name: camu-crash
        protocol: camu
        datacenters: 1
        partitions: 3
        params: { mode: camu, round: 5ms, pbLinks: "0-1" }
        servers:
          - { id: 0_0, host: 127.0.0.1, port: %d }
          - { id: 0_1, host: 127.0.0.1, port: %d }
          - { id: 0_2, host: 127.0.0.1, port: %d }
        storage:
          engine: je
          durability: sync
          dir: %s
        security:
          secretFile: %s
        """.formatted(base, base + 1, base + 2, dir.resolve("data"), dir.resolve("secret")));
    org.kvlab.config.ClusterSecret.loadOrCreate(dir.resolve("secret")); // what ./kvlab local up does
    return file;
  }

  private Process startServer(Path file, NodeId id, Path dir) throws IOException {
    Process p = ServerProcesses.start(file, id, dir);
    processes.add(p);
    return p;
  }

  private static void awaitConnected(ClusterConfig config, Duration timeout) throws InterruptedException {
    ServerProcesses.awaitConnected(config, timeout);
  }
}
