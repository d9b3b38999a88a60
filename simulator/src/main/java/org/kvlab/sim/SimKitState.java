package org.kvlab.sim;

import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.kvlab.store.Durability;
import org.kvlab.store.KitState;

/**
 * The framework's own state of a simulated server (its protocol's slots), which a crash treats as {@link SimStore}
 * treats the store: under {@code sync} every write is durable at once (a crash falls between events, so a turn's
 * writes are kept together), under {@code none} only what the last background flush covered survives.
 */
final class SimKitState implements KitState {
  private final Durability durability;
  private final TreeMap<String, byte[]> live = new TreeMap<>();
  private final Map<String, byte[]> durable = new HashMap<>();

  SimKitState(Durability durability) {
    this.durability = durability;
  }

  @Override
  public byte[] get(String name) {
    byte[] v = live.get(name);
    return v == null ? null : v.clone();
  }

  @Override
  public void put(String name, byte[] value) {
    live.put(name, value.clone());
    if (durability == Durability.SYNC) {
      durable.put(name, value.clone());
    }
  }

  @Override
  public void remove(String name) {
    live.remove(name);
    if (durability == Durability.SYNC) {
      durable.remove(name);
    }
  }

  @Override
  public SortedMap<String, byte[]> scan(String prefix) {
    return KitState.copyOfPrefix(live, prefix);
  }

  /** The periodic background flush (durability none). */
  void flush() {
    durable.clear();
    durable.putAll(live);
  }

  /** A crash: what was not durable is gone. */
  void crash() {
    live.clear();
    live.putAll(durable);
  }
}
