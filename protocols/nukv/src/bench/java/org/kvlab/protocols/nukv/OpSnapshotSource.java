package org.kvlab.protocols.nukv;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.kvlab.store.VersionedStore;

/**
 * SnapshotSource as issue 15's earlier sessions left it (commit 96ffde0), kept verbatim for NuKVSnapshotBench's
 * "before" implementations ({@code parse}, {@code at-once}, {@code deferred}): it hands out each part as a
 * SnapshotPart of Op objects, shared with the last snapshot for unchanged keys, which the journal encodes again every
 * snapshot; changed keys are read from the store. The replica now uses {@link SnapshotSource} (parts as their
 * encodings, unchanged keys copied as bytes, changed keys' versions from the apply path).
 *
 * <p>What a NuKV replica's Raft snapshot lists, the newest version of every user key, kept cheap to take.
 *
 * <p>MicroRaft 0.7 takes a snapshot synchronously, on the node's event loop ({@code StateMachine.takeSnapshot}),
 * and holds its chunk objects in memory until the next one. A snapshot that read every key's newest version from
 * the store stalled the event loop for one store read per key (seconds at a million keys on JE). This source keeps,
 * for every key, the {@link Op} it put in the last snapshot, and forgets it when the key changes ({@link #add}): a
 * snapshot reads from the store only the keys changed since the last one (at most one per Raft commit in between,
 * so at most {@code snapshotEvery} of them) and hands out the same immutable Op objects for the others. The Ops are
 * shared with the snapshot MicroRaft holds, so keeping them costs no second copy of the values.
 *
 * <p>The snapshot's content is what a full read of the store would give: each key's newest version in the store at
 * the time of the snapshot (a key is re-read whenever the store may hold a newer version of it).
 */
final class OpSnapshotSource {
  private final VersionedStore<Stored> store;
  /** Every user key: the Op last put in a snapshot, or null if the key changed since (or was never snapshotted). */
  private final TreeMap<String, Op> ops = new TreeMap<>();
  private int lastReads;

  OpSnapshotSource(VersionedStore<Stored> store) {
    this.store = store;
  }

  /** {@code key} has a new version in the store (or may have): the next snapshot reads it again. */
  void add(String key) {
    ops.put(key, null);
  }

  /** Keys this replica holds. */
  int size() {
    return ops.size();
  }

  /** Store reads the last {@link #take} made (keys changed since the snapshot before it). */
  int lastReads() {
    return lastReads;
  }

  /**
   * Hands {@code chunks} the snapshot: parts of at most {@code chunkKeys} keys each, the first one with {@code sv}
   * (a single part, with sv only, if there is no key). {@code localWrite} gives a key's newest write made in this
   * replica's datacenter ({origin log index, HLC time}, or null), carried beside the key's newest version for the
   * forwarder's catch-up; it must change only together with {@link #add} of that key. Returns the number of parts.
   */
  int take(long[] sv, int chunkKeys, Function<String, long[]> localWrite, Consumer<Object> chunks) {
    SnapshotPart.Builder part = SnapshotPart.newBuilder();
    for (long x : sv) {
      part.addSv(x);
    }
    int parts = 0;
    int reads = 0;
    for (Map.Entry<String, Op> e : ops.entrySet()) {
      Op op = e.getValue();
      if (op == null) {
        reads++;
        Optional<Stored> newest = store.newest(e.getKey());
        if (newest.isEmpty()) {
          continue; // not stored (yet): read again next time
        }
        Op.Builder b = Op.newBuilder().setKey(e.getKey()).setVersion(newest.get().getVersion());
        long[] local = localWrite.apply(e.getKey());
        if (local != null) {
          b.setLocalIdx(local[0]).setLocalT(local[1]); // what a catch-up made from this snapshot must cover
        }
        op = b.build();
        e.setValue(op);
      }
      part.addOps(op);
      if (part.getOpsCount() >= chunkKeys) {
        chunks.accept(part.build());
        parts++;
        part = SnapshotPart.newBuilder();
      }
    }
    if (parts == 0 || part.getOpsCount() > 0) {
      chunks.accept(part.build());
      parts++;
    }
    lastReads = reads;
    return parts;
  }
}
