package org.kvlab.store;

import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A multi-version key-value store of protocol records. Each key has a chain of versions ordered by the
 * protocol's version key (see {@link org.kvlab.api.VersionKey}); the largest version key is the newest.
 *
 * <p>Threading: a store belongs to one node and is called only from that node's event loop, except
 * {@link #sync()}, which the runtime's group-commit thread may call concurrently.
 *
 * <p>Durability: {@link #put} makes a version visible to later reads at once. It becomes durable
 * (survives kill -9) only when a later {@link #sync()} returns. With durability {@code none} the runtime
 * never calls {@code sync()} before replying; a graceful {@link #close()} always makes data durable.
 *
 * @param <R> the protocol's record type
 * @see InMemoryStore
 * @see JeStore
 */
public interface VersionedStore<R> extends AutoCloseable {

  /**
   * Adds {@code record} as a version of {@code key}. Putting a record equal to an existing version
   * (same version key, same bytes) is a no-op, so replays are idempotent. Putting a different record
   * under an existing version key throws {@link org.kvlab.api.Invariants.InvariantViolation}: two
   * distinct versions must never compare equal, and a store must never drop one silently.
   */
  void put(String key, R record);

  /** The newest version of {@code key} satisfying {@code filter}, scanning newest first. */
  Optional<R> newest(String key, Predicate<? super R> filter);

  /** The newest version of {@code key}, if any. */
  default Optional<R> newest(String key) {
    return newest(key, r -> true);
  }

  /** All versions of {@code key}, newest first (for tests, debugging and pruning policies). */
  List<R> versions(String key);

  /**
   * Removes every version of {@code key} strictly older than the newest version satisfying
   * {@code stable}; if no version satisfies it, removes nothing. Stability is expected to be monotone
   * in version order (a version older than a stable one is stable, as with "ut &lt;= bound"): the store
   * scans from the oldest version and removes it while the version after it is stable, so the cost is
   * proportional to the versions removed, not to the unstable versions above them (a hot key written
   * thousands of times a second keeps a long unstable tail). If stability is not monotone, the scan stops
   * at the first unstable version and keeps what lies above it: pruning less is always safe.
   *
   * @return the number of versions removed
   */
  int prune(String key, Predicate<? super R> stable);

  /**
   * Removes every version of {@code key} whose version key is at least {@code from} and below {@code below}
   * (unsigned byte order, the order versions are kept in), without reading or parsing any record: for records whose
   * version key alone says they are obsolete, such as a journal numbered by position (NuKV's Raft journal prunes the
   * records before a snapshot this way). Unlike {@link #prune} it may remove every version, the newest too. The cost
   * is proportional to the versions removed, if {@code from} is where the key's remaining versions start: a caller
   * that prunes a key's oldest versions a few at a time should pass where its last prune ended, not an empty
   * {@code from} (JE keeps deleted records' slots until its compressor thread runs, and a scan from the key's first
   * slot walks over all of them: NuKV's journal pruned 4 records at a time, each prune from the key's start, took
   * 17.7 s for 51,000 records on a loaded machine, and 0.2-1.8 s for 50,000-51,000 from where the last one ended).
   *
   * @return the number of versions removed
   */
  int pruneRange(String key, byte[] from, byte[] below);

  /** Number of distinct keys stored (may scan; for tests and status). */
  long keyCount();

  /** Blocks until every version put before this call is on stable storage (fsync). Thread-safe. */
  void sync();

  /** Closes the store, making all data durable (for persistent engines). Idempotent. */
  @Override
  void close();
}
