package org.kvlab.host;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import org.kvlab.api.Slot;

/**
 * The durable slots of a {@link ProtocolHost}: one typed value per message type, in the node's kit state (not the
 * user's keys), restored at start; a slot set in an event is written at the event's end, with the event's store
 * writes and ahead of the sends the host held behind it.
 */
final class Slots {
  private final ProtocolHost host;
  private final Map<Class<?>, SlotImpl<?>> slots = new HashMap<>(); // looked up only: never iterated
  private final ArrayList<SlotImpl<?>> dirty = new ArrayList<>();

  Slots(ProtocolHost host) {
    this.host = host;
  }

  boolean isEmpty() {
    return slots.isEmpty();
  }

  boolean anyDirty() {
    return !dirty.isEmpty();
  }

  /** Writes the slots set since the last call to the kit state, in the order they were set. */
  void writeDirty() {
    if (dirty.isEmpty()) {
      return;
    }
    for (SlotImpl<?> s : dirty) {
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

  private final class SlotImpl<S extends Message> implements Slot<S> {
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
        dirty.add(this);
        if (!host.inEvent()) { // set outside any event (a test on the loop): write now
          host.settle();
        }
      }
    }

    void write() {
      isDirty = false;
      host.driver.state().put(name, value.toByteArray());
    }
  }
}
