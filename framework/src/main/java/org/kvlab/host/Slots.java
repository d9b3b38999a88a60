package org.kvlab.host;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Collections;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.kvlab.api.Slot;
import org.kvlab.api.SlotMap;

/**
 * The durable slots of a {@link ProtocolHost}: one typed value per message type, in the node's kit state (not the
 * user's keys), restored at start; a slot set in an event is written at the event's end, with the event's store
 * writes and ahead of the sends the host held behind it.
 */
final class Slots {
  private final ProtocolHost host;
  private final Map<Class<?>, SlotImpl<?>> slots = new HashMap<>(); // looked up only: never iterated
  private final ArrayList<Dirty> dirty = new ArrayList<>();
  private final Map<String, SlotMapImpl<?>> maps = new HashMap<>(); // looked up only: never iterated

  Slots(ProtocolHost host) {
    this.host = host;
  }

  boolean isEmpty() {
    return slots.isEmpty() && maps.isEmpty();
  }

  boolean anyDirty() {
    return !dirty.isEmpty();
  }

  /** Writes the slots set since the last call to the kit state, in the order they were set. */
  void writeDirty() {
    if (dirty.isEmpty()) {
      return;
    }
    for (Dirty s : dirty) {
      s.write();
    }
    dirty.clear();
    host.driver.stateWritten();
  }

  /** The slot of {@code defaultInstance}'s type: restored from the node's kit state, or the default. */
  @SuppressWarnings("unchecked")
  <S extends Message> Slot<S> get(S defaultInstance) {
    SlotImpl<?> existing = slots.get(defaultInstance.getClass());
    if (existing != null) {
      return (Slot<S>) existing;
    }
    String name = "slot/" + defaultInstance.getDescriptorForType().getFullName();
    byte[] stored = host.driver.state().get(name);
    S value = defaultInstance;
    if (stored != null) {
      try {
        value = (S) defaultInstance.getParserForType().parseFrom(stored);
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalStateException("the stored slot " + name + " of server " + host.env.self()
            + " does not parse: " + e.getMessage() + ". Fix: a changed message type needs a fresh store", e);
      }
    }
    SlotImpl<S> s = new SlotImpl<>(name, value);
    slots.put(defaultInstance.getClass(), s);
    return s;
  }

  /**
   * The durable map {@code name}: restored from the kit state's entries {@code map/<name>/<key>}, or empty. The same
   * name asked again with another type is refused.
   */
  @SuppressWarnings("unchecked")
  <S extends Message> SlotMap<S> map(String name, S defaultInstance) {
    if (!name.matches("[A-Za-z0-9._-]+")) {
      throw new IllegalArgumentException("slot map name '" + name + "': use letters, digits, '-', '_' and '.'");
    }
    SlotMapImpl<?> existing = maps.get(name);
    if (existing != null) {
      if (existing.type != defaultInstance.getClass()) {
        throw new IllegalArgumentException("slot map '" + name + "' holds " + existing.type.getSimpleName()
            + ", not " + defaultInstance.getClass().getSimpleName() + ". Fix: give each type its own map name");
      }
      return (SlotMap<S>) existing;
    }
    String prefix = "map/" + name + "/";
    TreeMap<String, S> entries = new TreeMap<>();
    for (Map.Entry<String, byte[]> e : host.driver.state().scan(prefix).entrySet()) {
      try {
        entries.put(e.getKey().substring(prefix.length()),
            (S) defaultInstance.getParserForType().parseFrom(e.getValue()));
      } catch (InvalidProtocolBufferException ex) {
        throw new IllegalStateException("the stored entry " + e.getKey() + " of server " + host.env.self()
            + " does not parse: " + ex.getMessage() + ". Fix: a changed message type needs a fresh store", ex);
      }
    }
    SlotMapImpl<S> m = new SlotMapImpl<>(prefix, defaultInstance.getClass(), entries);
    maps.put(name, m);
    return m;
  }

  /** Queues {@code d}'s write for the end of the event; outside any event (a test on the loop), writes now. */
  private void markDirty(Dirty d) {
    dirty.add(d);
    if (!host.inEvent()) {
      host.settle();
    }
  }

  /** A slot or map with changes not yet written. */
  private interface Dirty {
    void write();
  }

  private final class SlotMapImpl<S extends Message> implements SlotMap<S>, Dirty {
    final String prefix;
    final Class<?> type;
    final TreeMap<String, S> entries;
    final NavigableSet<String> keys;
    final TreeSet<String> changed = new TreeSet<>();

    SlotMapImpl(String prefix, Class<?> type, TreeMap<String, S> entries) {
      this.prefix = prefix;
      this.type = type;
      this.entries = entries;
      this.keys = Collections.unmodifiableNavigableSet(entries.navigableKeySet());
    }

    @Override
    public S get(String key) {
      return entries.get(key);
    }

    @Override
    public void put(String key, S value) {
      java.util.Objects.requireNonNull(value, "a slot map's value");
      if (key == null || key.isEmpty()) {
        throw new IllegalArgumentException("a slot map's key must be non-empty");
      }
      entries.put(key, value);
      changed(key);
    }

    @Override
    public void remove(String key) {
      if (entries.remove(key) != null) {
        changed(key);
      }
    }

    @Override
    public NavigableSet<String> keys() {
      return keys;
    }

    @Override
    public int size() {
      return entries.size();
    }

    private void changed(String key) {
      boolean wasClean = changed.isEmpty();
      changed.add(key);
      if (wasClean) {
        markDirty(this);
      }
    }

    @Override
    public void write() {
      for (String k : changed) {
        S v = entries.get(k);
        if (v == null) {
          host.driver.state().remove(prefix + k);
        } else {
          host.driver.state().put(prefix + k, v.toByteArray());
        }
      }
      changed.clear();
    }
  }

  private final class SlotImpl<S extends Message> implements Slot<S>, Dirty {
    final String name;
    S value;
    boolean isDirty;

    SlotImpl(String name, S value) {
      this.name = name;
      this.value = value;
    }

    @Override
    public S get() {
      return value;
    }

    @Override
    public void set(S v) {
      java.util.Objects.requireNonNull(v, "a slot's value");
      value = v;
      if (!isDirty) {
        isDirty = true;
        markDirty(this);
      }
    }

    @Override
    public void write() {
      isDirty = false;
      host.driver.state().put(name, value.toByteArray());
    }
  }
}
