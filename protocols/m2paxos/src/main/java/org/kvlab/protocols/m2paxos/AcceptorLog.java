package org.kvlab.protocols.m2paxos;

import java.util.Collections;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.TreeMap;
import org.kvlab.api.SlotMap;

/**
 * One node's M²Paxos state, in memory and in the kit's durable maps (restored when the node restarts on its store):
 * per object its {@link ObjectState} (Rnd, owner, the epoch this node owns it in, LastDecided), per (object,
 * instance) its {@link Instance} (Vdec, Rdec, Decided). Instances every replica delivered are removed
 * ({@link #truncate}), so the maps stay bounded by what some replica has not delivered yet.
 */
final class AcceptorLog {
  private final SlotMap<ObjectState> objectMap;
  private final SlotMap<Instance> instanceMap;
  private final TreeMap<String, ObjectState> objects = new TreeMap<>();
  private final TreeMap<String, TreeMap<Long, Instance>> instances = new TreeMap<>();
  private final java.util.function.Function<String, ObjectState> initial;

  /**
   * @param initial the state of an object nobody touched yet at this node (its initial owner, per parameters)
   */
  AcceptorLog(SlotMap<ObjectState> objectMap, SlotMap<Instance> instanceMap,
      java.util.function.Function<String, ObjectState> initial) {
    this.objectMap = objectMap;
    this.instanceMap = instanceMap;
    this.initial = initial;
    for (String k : objectMap.keys()) {
      objects.put(k, objectMap.get(k));
    }
    for (String k : instanceMap.keys()) {
      int at = k.lastIndexOf('@');
      instances.computeIfAbsent(k.substring(0, at), x -> new TreeMap<>())
          .put(Long.parseLong(k.substring(at + 1)), instanceMap.get(k));
    }
  }

  ObjectState object(String key) {
    ObjectState s = objects.get(key);
    return s != null ? s : initial.apply(key);
  }

  void setObject(String key, ObjectState s) {
    objects.put(key, s);
    objectMap.put(key, s);
  }

  /** The objects this node holds state of (touched, or with instances), sorted. */
  NavigableSet<String> objects() {
    java.util.TreeSet<String> all = new java.util.TreeSet<>(objects.keySet());
    all.addAll(instances.keySet());
    return all;
  }

  /** The objects whose state this node changed (promised, accepted or delivered on), sorted (read-only). */
  NavigableSet<String> touched() {
    return Collections.unmodifiableNavigableSet(objects.navigableKeySet());
  }

  /** The objects this node holds instances of (not delivered by every replica yet), sorted (read-only). */
  NavigableSet<String> objectsWithInstances() {
    return Collections.unmodifiableNavigableSet(instances.navigableKeySet());
  }

  Instance instance(String key, long in) {
    TreeMap<Long, Instance> m = instances.get(key);
    return m == null ? null : m.get(in);
  }

  void setInstance(String key, long in, Instance i) {
    instances.computeIfAbsent(key, x -> new TreeMap<>()).put(in, i);
    instanceMap.put(key + "@" + in, i);
  }

  /** The instances of {@code key} from {@code from} on, in order (read-only). */
  NavigableMap<Long, Instance> from(String key, long from) {
    TreeMap<Long, Instance> m = instances.get(key);
    return m == null ? Collections.emptyNavigableMap() : Collections.unmodifiableNavigableMap(m.tailMap(from, true));
  }

  /** The highest instance of {@code key} this node holds anything for, or 0. */
  long maxInstance(String key) {
    TreeMap<Long, Instance> m = instances.get(key);
    return m == null || m.isEmpty() ? 0 : m.lastKey();
  }

  /** Removes the instances of {@code key} up to {@code upTo}: every replica delivered them. */
  int truncate(String key, long upTo) {
    TreeMap<Long, Instance> m = instances.get(key);
    int removed = 0;
    while (m != null && !m.isEmpty() && m.firstKey() <= upTo) {
      instanceMap.remove(key + "@" + m.pollFirstEntry().getKey());
      removed++;
    }
    if (m != null && m.isEmpty()) {
      instances.remove(key);
    }
    return removed;
  }

  /** How many instances this node holds (all objects). */
  int instanceCount() {
    return instances.values().stream().mapToInt(TreeMap::size).sum();
  }
}
