package org.kvlab.store;

import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import org.kvlab.api.RecordType;

/**
 * A {@link VersionedStore} held in memory: per key, a {@link VersionChain} of versions ordered by
 * {@link Arrays#compareUnsigned(byte[], byte[])} exactly like {@link JeStore} orders its keys.
 *
 * <p>The chains sit in an open-addressing hash table (linear probing, at most half full) and each chain holds its
 * key's hash and (when short) characters, and its first versions: finding a key and its newest version touches the
 * table slot and the chain. A {@link HashMap} from key to a sorted map touched its table, its node, the stored key
 * string and that string's bytes, then the map, its entry and the version key's bytes: with thousands of keys each
 * is a likely cache miss, and together they were nearly half of a server's event-loop samples under the anchor
 * workload (docs/benchmarks/dkvf-anchor.md).
 *
 * <p>Deterministic: the table is only ever probed by key or asked its size, never iterated, so no hash order
 * leaks out; the chains are sorted. Nothing is durable, so {@link #sync()} does nothing (the runtime refuses
 * durability {@code sync} with this engine, see {@link Stores#open}).
 *
 * <p>The key of the last call and its chain are remembered: a protocol that puts and then prunes the same key
 * (the same string) looks it up once. Chains are never removed from the table (a key whose every version
 * {@link #pruneRange} removed keeps an empty chain, which counts as no key), so the remembered chain stays the key's.
 *
 * <p>Records are kept by reference (protobuf messages are immutable). Not thread-safe, except
 * {@link #sync()} and {@link #close()}, which touch no data.
 */
public final class InMemoryStore<R extends Message> implements VersionedStore<R> {
  private static final int INITIAL_TABLE = 64;
  private final RecordType<R> type;
  /** Open addressing; a power of two in length, at most half full; never iterated (see class comment). */
  private VersionChain<R>[] table = newTable(INITIAL_TABLE);
  private int count; // keys with at least one version
  private int chains; // chains in the table (empty ones too)
  private String lastKey; // the key of the last call, compared by identity
  private VersionChain<R> lastChain; // its chain, null if it had none then (or the key failed the check)
  private volatile boolean closed;

  public InMemoryStore(RecordType<R> type) {
    this.type = Objects.requireNonNull(type, "type");
  }

  @SuppressWarnings("unchecked")
  private static <R> VersionChain<R>[] newTable(int length) {
    return (VersionChain<R>[]) new VersionChain<?>[length];
  }

  /**
   * The key's table hash: for a key held packed ({@link VersionChain#packable}), {@link VersionChain#packedHash} of its
   * packed words (what {@link #chain} computes while packing the key it looks up); for others the key's hash code, its
   * bits spread so that keys differing in high bits do not share probe runs.
   */
  private static int hash(String key) {
    if (VersionChain.packable(key)) {
      return VersionChain.packedHash(VersionChain.pack(key, 0), VersionChain.pack(key, 1), VersionChain.pack(key, 2),
          key.length());
    }
    return unpackedHash(key);
  }

  private static int unpackedHash(String key) {
    int h = key.hashCode() * 0x9E3779B9;
    return h ^ (h >>> 16);
  }

  /**
   * The chain of {@code key}, null if it has none. Checks the key ({@link Stores#checkKey}) only when it has none: a
   * key found equals a stored one, which passed the check when it was added.
   *
   * <p>A short key is packed once, in one pass over its characters, and the packed words give its hash and are compared
   * with the chain's: one pass where {@link String#hashCode} and a check-then-pack comparison took four.
   */
  private VersionChain<R> chain(String key) {
    if (key == lastKey && lastChain != null) {
      return lastChain;
    }
    int n = Objects.requireNonNull(key, "key").length();
    VersionChain<R>[] t = table;
    int mask = t.length - 1;
    VersionChain<R> found = null;
    if (n <= VersionChain.PACKED_CHARS_MAX) {
      int seen = 0; // the characters or-ed: above 0xff if any is
      long p0 = 0;
      long p1 = 0;
      long p2 = 0;
      for (int i = 0, end = Math.min(n, 8); i < end; i++) { // as VersionChain.pack(key, 0), 1 and 2
        char c = key.charAt(i);
        seen |= c;
        p0 |= (long) c << (56 - 8 * i);
      }
      for (int i = 8, end = Math.min(n, 16); i < end; i++) {
        char c = key.charAt(i);
        seen |= c;
        p1 |= (long) c << (120 - 8 * i);
      }
      for (int i = 16; i < n; i++) {
        char c = key.charAt(i);
        seen |= c;
        p2 |= (long) c << (184 - 8 * i);
      }
      if (seen <= 0xff) {
        int h = VersionChain.packedHash(p0, p1, p2, n);
        for (int i = h & mask; t[i] != null; i = (i + 1) & mask) {
          VersionChain<R> c = t[i];
          if (c.hash == h && c.isPacked(p0, p1, p2, n)) {
            found = c;
            break;
          }
        }
        return remember(key, found);
      }
    }
    int h = unpackedHash(key);
    for (int i = h & mask; t[i] != null; i = (i + 1) & mask) {
      VersionChain<R> c = t[i];
      if (c.hash == h && c.isOfUnpacked(key)) {
        found = c;
        break;
      }
    }
    return remember(key, found);
  }

  /** Remembers the last key and its chain (see {@link #chain}); checks a key that has none. */
  private VersionChain<R> remember(String key, VersionChain<R> found) {
    if (found == null) {
      Stores.checkKey(key);
    }
    lastChain = found;
    lastKey = key;
    return found;
  }

  /** Adds the chain of a key that has none. */
  private VersionChain<R> add(String key, byte[] version, R record) {
    if (2 * (chains + 1) > table.length) {
      VersionChain<R>[] bigger = newTable(table.length * 2);
      for (VersionChain<R> c : table) {
        if (c != null) {
          place(bigger, c);
        }
      }
      table = bigger;
    }
    VersionChain<R> c = new VersionChain<>(hash(key), key, version, record);
    place(table, c);
    chains++;
    count++;
    return c;
  }

  private static <R> void place(VersionChain<R>[] t, VersionChain<R> c) {
    int mask = t.length - 1;
    int i = c.hash & mask;
    while (t[i] != null) {
      i = (i + 1) & mask;
    }
    t[i] = c;
  }

  @Override
  public void put(String key, R record) {
    checkOpen();
    Objects.requireNonNull(record, "record");
    VersionChain<R> versions = chain(key);
    byte[] version = Stores.versionKeyOf(type, record);
    if (versions == null) {
      lastChain = add(key, version, record);
      return;
    }
    int at = versions.search(version);
    if (at >= 0) {
      R existing = versions.record(at);
      if (!existing.equals(record)) {
        throw Stores.conflict(key, version, existing, record);
      }
      return;
    }
    if (versions.size() == 0) {
      count++; // a key pruneRange emptied, written again
    }
    versions.insert(-at - 1, version, record);
  }

  @Override
  public Optional<R> newest(String key, Predicate<? super R> filter) {
    checkOpen();
    Objects.requireNonNull(filter, "filter");
    VersionChain<R> versions = chain(key);
    if (versions != null && versions.size() > 0) {
      if (filter.test(versions.newest())) { // the common case: the newest version qualifies
        return Optional.of(versions.newest());
      }
      for (int i = versions.size() - 2; i >= 0; i--) {
        R r = versions.record(i);
        if (filter.test(r)) {
          return Optional.of(r);
        }
      }
    }
    return Optional.empty();
  }

  @Override
  public List<R> versions(String key) {
    checkOpen();
    VersionChain<R> versions = chain(key);
    if (versions == null) {
      return List.of();
    }
    List<R> out = new ArrayList<>(versions.size());
    for (int i = versions.size() - 1; i >= 0; i--) {
      out.add(versions.record(i));
    }
    return Collections.unmodifiableList(out);
  }

  @Override
  public int prune(String key, Predicate<? super R> stable) {
    checkOpen();
    Objects.requireNonNull(stable, "stable");
    VersionChain<R> versions = chain(key);
    // From the oldest: remove it while the version after it is stable (what remains first is the newest version
    // of the leading run of stable versions). A protocol prunes after every put (Eventual keeps one version).
    int removed = 0;
    while (versions != null && versions.size() > 1 && stable.test(versions.record(1))) {
      versions.removeOldest();
      removed++;
    }
    return removed;
  }

  @Override
  public int pruneRange(String key, byte[] from, byte[] below) {
    checkOpen();
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(below, "below");
    VersionChain<R> versions = chain(key);
    if (versions == null || versions.size() == 0 || Arrays.compareUnsigned(from, below) >= 0) {
      return 0;
    }
    int lo = versions.lowerBound(from);
    int hi = versions.lowerBound(below);
    if (hi <= lo) {
      return 0;
    }
    versions.removeRange(lo, hi);
    if (versions.size() == 0) {
      count--;
    }
    return hi - lo;
  }

  @Override
  public long keyCount() {
    checkOpen();
    return count;
  }

  /** Nothing to do: this store is never durable. */
  @Override
  public void sync() {}

  @Override
  public void close() {
    closed = true;
  }

  @Override
  public String toString() {
    return "InMemoryStore[" + type.type().getSimpleName() + ", " + count + " keys]";
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("store is closed");
    }
  }
}
