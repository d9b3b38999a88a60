package org.kvlab.protocols.cops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.Session;
import org.kvlab.config.ClusterConfig;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.store.Durability;
import org.kvlab.testing.TestClusters;

/**
 * COPS on a real loopback cluster of 2 datacenters x 3 partitions.
 * Goal: after writes stop, every replica returns the same value for every key (convergence), and that
 * value is one that was written (last writer wins, nothing invented).
 * Method: sessions in both datacenters write overlapping keys concurrently; then the test reads every
 * key in both datacenters until they agree, within a bounded time.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CopsClusterTest {

  @Test
  void when_writesStopAfterConcurrentWritesInBothDatacenters_then_allReplicasConverge(@TempDir Path dir) throws Exception {
    ClusterConfig config = TestClusters.loopback("cops", 2, 3, TestClusters.je(dir, Durability.NONE));
    try (LocalCluster cluster = LocalCluster.start(config, new Cops());
         ClientRuntime clients = new ClientRuntime(config, new Cops(), 2)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)));
      org.kvlab.history.History.Recorder recorder = new org.kvlab.history.History.Recorder();
      clients.recordHistory(recorder); // the same history format as the simulator's
      int keys = 200;
      Map<String, List<String>> written = new HashMap<>();
      List<CompletableFuture<Void>> writers = new ArrayList<>();
      List<Session> sessions = new ArrayList<>();
      for (int s = 0; s < 8; s++) {
        int dc = s % 2;
        Session session = clients.openSession(dc);
        sessions.add(session);
        Random random = new Random(s);
        List<String[]> plan = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
          String key = "key" + random.nextInt(keys);
          String value = "s" + s + "-" + i + "@dc" + dc;
          plan.add(new String[] {key, value});
          synchronized (written) {
            written.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
          }
        }
        writers.add(CompletableFuture.runAsync(() -> {
          for (String[] kv : plan) {
            session.put(kv[0], ByteString.copyFromUtf8(kv[1]));
          }
        }));
      }
      CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

      Session dc0 = clients.openSession(0);
      Session dc1 = clients.openSession(1);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      List<String> diverged = new ArrayList<>(written.keySet());
      while (!diverged.isEmpty() && System.nanoTime() < deadline) {
        List<String> still = new ArrayList<>();
        for (String key : diverged) {
          if (!dc0.get(key).equals(dc1.get(key))) {
            still.add(key);
          }
        }
        diverged = still;
        if (!diverged.isEmpty()) {
          Thread.sleep(50);
        }
      }
      assertEquals(List.of(), diverged, "keys whose replicas still disagree after writes stopped");
      for (Map.Entry<String, List<String>> e : written.entrySet()) {
        Optional<ByteString> v = dc0.get(e.getKey());
        assertTrue(v.isPresent() && e.getValue().contains(v.get().toStringUtf8()),
            e.getKey() + " holds " + v + ", which nobody wrote");
      }
      // The recorded real-run history passes the checkers COPS promises to pass (causal too).
      org.kvlab.history.History history = recorder.build();
      assertTrue(history.size() >= 4000 + written.size(), "history records every operation: " + history.size());
      org.kvlab.check.Result convergence = new org.kvlab.check.ConvergenceChecker().check(history);
      assertTrue(convergence.valid(), convergence.toString());
      org.kvlab.check.Result session = new org.kvlab.check.SessionChecker().check(history);
      assertTrue(session.valid(), session.toString());
      org.kvlab.check.Result causal = new org.kvlab.check.CausalChecker().check(history);
      assertTrue(causal.valid(), causal.toString());
    }
  }
}
