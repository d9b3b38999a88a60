package org.kvlab.protocols.accf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.Session;
import org.kvlab.config.ClusterConfig;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.testing.PreKitStores;
import org.kvlab.testing.TestClusters;

/** Smoke test on a real loopback cluster of 2 datacenters x 2 partitions: a write replicates and becomes visible. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AccfClusterTest {
  @Test
  void when_writtenInOneDatacenter_then_readableThereAndLaterInTheOther() throws Exception {
    ClusterConfig config = TestClusters.loopback("accf", 2, 2, TestClusters.memory());
    try (LocalCluster cluster = LocalCluster.start(config, new Accf());
         ClientRuntime clients = new ClientRuntime(config, new Accf(), 2)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)));
      ByteString a = ByteString.copyFromUtf8("va");
      ByteString b = ByteString.copyFromUtf8("vb");
      try (Session s0 = clients.openSession(0); Session s1 = clients.openSession(1)) {
        s0.put("a", a);
        s0.put("b", b);
        assertEquals(Optional.of(a), s0.get("a"), "read your writes");
        assertEquals(Optional.of(b), s0.get("b"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Optional<ByteString> seen = s1.get("b");
        while (seen.isEmpty() && System.nanoTime() < deadline) {
          Thread.sleep(20);
          seen = s1.get("b");
        }
        assertEquals(Optional.of(b), seen, "b replicates and becomes stable in datacenter 1");
        assertEquals(Optional.of(a), s1.get("a"), "b depends on a: a reader of b sees a");
      }
    }
  }

  /** A store written before the protocol kit (state under a reserved key) is refused, naming the fix. */
  @Test
  void when_theStoreHoldsThePreKitStateKey_then_theServerRefusesToStart(@TempDir Path dir) throws Exception {
    Throwable why = PreKitStores.haltOnStoreWith(dir, new Accf(), Accf.RECORD, AccfServer.OLD_STATE_KEY,
        Record.newBuilder().setUt(1).build());
    assertTrue(why.getMessage().contains("before the protocol kit") && why.getMessage().contains("Fix: start on a fresh"
        + " store"), why.getMessage());
  }
}
