package org.kvlab.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvlab.api.Session;
import org.kvlab.config.ClusterConfig;
import org.kvlab.testing.CostKit;
import org.kvlab.testing.TestClusters;

/**
 * {@code ServerContext.offload} on the real runtime, on loopback: the computation runs on the node's worker thread,
 * its result comes back on the node's event loop, and the loop goes on serving requests while the computation runs;
 * {@code chargeMicros} is ignored (the CPU is real).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS) // stops a hang only
class OffloadRuntimeTest {
  private static final CostKit PROTOCOL = new CostKit();

  private static String read(Session s, String key) throws Exception {
    return s.get(key).orElseThrow(() -> new AssertionError(key + " not found")).toStringUtf8();
  }

  @Test
  void offloadedWork_runsOnTheWorker_comesBackOnTheLoop_andDoesNotPauseIt() throws Exception {
    ClusterConfig config = TestClusters.loopback("costkit", 1, 1, TestClusters.memory());
    CostKit.RELEASE = new CountDownLatch(1);
    try (LocalCluster cluster = LocalCluster.start(config, PROTOCOL);
         ClientRuntime client = new ClientRuntime(config, PROTOCOL, 2)) {
      Session a = client.openSession(0, Duration.ofSeconds(30));
      Session b = client.openSession(0, Duration.ofSeconds(30));
      String plain = read(a, "offload/21");
      assertTrue(plain.matches("kvlab-offload-0_0-\\d+-\\d+:42\\|kvlab-node-0_0-\\d+-\\d+"), plain);

      CompletableFuture<Optional<ByteString>> held = a.getAsync("offload-held/5"); // its computation waits
      assertEquals("0", read(b, "charge/1000"), "served while the computation is held (a charge costs nothing here)");
      assertEquals("1", read(b, "x"));
      assertFalse(held.isDone(), "the computation is still held");
      CostKit.RELEASE.countDown();
      String r = held.get(30, TimeUnit.SECONDS).orElseThrow().toStringUtf8();
      assertTrue(r.matches("kvlab-offload-0_0-.*:10\\|kvlab-node-0_0-.*"), r);
    } finally {
      CostKit.RELEASE.countDown();
    }
  }
}
