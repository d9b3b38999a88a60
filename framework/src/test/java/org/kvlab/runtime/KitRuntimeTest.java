package org.kvlab.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.NodeId;
import org.kvlab.api.OperationException;
import org.kvlab.api.Session;
import org.kvlab.config.ClusterConfig;
import org.kvlab.store.Durability;
import org.kvlab.testing.PrimaryBackupKit;
import org.kvlab.testing.TestClusters;

/**
 * The protocol kit on the real runtime, on loopback: a primary-backup protocol that forwards client requests to its
 * primary, calls its backups with retries, waits on conditions and on the clock, and keeps its version counter in a
 * slot; across a restart of the backup (a call retried until it is back) and of the primary (its slot and
 * incarnation restored from its store).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS) // stops a hang only
class KitRuntimeTest {
  private static final PrimaryBackupKit PROTOCOL = new PrimaryBackupKit();

  private static String read(Session s, String key) throws Exception {
    return s.get(key).orElseThrow(() -> new AssertionError(key + " not found")).toStringUtf8();
  }

  @Test
  void forwardCallAllWaitsAndIncarnation_onAFreshInMemoryCluster() throws Exception {
    ClusterConfig config = TestClusters.loopback("kitpb", 2, 1, TestClusters.memory());
    try (LocalCluster cluster = LocalCluster.start(config, PROTOCOL);
         ClientRuntime client = new ClientRuntime(config, PROTOCOL, 1)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)), "peers connected");
      Session backupSide = client.openSession(1, Duration.ofSeconds(30));
      Session primarySide = client.openSession(0, Duration.ofSeconds(30));
      // a wait that a later call's arrival makes true (no poll: it is re-checked after the call is handled)
      CompletableFuture<java.util.Optional<ByteString>> waiting = backupSide.getAsync("ver/1");
      Thread.sleep(100);
      assertTrue(!waiting.isDone(), "the backup has applied nothing yet");
      backupSide.put("k", ByteString.copyFromUtf8("v")); // forwarded to the primary, which calls the backup
      assertEquals("1", waiting.get(30, TimeUnit.SECONDS).orElseThrow().toStringUtf8());
      assertEquals("v", read(backupSide, "k"), "a read at the backup is forwarded to the primary");
      assertEquals("v", read(primarySide, "k"));
      assertEquals("1", read(primarySide, "incarnation"));
      long target = System.currentTimeMillis() * 1000 + 200_000;
      long clock = Long.parseLong(read(primarySide, "clock/" + target));
      assertTrue(clock >= target, "waitUntilClock ran at " + clock + ", before " + target);
    }
  }

  @Test
  void callRetriedAcrossTheBackupsRestart_andThePrimaryKeepsItsSlotAndCountsItsIncarnation(@TempDir Path dir)
      throws Exception {
    ClusterConfig config = TestClusters.loopback("kitpb", 2, 1, TestClusters.je(dir, Durability.SYNC));
    NodeId primary = NodeId.of(0, 0);
    NodeId backup = NodeId.of(1, 0);
    Node restartedBackup = null;
    Node restartedPrimary = null;
    try (LocalCluster cluster = LocalCluster.start(config, PROTOCOL);
         ClientRuntime client = new ClientRuntime(config, PROTOCOL, 1)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)), "peers connected");
      Session s = client.openSession(0, Duration.ofSeconds(60));
      s.put("a", ByteString.copyFromUtf8("1"));
      s.put("b", ByteString.copyFromUtf8("2"));
      cluster.node(backup).close();
      CompletableFuture<Void> put = s.putAsync("c", ByteString.copyFromUtf8("3")); // the call waits for the backup
      Thread.sleep(300);
      assertTrue(!put.isDone(), "the primary waits for the backup it calls");
      restartedBackup = Node.start(config, backup, PROTOCOL);
      put.get(60, TimeUnit.SECONDS);
      Session atBackup = client.openSession(1, Duration.ofSeconds(60));
      assertEquals("2", read(atBackup, "incarnation"), "the backup's second start on its store");
      assertEquals("3", read(atBackup, "ver/3"));

      cluster.node(primary).close();
      restartedPrimary = Node.start(config, primary, PROTOCOL);
      Session again = client.openSession(0, Duration.ofSeconds(60));
      assertEquals("2", read(again, "incarnation"));
      putRetrying(again, "d", "4"); // the client's connection to the old primary may still be breaking
      assertEquals("4", read(atBackup, "ver/4"), "the version counter (the slot) went on from 3");
      assertEquals("4", read(atBackup, "d"));
    } finally {
      if (restartedBackup != null) {
        restartedBackup.close();
      }
      if (restartedPrimary != null) {
        restartedPrimary.close();
      }
    }
  }

  private static void putRetrying(Session s, String key, String value) throws Exception {
    for (int i = 0; ; i++) {
      try {
        s.put(key, ByteString.copyFromUtf8(value));
        return;
      } catch (OperationException e) {
        if (e.outcomeUnknown() || i == 20) {
          throw e; // only a definite failure (not sent) may be retried without a second version
        }
        Thread.sleep(100);
      }
    }
  }

  /** Any exception in onStart halts the server with its cause, not only an invariant violation (a porter's report). */
  @Test
  void whenOnStartThrows_theServerHaltsWithTheCause() throws Exception {
    org.kvlab.api.Protocol broken = new org.kvlab.testing.KitVariant("kit", () -> new org.kvlab.api.Server<>() {
      @Override
      protected void register(org.kvlab.api.Handlers on) {}

      @Override
      protected void onStart() {
        throw new IllegalStateException("state not loaded");
      }
    }, null, java.util.Map.of());
    ClusterConfig config = TestClusters.loopback("kitstart", 1, 1, TestClusters.memory());
    Node node = Node.start(config, NodeId.of(0, 0), broken);
    try {
      var halted = org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.ExecutionException.class,
          () -> node.terminated().get(30, TimeUnit.SECONDS));
      assertTrue(halted.getCause().getMessage().contains("server 0_0 failed to start: java.lang.IllegalStateException:"
          + " state not loaded"), halted.getCause().getMessage());
      assertTrue(halted.getCause().getCause() instanceof IllegalStateException, "the cause is kept");
    } finally {
      node.closeQuietly();
    }
  }
}
