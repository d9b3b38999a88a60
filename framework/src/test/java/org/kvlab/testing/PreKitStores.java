package org.kvlab.testing;

import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.Message;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.kvlab.api.NodeId;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.config.ClusterConfig;
import org.kvlab.runtime.Node;
import org.kvlab.store.Durability;
import org.kvlab.store.Stores;
import org.kvlab.store.VersionedStore;

/**
 * For protocols that moved their durable state from reserved keys of the store to the kit's slots: a server started
 * on a store an earlier version wrote must refuse to start rather than run without its state.
 */
public final class PreKitStores {
  private PreKitStores() {}

  /**
   * Writes {@code record} under {@code key} into server 0_0's JE store of a 2 x 1 loopback cluster in {@code dir},
   * starts that server on it and returns why it halted (it fails the test if it does not halt within 30 s).
   */
  public static <R extends Message> Throwable haltOnStoreWith(Path dir, Protocol protocol, RecordType<R> type,
      String key, R record) throws Exception {
    ClusterConfig config = TestClusters.loopback(protocol.name(), 2, 1, TestClusters.je(dir, Durability.SYNC));
    NodeId id = NodeId.of(0, 0);
    try (VersionedStore<R> store = Stores.open(type, config.storage(), config.name(), id)) {
      store.put(key, record);
    }
    Node node = Node.start(config, id, protocol);
    try {
      return assertThrows(ExecutionException.class, () -> node.terminated().get(30, TimeUnit.SECONDS)).getCause();
    } finally {
      node.close();
    }
  }
}
