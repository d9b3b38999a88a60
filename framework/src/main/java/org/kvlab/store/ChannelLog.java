package org.kvlab.store;

import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The durable state of a node's server-to-server channels, kept next to its store so that the store's
 * {@link VersionedStore#sync()} makes it durable too (one fsync covers both). The runtime uses it only
 * under durability {@code sync}: the node's persistent incarnation, the outbox of every outgoing
 * channel (messages not yet acknowledged by the peer) and, for every incoming channel, the last
 * sequence number delivered to the protocol.
 *
 * <p>Like the store: every method is called from the node's event loop; writes are buffered and become
 * durable at the next {@code sync()} of the store. Writes become durable in the order they were made
 * (a crash keeps a prefix of them), which the runtime's invariants rely on.
 *
 * @see JeStore#channelLog()
 */
public interface ChannelLog {

  /** A message waiting in an outbox: its channel sequence number and its serialized frame. */
  record Entry(long seq, byte[] message) {}

  /** What a node delivered from one sender: the sender's incarnation and the last sequence number. */
  record Delivered(long incarnation, long seq) {}

  /**
   * The node's incarnation: the stored one, or {@code fresh}'s value, which is stored and synced
   * before this method returns (so it is never used on the wire without being durable).
   */
  long incarnation(LongSupplier fresh);

  // ---- sender side

  /** Adds message {@code seq} to the outbox of the channel to {@code peer}. */
  void append(String peer, long seq, byte[] message);

  /**
   * The peer acknowledged every message up to {@code seq}: records {@code seq} as the channel's
   * acknowledged high-water mark, then removes those messages from the outbox (in that order, so a
   * crash never keeps the removals without the mark).
   */
  void acknowledged(String peer, long seq);

  /** The messages in the outbox of the channel to {@code peer}, in sequence order. */
  List<Entry> pending(String peer);

  /**
   * The largest sequence number ever recorded for the channel to {@code peer}: the largest in its
   * outbox or the acknowledged high-water mark, whichever is larger; 0 if none.
   */
  long highWater(String peer);

  // ---- receiver side

  /** Records that every message up to {@code seq} of {@code sender}'s incarnation was delivered. */
  void delivered(String sender, long incarnation, long seq);

  /** Every recorded delivered marker, by sender. */
  Map<String, Delivered> deliveredMarkers();
}
