package org.kvlab.store;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SortedMap;
import java.util.TreeMap;

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

  /** Removes {@code name} (buffered like {@link #put}); no effect if absent. */
  void remove(String name);

  /** Every name that starts with {@code prefix} with its value, sorted by name (for the kit's durable maps). */
  SortedMap<String, byte[]> scan(String prefix);

  /** A state kept in memory only (a fresh one on every start of a server with an in-memory store). */
  static KitState memory() {
    TreeMap<String, byte[]> map = new TreeMap<>();
    return new KitState() {
      @Override
      public byte[] get(String name) {
        return map.get(name);
      }

      @Override
      public void put(String name, byte[] value) {
        map.put(name, value.clone());
      }

      @Override
      public void remove(String name) {
        map.remove(name);
      }

      @Override
      public SortedMap<String, byte[]> scan(String prefix) {
        return copyOfPrefix(map, prefix);
      }
    };
  }

  /** The kit state kept with {@code store}: its own database for a {@link JeStore}, else memory. */
  static KitState of(VersionedStore<?> store) {
    return store instanceof JeStore<?> je ? je.kitState() : memory();
  }

  /** The entries of {@code map} whose names start with {@code prefix}, values copied. */
  static SortedMap<String, byte[]> copyOfPrefix(NavigableMap<String, byte[]> map, String prefix) {
    TreeMap<String, byte[]> out = new TreeMap<>();
    for (Map.Entry<String, byte[]> e : map.tailMap(prefix, true).entrySet()) {
      if (!e.getKey().startsWith(prefix)) {
        break;
      }
      out.put(e.getKey(), e.getValue().clone());
    }
    return out;
  }

  /** Counts one more start on {@code state}: returns the new incarnation (1 on a fresh state) and stores it. */
  static long nextIncarnation(KitState state) {
    byte[] stored = state.get("incarnation");
    long incarnation = stored == null ? 1 : ByteBuffer.wrap(stored).getLong() + 1;
    state.put("incarnation", ByteBuffer.allocate(8).putLong(incarnation).array());
    return incarnation;
  }
}
