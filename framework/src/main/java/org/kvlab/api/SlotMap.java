package org.kvlab.api;

import com.google.protobuf.Message;
import java.util.NavigableSet;

/**
 * A durable map of protocol state ({@link ServerContext#slotMap}): entries of one message type under string keys,
 * kept by the framework apart from the store's keys and restored when the server restarts on the same store. The
 * keyed counterpart of {@link Slot}, for state that grows by entry (an acceptor's promise per consensus instance, a
 * log): a change writes only the entries it touched. {@link #put} and {@link #remove} take effect at once; the
 * changed entries are written at the end of the event-loop turn with that turn's store writes, and under durability
 * {@code sync} the messages the turn sends leave only once they are durable (as for slots). Entries are held in
 * memory too: keep the map bounded (truncate what every replica has passed).
 *
 * @param <S> the entries' message type
 */
public interface SlotMap<S extends Message> {
  /** The entry of {@code key}, or null. */
  S get(String key);

  /** Sets the entry of {@code key} (null values are refused; keys are non-empty). */
  void put(String key, S value);

  /** Removes the entry of {@code key} (no effect if absent). */
  void remove(String key);

  /** The keys present, sorted (a live view: do not change the map while iterating it). */
  NavigableSet<String> keys();

  /** How many entries the map holds. */
  default int size() {
    return keys().size();
  }
}
