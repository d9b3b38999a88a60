package org.kvlab.store;

/** When an acknowledged write is on disk. */
public enum Durability {
  /** Writes reach disk lazily (and on graceful shutdown). Fast; a kill -9 may lose acknowledged writes. */
  NONE,
  /**
   * A reply that follows a write waits until the write is fsynced. Fsyncs are batched (group commit) on
   * a separate thread, so the event loop never blocks; every acknowledged write survives kill -9.
   */
  SYNC
}
