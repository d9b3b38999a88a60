package org.kvlab.store;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * The framework's own durable state of one server (its incarnation, the protocol's slots), apart from the
 * protocol's keys: a small map of names to bytes. A {@link JeStore} keeps it in a database of its own in the same
 * environment, so {@link VersionedStore#sync()} makes it durable with the store's writes (a crash keeps a prefix);
 * other stores keep it in memory. Called on the node's event loop only.
 */
public interface KitState {
  /** The value of {@code name}, or null. */
  byte[] get(String name);

  /** Sets {@code name} (buffered like the store's writes; durable at the store's next sync). */
  void put(String name, byte[] value);

  /** A state kept in memory only (a fresh one on every start of a server with an in-memory store). */
  static KitState memory() {
    Map<String, byte[]> map = new HashMap<>();
    return new KitState() {
      @Override
      public byte[] get(String name) {
        return map.get(name);
      }

      @Override
      public void put(String name, byte[] value) {
        map.put(name, value.clone());
      }
    };
  }

  /** The kit state kept with {@code store}: its own database for a {@link JeStore}, else memory. */
  static KitState of(VersionedStore<?> store) {
    return store instanceof JeStore<?> je ? je.kitState() : memory();
  }

  /** Counts one more start on {@code state}: returns the new incarnation (1 on a fresh state) and stores it. */
  static long nextIncarnation(KitState state) {
    byte[] stored = state.get("incarnation");
    long incarnation = stored == null ? 1 : ByteBuffer.wrap(stored).getLong() + 1;
    state.put("incarnation", ByteBuffer.allocate(8).putLong(incarnation).array());
    return incarnation;
  }
}
