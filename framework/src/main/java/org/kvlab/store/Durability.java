package org.kvlab.store;

/** When an acknowledged write is on disk. */
public enum Durability {
  /** Writes reach disk lazily (and on graceful shutdown). Fast; a kill -9 may lose acknowledged writes. */
  NONE,
  /**
   * A reply that follows a write waits until the write is fsynced. Fsyncs are batched (group commit) on
   * a separate thread, so the event loop never blocks; every acknowledged write survives kill -9. With
   * engine je, server-to-server channels are durable too: messages wait in an outbox in the store's
   * environment until the peer acknowledges them (docs/runtime.md, "Durability of channels").
   */
  SYNC
}
