package org.kvlab.store;

import com.google.protobuf.Message;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.kvlab.api.RecordType;

/**
 * A {@link VersionedStore} held in memory: per key, a {@link TreeMap} from version key to record, ordered by
 * {@link Arrays#compareUnsigned(byte[], byte[])} exactly like {@link JeStore} orders its keys.
 *
 * <p>Deterministic: the outer map is a {@link HashMap} but it is only ever looked up by key or asked its
 * size, never iterated, so no hash order leaks out; the per-key maps are sorted. Nothing is durable, so
 * {@link #sync()} does nothing (the runtime refuses durability {@code sync} with this engine, see
 * {@link Stores#open}).
 *
 * <p>Records are kept by reference (protobuf messages are immutable). Not thread-safe, except
 * {@link #sync()} and {@link #close()}, which touch no data.
 */
public final class InMemoryStore<R extends Message> implements VersionedStore<R> {
  private final RecordType<R> type;
  /** Never iterated (see class comment); every value map is non-empty. */
  private final Map<String, NavigableMap<byte[], R>> keys = new HashMap<>();
  private volatile boolean closed;

  public InMemoryStore(RecordType<R> type) {
    this.type = Objects.requireNonNull(type, "type");
  }

  @Override
  public void put(String key, R record) {
    checkOpen();
    Stores.checkKey(key);
    Objects.requireNonNull(record, "record");
    byte[] version = Stores.versionKeyOf(type, record);
    NavigableMap<byte[], R> versions = keys.computeIfAbsent(key, k -> new TreeMap<>(Arrays::compareUnsigned));
    R existing = versions.putIfAbsent(version, record);
    if (existing != null && !existing.equals(record)) {
      throw Stores.conflict(key, version, existing, record);
    }
  }

  @Override
  public Optional<R> newest(String key, Predicate<? super R> filter) {
    checkOpen();
    Objects.requireNonNull(filter, "filter");
    NavigableMap<byte[], R> versions = keys.get(Stores.checkKey(key));
    if (versions != null) {
      Map.Entry<byte[], R> last = versions.lastEntry(); // the common case: the newest version qualifies
      if (filter.test(last.getValue())) {
        return Optional.of(last.getValue());
      }
      for (R r : versions.headMap(last.getKey(), false).descendingMap().values()) {
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
    NavigableMap<byte[], R> versions = keys.get(Stores.checkKey(key));
    return versions == null ? List.of() : List.copyOf(versions.descendingMap().values());
  }

  @Override
  public int prune(String key, Predicate<? super R> stable) {
    checkOpen();
    Objects.requireNonNull(stable, "stable");
    NavigableMap<byte[], R> versions = keys.get(Stores.checkKey(key));
    if (versions == null || versions.size() == 1) {
      return 0; // one version has nothing older to remove
    }
    // From the oldest: remove it while the version after it is stable (what remains first is the newest version
    // of the leading run of stable versions). No views or iterators: a protocol prunes after every put (Eventual
    // keeps one version), and the view and iterator objects were a fifth of a server's allocation.
    int removed = 0;
    byte[] oldest = versions.firstKey();
    while (true) {
      Map.Entry<byte[], R> next = versions.higherEntry(oldest);
      if (next == null || !stable.test(next.getValue())) {
        break;
      }
      versions.pollFirstEntry();
      removed++;
      oldest = next.getKey();
    }
    return removed;
  }

  @Override
  public int pruneRange(String key, byte[] from, byte[] below) {
    checkOpen();
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(below, "below");
    NavigableMap<byte[], R> versions = keys.get(Stores.checkKey(key));
    if (versions == null || Arrays.compareUnsigned(from, below) >= 0) {
      return 0;
    }
    NavigableMap<byte[], R> range = versions.subMap(from, true, below, false);
    int removed = range.size();
    range.clear();
    if (versions.isEmpty()) {
      keys.remove(key); // every value map is non-empty
    }
    return removed;
  }

  @Override
  public long keyCount() {
    checkOpen();
    return keys.size();
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
    return "InMemoryStore[" + type.type().getSimpleName() + ", " + keys.size() + " keys]";
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("store is closed");
    }
  }
}
