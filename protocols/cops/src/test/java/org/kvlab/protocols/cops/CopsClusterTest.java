package org.kvlab.protocols.cops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.NodeId;
import org.kvlab.api.Session;
import org.kvlab.config.ClusterConfig;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.runtime.Node;
import org.kvlab.store.Durability;
import org.kvlab.testing.ConcurrentWrites;
import org.kvlab.testing.PreKitStores;
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
      org.kvlab.history.History history = ConcurrentWrites.writeAndAwaitConvergence(clients);
      // The recorded real-run history passes the checkers COPS (causal too) promises to pass.
      org.kvlab.check.Result convergence = new org.kvlab.check.ConvergenceChecker().check(history);
      assertTrue(convergence.valid(), convergence.toString());
      org.kvlab.check.Result session = new org.kvlab.check.SessionChecker().check(history);
      assertTrue(session.valid(), session.toString());
      org.kvlab.check.Result causal = new org.kvlab.check.CausalChecker().check(history);
      assertTrue(causal.valid(), causal.toString());
    }
  }

  /** A store written before the protocol kit (state under a reserved key) is refused, naming the fix. */
  @Test
  void when_theStoreHoldsThePreKitStateKey_then_theServerRefusesToStart(@TempDir Path dir) throws Exception {
    Throwable why = PreKitStores.haltOnStoreWith(dir, new Cops(), Cops.RECORD, CopsServer.OLD_KEYS + "clock",
        Record.newBuilder().setVer(1).setState(4).build());
    assertTrue(why.getMessage().contains("before the protocol kit") && why.getMessage().contains("Fix: start on a fresh"
        + " store"), why.getMessage());
  }

  /**
   * Goal: a replicated version that waits for its dependency survives its server's restart (its Replication slot).
   * Method: 2 x 2 on JE with durability sync. 1_0 is stopped; a session in datacenter 0 writes k0 (partition 0), then
   * k1 (partition 1, depending on k0). 1_1 receives k1 and asks 1_0 for k0 in vain (a retried call); 1_1 is
   * restarted (the channel delivered k1 already: only the slot keeps it), then 1_0; k1 must become readable at 1_1.
   */
  @Test
  void when_aServerRestartsWhileAVersionWaitsForItsDependency_then_theVersionIsAppliedAfterwards(@TempDir Path dir)
      throws Exception {
    ClusterConfig config = TestClusters.loopback("cops", 2, 2, TestClusters.je(dir, Durability.SYNC));
    NodeId n10 = NodeId.of(1, 0);
    NodeId n11 = NodeId.of(1, 1);
    String k0 = keyOn(config, 0);
    String k1 = keyOn(config, 1);
    List<Node> restarted = new ArrayList<>();
    try (LocalCluster cluster = LocalCluster.start(config, new Cops());
         ClientRuntime clients = new ClientRuntime(config, new Cops(), 2)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)));
      cluster.node(n10).close();
      Session dc0 = clients.openSession(0);
      dc0.put(k0, ByteString.copyFromUtf8("v0"));
      dc0.put(k1, ByteString.copyFromUtf8("v1"));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (cluster.node(n11).metrics().counters().getOrDefault("kit.callRetries", 0L) == 0) {
        assertTrue(System.nanoTime() < deadline, "1_1 never asked 1_0 again for k1's dependency");
        Thread.sleep(50);
      }
      cluster.node(n11).close();
      restarted.add(Node.start(config, n11, new Cops()));
      restarted.add(Node.start(config, n10, new Cops()));
      Session dc1 = clients.openSession(1, Duration.ofSeconds(60));
      Optional<ByteString> seen = dc1.get(k1);
      long applyDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (seen.isEmpty() && System.nanoTime() < applyDeadline) {
        Thread.sleep(50);
        seen = dc1.get(k1);
      }
      assertEquals(Optional.of(ByteString.copyFromUtf8("v1")), seen, "k1 waited in 1_1's slot across its restart");
      assertEquals(Optional.of(ByteString.copyFromUtf8("v0")), dc1.get(k0), "k1's dependency is visible with it");
    } finally {
      restarted.forEach(Node::close);
    }
  }

  private static String keyOn(ClusterConfig config, int partition) {
    for (int i = 0; ; i++) {
      if (config.topology().serverFor("k" + i, 0).partition() == partition) {
        return "k" + i;
      }
    }
  }
}
