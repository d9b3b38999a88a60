package org.kvlab.protocols.causalspartanx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvlab.api.Session;
import org.kvlab.config.ClusterConfig;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.testing.TestClusters;

/** Smoke test on a real loopback cluster of 2 datacenters x 3 partitions: put, get, readOnlyTx round trip. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CausalSpartanXClusterTest {
  @Test
  void when_writtenInOneDatacenter_then_readableThereAndByRotxInTheOther() throws Exception {
    ClusterConfig config = TestClusters.loopback("causalspartanx", 2, 3, TestClusters.memory());
    try (LocalCluster cluster = LocalCluster.start(config, new CausalSpartanX());
         ClientRuntime clients = new ClientRuntime(config, new CausalSpartanX(), 2)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)));
      ByteString a = ByteString.copyFromUtf8("va");
      ByteString b = ByteString.copyFromUtf8("vb");
      try (Session s0 = clients.openSession(0); Session s1 = clients.openSession(1)) {
        s0.put("a", a);
        s0.put("b", b);
        assertEquals(Optional.of(a), s0.get("a"), "local writes are immediately visible");
        assertEquals(Map.of("a", Optional.of(a), "b", Optional.of(b)), s0.readOnlyTx(List.of("a", "b")));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Map<String, Optional<ByteString>> seen = s1.readOnlyTx(List.of("a", "b"));
        while (!seen.get("b").isPresent() && System.nanoTime() < deadline) {
          Thread.sleep(20);
          seen = s1.readOnlyTx(List.of("a", "b"));
        }
        assertEquals(Optional.of(b), seen.get("b"), "b replicates and becomes stable in datacenter 1");
        assertEquals(Optional.of(a), seen.get("a"), "a snapshot with b includes a (b depends on a)");
        assertEquals(Optional.of(b), s1.get("b"));
      }
    }
  }
}
