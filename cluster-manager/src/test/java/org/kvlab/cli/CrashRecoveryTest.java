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
import java.util.concurrent.CountDownLatch;
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
import org.kvlab.wire.Status;

/**
 * Goal: under durability sync, a server killed with SIGKILL and restarted keeps every write it
 * acknowledged, and catches up on the writes its peer took while it was down.
 * Method: an Eventual cluster of 2 datacenters x 1 partition, each server in its own JVM. Four sessions
 * write unique keys to datacenter 0 while the test kills server 0_0 with SIGKILL; datacenter 1 takes
 * writes while 0_0 is down; 0_0 is restarted on the same data directory; then every acknowledged
 * datacenter-0 write and every datacenter-1 write must be readable in datacenter 0.
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
    int base = TestClusters.freeBasePort(2);
    Path file = dir.resolve("crash.yaml");
    Files.writeString(file, """
        name: crash-test
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
        """.formatted(base, base + 1, dir.resolve("data")));
    ClusterConfig config = ClusterConfig.load(file);
    NodeId victim = new NodeId(0, 0);
    Process p00 = startServer(file, victim, dir);
    startServer(file, new NodeId(1, 0), dir);
    awaitConnected(config, Duration.ofSeconds(60));

    Map<String, String> acknowledged = new ConcurrentHashMap<>();
    Map<String, String> writtenInDc1 = new ConcurrentHashMap<>();
    try (ClientRuntime clients = new ClientRuntime(config, Clusters.protocol(config), 2)) {
      AtomicBoolean stop = new AtomicBoolean();
      CountDownLatch someWritesDone = new CountDownLatch(200);
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int writer = w;
        Session s = clients.openSession(0, Duration.ofSeconds(5));
        Thread t = new Thread(() -> {
          for (int i = 0; !stop.get(); i++) {
            String key = "dc0-w" + writer + "-" + i;
            String value = "v" + i;
            try {
              s.put(key, ByteString.copyFromUtf8(value));
              acknowledged.put(key, value);
              someWritesDone.countDown();
            } catch (OperationException e) {
              return; // the server died under us: this write was not acknowledged
            }
          }
        });
        t.start();
        writers.add(t);
      }
      assertTrue(someWritesDone.await(60, TimeUnit.SECONDS), "writes did not get going");
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

      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      List<String> missing = new ArrayList<>(writtenInDc1.keySet());
      while (!missing.isEmpty() && System.nanoTime() < deadline) {
        List<String> still = new ArrayList<>();
        for (String k : missing) {
          if (!dc0.get(k).map(ByteString::toStringUtf8).equals(Optional.of(writtenInDc1.get(k)))) {
            still.add(k);
          }
        }
        missing = still;
        Thread.sleep(50);
      }
      assertEquals(List.of(), missing, "writes taken by dc1 while 0_0 was down never reached it");
    }
    for (ServerSpec s : config.servers()) {
      assertTrue(ControlClient.shutdown(s.host(), s.port(), Duration.ofSeconds(5)));
    }
    for (Process p : processes) {
      assertTrue(p.waitFor(30, TimeUnit.SECONDS), "server did not stop after a shutdown request");
    }
  }

  private Process startServer(Path file, NodeId id, Path dir) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    Process p = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
        "org.kvlab.cli.Main", "server", "--config", file.toString(), "--node", id.toString())
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(id + ".log").toFile()))
        .start();
    processes.add(p);
    return p;
  }

  private static void awaitConnected(ClusterConfig config, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      boolean all = true;
      for (ServerSpec s : config.servers()) {
        try {
          Status st = ControlClient.status(s.host(), s.port(), Duration.ofSeconds(1));
          all &= st.getPeersConnected() == st.getPeersExpected();
        } catch (IOException e) {
          all = false;
        }
      }
      if (all) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("cluster did not come up within " + timeout);
  }
}
