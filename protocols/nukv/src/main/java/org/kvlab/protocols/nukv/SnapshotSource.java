package org.kvlab.protocols.nukv;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.ExtensionRegistryLite;
import com.google.protobuf.UnsafeByteOperations;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.kvlab.api.Invariants;
import org.kvlab.store.VersionedStore;

/**
 * What a NuKV replica's Raft snapshot lists, the newest version of every user key, kept cheap to take.
 *
 * <p>MicroRaft 0.7 takes a snapshot synchronously, on the node's event loop ({@code StateMachine.takeSnapshot}),
 * persists its chunks there (the journal writes each as a record) and holds the chunk objects in memory until the
 * next one. Between two snapshots at most {@code snapshotEvery} keys change (one per Raft commit); the others are
 * listed again as they were. This source therefore hands out each part as its protobuf encoding (a
 * {@link ByteString}), which the journal and the InstallSnapshot messages carry as it is, and builds it from the last
 * snapshot's parts: for every key it keeps where the key's entry (its {@link Op} as a field of the part: tag, length,
 * encoding) lies in the part of the last snapshot that holds it, and a key that did not change since is copied from
 * there as bytes, neither re-read, re-built nor re-encoded. Only the changed keys are encoded, each with the newest
 * version the apply path put ({@link #put}, no store read), or, for a key this source has not seen since it was
 * created (a restart: the store may hold versions the replay has not put again yet), the store's newest version.
 *
 * <p>The parts are the ones MicroRaft holds, so keeping them costs nothing beyond the snapshot itself: its bytes
 * (about 94 per key with 64-byte values), not a graph of Op, Version and value objects. A part of the last snapshot
 * stays referenced until no key points into it (the next snapshot), so during a snapshot two of them are in memory.
 *
 * <p>The snapshot's content is byte for byte what encoding a full read of the store would give: each key's newest
 * version in the store at the time of the snapshot, with its newest local write; SnapshotSourceTest checks it.
 */
final class SnapshotSource {
  /** Not known: read the key's newest version from the store at the next snapshot. */
  private static final byte UNKNOWN = 0;
  /** The last snapshot's entry of the key is what the next one lists: copied as it is. */
  private static final byte CLEAN = 1;
  /** The key changed since the last snapshot (its newest version, or its local write): encoded again. */
  private static final byte DIRTY = 2;

  private final VersionedStore<Stored> store;
  /** Every user key this source saw put, in key order (the snapshot's order). */
  private final TreeMap<String, Slot> slots = new TreeMap<>();
  /** The part being built (reused). */
  private byte[] buf = new byte[1 << 16];
  private int pos;
  private int lastReads;
  private int lastEncoded;

  /** One key. */
  private static final class Slot {
    byte state = UNKNOWN;
    /** CLEAN, DIRTY: the newest version's (t, dc), the store's order. */
    long t;
    int dc;
    /** DIRTY: the newest version, if a put since the last snapshot gave it (else the last snapshot's is). */
    Version newest;
    /** CLEAN, DIRTY: the key's entry in the last snapshot (src[offset, offset + length): tag, length, Op). */
    byte[] src;
    int offset;
    int length;
  }

  SnapshotSource(VersionedStore<Stored> store) {
    this.store = store;
  }

  /**
   * The replica puts {@code version} of {@code key} into the store (every put of a user key must come here, with the
   * version put): the next snapshot encodes the key again. The store's newest version is the largest by (t, dc) of
   * what it held and what was put, so a key this source knows stays known; one it did not know (first seen now) is
   * read from the store by the next snapshot, which may hold a newer version put before this source existed.
   */
  void put(String key, Version version) {
    Slot s = slots.get(key);
    if (s == null) {
      slots.put(key, new Slot());
      return;
    }
    if (s.state == UNKNOWN) {
      return;
    }
    if (compare(version.getT(), version.getDc(), s.t, s.dc) >= 0) {
      s.newest = version;
      s.t = version.getT();
      s.dc = version.getDc();
    }
    s.state = DIRTY; // an older version too: the key's local write may have changed with it
  }

  /** Keys this replica holds. */
  int size() {
    return slots.size();
  }

  /**
   * Store reads the last {@link #take} made: keys first seen since the snapshot before it, and one changed key whose
   * newest version the apply path gave, checked against the store.
   */
  int lastReads() {
    return lastReads;
  }

  /** Keys the last {@link #take} encoded (changed since the snapshot before it); the others were copied. */
  int lastEncoded() {
    return lastEncoded;
  }

  /**
   * Hands {@code chunks} the snapshot as encoded {@link SnapshotPart}s: parts of at most {@code chunkKeys} keys each, the first
   * one with {@code sv} (a single part, with sv only, if there is no key). {@code localWrite} gives a key's newest
   * write made in this replica's datacenter ({origin log index, HLC time}, or null), carried beside the key's newest
   * version for the forwarder's catch-up; it must change only together with a {@link #put} of that key. Returns the
   * number of parts.
   */
  int take(long[] sv, int chunkKeys, Function<String, long[]> localWrite, Consumer<ByteString> chunks) {
    Invariants.check(chunkKeys > 0, "snapshot parts of %s keys", chunkKeys);
    pos = 0;
    SnapshotPart.Builder first = SnapshotPart.newBuilder();
    for (long x : sv) {
      first.addSv(x);
    }
    append(first.build()); // a message's fields then more fields of it: one message, sv first
    // The keys of the part being built and where their entries lie in it: the slots point there once it is complete
    // (until then they still point at the last snapshot's entries, which a failure here leaves intact).
    Slot[] inPart = new Slot[Math.min(chunkKeys, Math.max(1, slots.size()))];
    int[] offsets = new int[inPart.length];
    int n = 0;
    int parts = 0;
    int reads = 0;
    int encoded = 0;
    boolean checked = false;
    for (Map.Entry<String, Slot> e : slots.entrySet()) {
      Slot s = e.getValue();
      int start = pos;
      if (s.state == CLEAN) {
        ensure(s.length);
        System.arraycopy(s.src, s.offset, buf, pos, s.length);
        pos += s.length;
      } else {
        Version newest = s.newest;
        if (s.state == UNKNOWN) {
          reads++;
          Optional<Stored> stored = store.newest(e.getKey());
          if (stored.isEmpty()) {
            continue; // not stored (yet): read again next time
          }
          newest = stored.get().getVersion();
          s.t = newest.getT();
          s.dc = newest.getDc();
        } else if (newest == null) {
          newest = entry(s).getVersion(); // only older versions were put since: the last snapshot's is the newest
        } else if (!checked) {
          // The apply path's newest version is the store's: checked on one key a snapshot (one store read).
          checked = true;
          reads++;
          Version inStore = store.newest(e.getKey()).map(Stored::getVersion).orElse(null);
          Invariants.check(newest.equals(inStore), "snapshot source: key %s was last put at (%s, %s), the store's"
              + " newest is %s", e.getKey(), newest.getT(), newest.getDc(),
              inStore == null ? "none" : "(" + inStore.getT() + ", " + inStore.getDc() + ")");
        }
        Op.Builder op = Op.newBuilder().setKey(e.getKey()).setVersion(newest);
        long[] local = localWrite.apply(e.getKey());
        if (local != null) {
          op.setLocalIdx(local[0]).setLocalT(local[1]); // what a catch-up made from this snapshot must cover
        }
        appendEntry(op.build());
        encoded++;
      }
      inPart[n] = s;
      offsets[n] = start;
      n++;
      if (n == inPart.length) {
        chunks.accept(complete(inPart, offsets, n));
        parts++;
        n = 0;
      }
    }
    if (parts == 0 || n > 0) {
      chunks.accept(complete(inPart, offsets, n));
      parts++;
    }
    lastReads = reads;
    lastEncoded = encoded;
    return parts;
  }

  /** The part built so far, its keys' slots pointed at their entries in it; starts the next part. */
  private ByteString complete(Slot[] inPart, int[] offsets, int n) {
    byte[] bytes = Arrays.copyOf(buf, pos); // never changed after this: the next snapshot copies from it
    for (int i = 0; i < n; i++) {
      Slot s = inPart[i];
      s.src = bytes;
      s.offset = offsets[i];
      s.length = (i + 1 < n ? offsets[i + 1] : pos) - offsets[i];
      s.state = CLEAN;
      s.newest = null;
      inPart[i] = null;
    }
    pos = 0;
    return UnsafeByteOperations.unsafeWrap(bytes);
  }

  /** The Op a slot's entry in the last snapshot holds. */
  private static Op entry(Slot s) {
    try {
      CodedInputStream in = CodedInputStream.newInstance(s.src, s.offset, s.length);
      int tag = in.readTag();
      Invariants.check(tag == OPS_TAG, "snapshot source: an entry starts with tag %s, not %s", tag, OPS_TAG);
      return in.readMessage(Op.parser(), ExtensionRegistryLite.getEmptyRegistry());
    } catch (IOException e) {
      throw new Invariants.InvariantViolation("snapshot source: an entry does not parse: " + e.getMessage());
    }
  }

  private static final int OPS_TAG = (SnapshotPart.OPS_FIELD_NUMBER << 3) | 2; // length-delimited

  /** Appends {@code op} as an entry of the part: field ops (tag, length, encoding), as SnapshotPart writes it. */
  private void appendEntry(Op op) {
    int size = CodedOutputStream.computeMessageSize(SnapshotPart.OPS_FIELD_NUMBER, op);
    ensure(size);
    CodedOutputStream out = CodedOutputStream.newInstance(buf, pos, size);
    try {
      out.writeMessage(SnapshotPart.OPS_FIELD_NUMBER, op);
    } catch (IOException e) {
      throw new IllegalStateException("encoding into an array of its computed size", e);
    }
    out.checkNoSpaceLeft();
    pos += size;
  }

  private void append(SnapshotPart p) {
    int size = p.getSerializedSize();
    ensure(size);
    CodedOutputStream out = CodedOutputStream.newInstance(buf, pos, size);
    try {
      p.writeTo(out);
    } catch (IOException e) {
      throw new IllegalStateException("encoding into an array of its computed size", e);
    }
    out.checkNoSpaceLeft();
    pos += size;
  }

  private void ensure(int more) {
    if (pos + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(2 * buf.length, pos + more));
    }
  }

  /** The store's version order: (HLC timestamp, datacenter). */
  private static int compare(long t1, int dc1, long t2, int dc2) {
    return t1 != t2 ? Long.compare(t1, t2) : Integer.compare(dc1, dc2);
  }
}
