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
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.ControlClient;
import org.kvlab.testing.TestClusters;

/**
 * Goal: under durability sync, a server killed with SIGKILL and restarted keeps every write it
 * acknowledged, catches up on the writes its peer took while it was down, and still replicates every
 * write it acknowledged before the crash (its channel outbox is durable: docs/runtime.md, "Durability
 * of channels").
 * Method: an Eventual cluster of 2 datacenters x 1 partition, each server in its own JVM. Four sessions
 * write unique keys to datacenter 0 while the test kills server 0_0 with SIGKILL; datacenter 1 takes
 * writes while 0_0 is down; 0_0 is restarted on the same data directory; then every acknowledged
 * datacenter-0 write and every datacenter-1 write must be readable in datacenter 0, and every
 * acknowledged datacenter-0 write must become readable in datacenter 1.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CrashRecoveryTest {
  private final List<Process> processes = new ArrayList<>();

  @AfterEach
  void stopAll() {
    processes.forEach(Process::destroyForcibly);
  }

  @Test
  void when_serverIsKilledAndRestarted_then_acknowledgedWritesSurviveAndReplicationCatchesUp(@TempDir Path dir)
      throws Exception {
    Path file = writeClusterFile(dir, "crash-test");
    ClusterConfig config = ClusterConfig.load(file);
    NodeId victim = new NodeId(0, 0);
    Process p00 = startServer(file, victim, dir);
    startServer(file, new NodeId(1, 0), dir);
    awaitConnected(config, Duration.ofSeconds(60));

    Map<String, String> acknowledged = new ConcurrentHashMap<>();
    Map<String, String> writtenInDc1 = new ConcurrentHashMap<>();
    try (ClientRuntime clients = new ClientRuntime(config, Clusters.protocol(config), 2)) {
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> writers = startWriters(clients, acknowledged, stop);
      awaitSize(acknowledged, 200);
      p00.destroyForcibly(); // SIGKILL
      p00.waitFor(30, TimeUnit.SECONDS);
      stop.set(true);
      for (Thread t : writers) {
        t.join(20_000);
      }
      int ackedBeforeCrash = acknowledged.size();
      assertTrue(ackedBeforeCrash >= 200);

      Session dc1 = clients.openSession(1);
      for (int i = 0; i < 100; i++) {
        dc1.put("dc1-" + i, ByteString.copyFromUtf8("w" + i));
        writtenInDc1.put("dc1-" + i, "w" + i);
      }

      startServer(file, victim, dir);
      awaitConnected(config, Duration.ofSeconds(60));
      Session dc0 = clients.openSession(0);
      List<String> lost = new ArrayList<>();
      for (Map.Entry<String, String> e : acknowledged.entrySet()) {
        Optional<ByteString> v = dc0.get(e.getKey());
        if (v.isEmpty() || !v.get().toStringUtf8().equals(e.getValue())) {
          lost.add(e.getKey());
        }
      }
      assertEquals(List.of(), lost, "acknowledged writes lost by the SIGKILLed server (of " + ackedBeforeCrash + ")");

      assertEquals(List.of(), awaitReadable(dc0, writtenInDc1, Duration.ofSeconds(30)),
          "writes taken by dc1 while 0_0 was down never reached it");

      // Replication of acknowledged writes is not lost: the messages 0_0 had queued for 1_0 when it was
      // killed were in its durable outbox, and the restarted 0_0 resends them.
      List<String> notReplicated = awaitReadable(clients.openSession(1), acknowledged, Duration.ofSeconds(30));
      assertEquals(List.of(), notReplicated, notReplicated.size() + " of the " + ackedBeforeCrash
          + " writes acknowledged by 0_0 before the crash never reached dc1");
    }
    for (ServerSpec s : config.servers()) {
      assertTrue(ControlClient.shutdown(config, s, Duration.ofSeconds(5)));
    }
    for (Process p : processes) {
      assertTrue(p.waitFor(30, TimeUnit.SECONDS), "server did not stop after a shutdown request");
    }
  }

  /**
   * Goal: replication of acknowledged writes survives a SIGKILL even when the peer is down, so that the
   * replication messages cannot have left the server before the crash.
   * Method: as above, but 1_0 is SIGKILLed first; datacenter 0 keeps taking writes, whose replication
   * messages queue up in 0_0's outbox; then 0_0 is SIGKILLed too; both restart; every write 0_0
   * acknowledged must become readable in datacenter 1 (and stay readable in datacenter 0).
   */
  @Test
  void when_serverIsKilledWhileItsPeerIsDown_then_replicationOfItsAcknowledgedWritesIsNotLost(@TempDir Path dir)
      throws Exception {
    Path file = writeClusterFile(dir, "crash-test-2");
    ClusterConfig config = ClusterConfig.load(file);
    NodeId n00 = new NodeId(0, 0);
    NodeId n10 = new NodeId(1, 0);
    Process p00 = startServer(file, n00, dir);
    Process p10 = startServer(file, n10, dir);
    awaitConnected(config, Duration.ofSeconds(60));

    Map<String, String> acknowledged = new ConcurrentHashMap<>();
    try (ClientRuntime clients = new ClientRuntime(config, Clusters.protocol(config), 2)) {
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> writers = startWriters(clients, acknowledged, stop);
      awaitSize(acknowledged, 200);
      p10.destroyForcibly(); // SIGKILL the peer first
      assertTrue(p10.waitFor(30, TimeUnit.SECONDS));
      awaitSize(acknowledged, acknowledged.size() + 300);
      ServerSpec s00 = config.server(n00);
      long queued = ControlClient.status(config, s00, Duration.ofSeconds(5)).getPeers(0).getQueued();
      assertTrue(queued >= 300, "0_0 should hold the replication of the writes taken while 1_0 is down, holds " + queued);
      p00.destroyForcibly(); // SIGKILL
      assertTrue(p00.waitFor(30, TimeUnit.SECONDS));
      stop.set(true);
      for (Thread t : writers) {
        t.join(20_000);
      }
      int ackedBeforeCrash = acknowledged.size();

      startServer(file, n10, dir);
      startServer(file, n00, dir);
      awaitConnected(config, Duration.ofSeconds(60));
      List<String> notReplicated = awaitReadable(clients.openSession(1), acknowledged, Duration.ofSeconds(30));
      assertEquals(List.of(), notReplicated, notReplicated.size() + " of the " + ackedBeforeCrash
          + " writes acknowledged by 0_0 never reached dc1");
      assertEquals(List.of(), awaitReadable(clients.openSession(0), acknowledged, Duration.ofSeconds(5)),
          "acknowledged writes lost by the SIGKILLed server");
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
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (map.size() < size) {
      assertTrue(System.nanoTime() < deadline, "writes did not get going: " + map.size() + " of " + size);
      Thread.sleep(10);
    }
  }

  /** Waits until every key of {@code expected} reads its value through {@code s}; returns the keys that never did. */
  private static List<String> awaitReadable(Session s, Map<String, String> expected, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<String> missing = new ArrayList<>(expected.keySet());
    while (!missing.isEmpty() && System.nanoTime() < deadline) {
      List<String> still = new ArrayList<>();
      for (String k : missing) {
        if (!s.get(k).map(ByteString::toStringUtf8).equals(Optional.of(expected.get(k)))) {
          still.add(k);
        }
      }
      missing = still;
      if (!missing.isEmpty()) {
        Thread.sleep(50);
      }
    }
    return missing;
  }

  /** Four sessions in datacenter 0 writing unique keys until {@code stop}; acknowledged writes are recorded. */
  private static List<Thread> startWriters(ClientRuntime clients, Map<String, String> acknowledged, AtomicBoolean stop) {
    List<Thread> writers = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      int writer = w;
      // a put to the killed server fails at once (its connection closes); the timeout only has to outlast load
      Session s = clients.openSession(0, Duration.ofSeconds(30));
      Thread t = new Thread(() -> {
        for (int i = 0; !stop.get(); i++) {
          String key = "dc0-w" + writer + "-" + i;
          try {
            s.put(key, ByteString.copyFromUtf8("v" + i));
            acknowledged.put(key, "v" + i);
          } catch (OperationException e) {
            return; // the server died under us: this write was not acknowledged
          }
        }
      });
      t.start();
      writers.add(t);
    }
    return writers;
  }

  /** A 2-datacenter x 1-partition Eventual cluster on free loopback ports, JE storage, durability sync. */
  private static Path writeClusterFile(Path dir, String name) throws IOException {
    int base = TestClusters.freeBasePort(2);
    Path file = dir.resolve(name + ".yaml");
    Files.writeString(file, """
        name: %s
        protocol: eventual
        datacenters: 2
        partitions: 1
        servers:
          - { id: 0_0, host: 127.0.0.1, port: %d }
          - { id: 1_0, host: 127.0.0.1, port: %d }
        storage:
          engine: je
          durability: sync
          dir: %s
        security:
          secretFile: %s
        """.formatted(name, base, base + 1, dir.resolve("data"), dir.resolve("secret")));
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
