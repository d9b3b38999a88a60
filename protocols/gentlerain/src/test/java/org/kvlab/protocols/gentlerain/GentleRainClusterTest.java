package org.kvlab.protocols.gentlerain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

/** GentleRain on a real loopback cluster of 2 datacenters x 3 partitions: put, get and readOnlyTx round trips. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GentleRainClusterTest {

  @Test
  void when_sessionsWriteAndRead_then_valuesRoundTripLocallyAndReplicate(@TempDir Path dir) throws Exception {
    ClusterConfig config = TestClusters.loopback("gentlerain", 2, 3, TestClusters.je(dir, Durability.NONE));
    try (LocalCluster cluster = LocalCluster.start(config, new GentleRain());
         ClientRuntime clients = new ClientRuntime(config, new GentleRain(), 2)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)));
      Session alice = clients.openSession(0);
      assertTrue(alice.supportsReadOnlyTx());
      for (int i = 0; i < 6; i++) {
        alice.put("k" + i, ByteString.copyFromUtf8("v" + i));
      }
      assertEquals(Optional.of(ByteString.copyFromUtf8("v3")), alice.get("k3")); // local: visible at once
      Map<String, Optional<ByteString>> tx = alice.readOnlyTx(List.of("k0", "k1", "k2", "k5", "missing"));
      for (String k : List.of("k0", "k1", "k2", "k5")) {
        assertEquals(Optional.of(ByteString.copyFromUtf8("v" + k.substring(1))), tx.get(k), "own write of " + k);
      }
      assertEquals(Optional.empty(), tx.get("missing"));

      Session bob = clients.openSession(1); // the other datacenter sees the writes once GST passes them
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      Map<String, Optional<ByteString>> seen = Map.of();
      while (System.nanoTime() < deadline) {
        seen = bob.readOnlyTx(List.of("k0", "k5"));
        if (seen.get("k0").isPresent() && seen.get("k5").isPresent()) {
          break;
        }
        Thread.sleep(20);
      }
      assertEquals(Optional.of(ByteString.copyFromUtf8("v5")), seen.get("k5"));
      assertEquals(Optional.of(ByteString.copyFromUtf8("v5")), bob.get("k5"));
      bob.put("k5", ByteString.copyFromUtf8("bob"));
      assertEquals(Optional.of(ByteString.copyFromUtf8("bob")), bob.get("k5"));
    }
  }
}
