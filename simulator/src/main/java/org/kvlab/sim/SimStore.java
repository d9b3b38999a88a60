package org.kvlab.sim;

import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.kvlab.api.RecordType;
import org.kvlab.store.Durability;
import org.kvlab.store.InMemoryStore;
import org.kvlab.store.VersionedStore;

/**
 * The simulator's store: an in-memory store that can lose its unsynced writes in a crash. Under
 * {@code sync} every write is durable at once (the real runtime holds replies until an fsync covers
 * them, so no acknowledged write can be lost), and a crash keeps everything; under {@code none} writes
 * become durable only at the periodic background flush, and a crash rolls the store back to the last
 * flush.
 *
 * <p>Memory: it keeps the live contents and, under {@code none}, the contents at the last flush (sharing
 * the records) and the changes since; never a log of every write, which would hold every version a
 * protocol ever wrote and pruned (a long run of large values ran out of heap that way).
 */
final class SimStore<R extends Message> implements VersionedStore<R> {
  private final RecordType<R> type;
  private final Durability durability;
  private InMemoryStore<R> live;
  /** Under none: the contents at the last flush and the keys they hold (null under sync). */
  private final InMemoryStore<R> flushed;
  private final Set<String> flushedKeys = new HashSet<>();
  /** Under none: the changes since the last flush, in order. */
  private final List<Op<R>> pending = new ArrayList<>();
  private long changes; // puts, prunes and crashes so far: tells observers whether the contents may have changed

  /** A put (record), a prune (prune) or a prune by version key (from, below). */
  private record Op<R>(String key, R record, Predicate<? super R> prune, byte[] from, byte[] below) {}

  SimStore(RecordType<R> type, Durability durability) {
    this.type = type;
    this.durability = durability;
    this.live = new InMemoryStore<>(type);
    this.flushed = durability == Durability.SYNC ? null : new InMemoryStore<>(type);
  }

  private void changed(Op<R> op) {
    changes++;
    if (flushed != null) {
      pending.add(op);
    }
  }

  @Override
  public void put(String key, R record) {
    live.put(key, record);
    changed(new Op<>(key, record, null, null, null));
  }

  @Override
  public Optional<R> newest(String key, Predicate<? super R> filter) {
    return live.newest(key, filter);
  }

  @Override
  public List<R> versions(String key) {
    return live.versions(key);
  }

  @Override
  public int prune(String key, Predicate<? super R> stable) {
    int removed = live.prune(key, stable);
    if (removed > 0) {
      changed(new Op<>(key, null, stable, null, null));
    }
    return removed;
  }

  @Override
  public int pruneRange(String key, byte[] from, byte[] below) {
    int removed = live.pruneRange(key, from, below);
    if (removed > 0) {
      changed(new Op<>(key, null, null, from.clone(), below.clone()));
    }
    return removed;
  }

  @Override
  public long keyCount() {
    return live.keyCount();
  }

  /** A count that grows whenever the contents may have changed. */
  long changes() {
    return changes;
  }

  /** The periodic background flush (durability none): the changes since the last one become durable. */
  void flush() {
    if (flushed == null) {
      return;
    }
    for (Op<R> op : pending) {
      if (op.record() != null) {
        flushed.put(op.key(), op.record());
        flushedKeys.add(op.key());
      } else if (op.prune() != null) {
        flushed.prune(op.key(), op.prune());
      } else {
        flushed.pruneRange(op.key(), op.from(), op.below());
      }
    }
    pending.clear();
  }

  /** A crash: everything after the last flush is gone (nothing under sync); the store is what was flushed. */
  void crash() {
    changes++;
    if (flushed == null) {
      return;
    }
    pending.clear();
    live = new InMemoryStore<>(type);
    for (String key : flushedKeys) {
      for (R r : flushed.versions(key)) {
        live.put(key, r);
      }
    }
  }

  @Override
  public void sync() {
    flush();
  }

  @Override
  public void close() {}
}
