package org.kvlab.store;

/** When an acknowledged write is on disk. */
public enum Durability {
  /**
   * Replies do not wait for the disk. With engine je, a background thread writes the log every 200 ms and
   * fsyncs it every 10 s: a kill -9 loses about the last 200 ms of acknowledged writes, a machine crash
   * about the last 10 s, and the channels to other datacenters are not durable (docs/runtime.md).
   */
  NONE,
  /**
   * A reply that follows a write waits until the write is fsynced. Fsyncs are batched (group commit) on
   * a separate thread, so the event loop never blocks; every acknowledged write survives kill -9. With
   * engine je, server-to-server channels are durable too: messages wait in an outbox in the store's
   * environment until the peer acknowledges them (docs/runtime.md, "Durability of channels").
   */
  SYNC
}
