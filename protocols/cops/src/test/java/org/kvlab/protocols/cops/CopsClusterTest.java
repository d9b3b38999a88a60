package org.kvlab.protocols.cops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.config.ClusterConfig;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.store.Durability;
import org.kvlab.testing.ConcurrentWrites;
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
}
