package org.kvlab.api;

import com.google.protobuf.Message;

/**
 * A durable piece of protocol state ({@link ServerContext#slot}): one message, kept by the framework apart from the
 * store's keys, restored when the server restarts on the same store. {@link #set} takes effect for {@link #get} at
 * once; the value is written at the end of the event-loop turn, together with that turn's store writes, and under
 * durability {@code sync} the messages the turn sends leave only once it is durable. Under {@code none} a crash may
 * lose the last values (like the store's last writes) while messages sent after them got out.
 *
 * @param <S> the state's message type (one slot per type)
 */
public interface Slot<S extends Message> {
  /** The current value: the last set, the restored one after a restart, or the default instance. */
  S get();

  /** Replaces the value (null is refused). */
  void set(S value);
}
