package org.kvlab.sim;

import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.kvlab.api.RecordType;
import org.kvlab.store.Durability;
import org.kvlab.store.InMemoryStore;
import org.kvlab.store.VersionedStore;

/**
 * The simulator's store: an in-memory store that can lose its unsynced writes in a crash. Under
 * {@code sync} every write is durable at once (the real runtime holds replies until an fsync covers
 * them, so no acknowledged write can be lost); under {@code none} writes become durable only at the
 * periodic background flush, and a crash rolls the store back to the last flush.
 */
final class SimStore<R extends Message> implements VersionedStore<R> {
  private final RecordType<R> type;
  private final Durability durability;
  private final List<Op<R>> ops = new ArrayList<>();
  private int durable; // ops[0..durable) survive a crash
  private InMemoryStore<R> live;
  private long changes; // puts, prunes and crashes so far: tells observers whether the contents may have changed

  /** A put (record), a prune (prune) or a prune by version key (from, below). */
  private record Op<R>(String key, R record, Predicate<? super R> prune, byte[] from, byte[] below) {}

  SimStore(RecordType<R> type, Durability durability) {
    this.type = type;
    this.durability = durability;
    this.live = new InMemoryStore<>(type);
  }

  @Override
  public void put(String key, R record) {
    live.put(key, record);
    changes++;
    ops.add(new Op<>(key, record, null, null, null));
    if (durability == Durability.SYNC) {
      durable = ops.size();
    }
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
      changes++;
      ops.add(new Op<>(key, null, stable, null, null));
      if (durability == Durability.SYNC) {
        durable = ops.size();
      }
    }
    return removed;
  }

  @Override
  public int pruneRange(String key, byte[] from, byte[] below) {
    int removed = live.pruneRange(key, from, below);
    if (removed > 0) {
      changes++;
      ops.add(new Op<>(key, null, null, from.clone(), below.clone()));
      if (durability == Durability.SYNC) {
        durable = ops.size();
      }
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

  /** The periodic background flush (durability none). */
  void flush() {
    durable = ops.size();
  }

  /** A crash: everything after the last flush is gone; the store is rebuilt from the durable prefix. */
  void crash() {
    changes++;
    List<Op<R>> kept = new ArrayList<>(ops.subList(0, durable));
    ops.clear();
    live = new InMemoryStore<>(type);
    for (Op<R> op : kept) {
      if (op.record() != null) {
        live.put(op.key(), op.record());
      } else if (op.prune() != null) {
        live.prune(op.key(), op.prune());
      } else {
        live.pruneRange(op.key(), op.from(), op.below());
      }
      ops.add(op);
    }
    durable = ops.size();
  }

  @Override
  public void sync() {
    durable = ops.size();
  }

  @Override
  public void close() {}
}
