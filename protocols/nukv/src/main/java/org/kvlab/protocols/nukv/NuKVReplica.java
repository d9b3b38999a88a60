package org.kvlab.protocols.nukv;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.kvlab.api.Invariants;
import org.kvlab.api.ServerContext;
import org.kvlab.clock.HybridLogicalClock;
import org.kvlab.consensus.raft.RaftGroup;

/**
 * A NuKV replica's state, as its Raft group's commits build it (Alg 4.2 "on commit"): the newest versions of the
 * keys in the store, the stable vector {@code sv}, and the HLC every applied version updates. Writes of this
 * datacenter are applied in log order; writes a forwarder shipped from another datacenter are applied in the
 * origin's order (each right after its predecessor, Lemma 1); a snapshot lists the newest version of every key.
 */
final class NuKVReplica implements RaftGroup.Machine<Op> {
  private final ServerContext ctx;
  private final NuKVParams p;
  private final int d;
  /** Stable vector: sv[i] = highest origin log index of DC i's writes committed (applied) here. */
  final long[] sv;
  final HybridLogicalClock hlc;
  /**
   * Every user key this replica holds (a snapshot lists their newest versions, encoding only the keys changed since
   * the last snapshot and copying the others' encodings from it); every put of a user key into the store is passed to
   * it with the version put. Rebuilt by a restart's replay.
   */
  private final SnapshotSource keys;
  /**
   * Per key, the newest write of it made in this datacenter, as {origin log index, HLC time}, over what is applied.
   * A snapshot carries it beside each key's newest version, so that a forwarder's catch-up covers a key whose newest
   * version came from a third datacenter (see applyCatchUp). Every change of an entry comes with {@code keys.put}.
   */
  private final HashMap<String, long[]> lastLocal = new HashMap<>();
  private Forwarder forwarder;
  private ForwardReceiver receiver;

  NuKVReplica(ServerContext ctx, NuKVParams p) {
    this.ctx = ctx;
    this.p = p;
    this.d = ctx.self().dc();
    this.sv = new long[ctx.topology().datacenters()];
    this.hlc = new HybridLogicalClock(ctx.clock());
    this.keys = new SnapshotSource(ctx.store());
  }

  /**
   * What each commit informs: the forwarder (this replica's local writes) and the receiver. Requests waiting for sv
   * need no call: the host re-checks their conditions after every event ({@code waitUntil}).
   */
  void wire(Forwarder forwarder, ForwardReceiver receiver) {
    this.forwarder = forwarder;
    this.receiver = receiver;
  }

  private void store(String key, Version v) {
    ctx.<Stored>store().put(key, Stored.newBuilder().setVersion(v).build());
    keys.put(key, v);
  }

  @Override
  public void apply(long commitIndex, Op op) {
    if (op.getNewTerm()) {
      return; // a new leader's no-op, in a journal written before the group marked it in the entry
    }
    if (op.hasCatchUp()) {
      applyCatchUp(op.getCatchUp());
      return;
    }
    Version v = op.getVersion();
    int origin = v.getDc();
    Invariants.check(origin >= 0 && origin < sv.length, "write from datacenter %s outside the topology", origin);
    if (origin == d) {
      Invariants.check(commitIndex > sv[d], "local commit index %s not above sv[%s] = %s", commitIndex, d, sv[d]);
      Version stored = v.toBuilder().setIdx(commitIndex).build();
      store(op.getKey(), stored);
      lastLocal.put(op.getKey(), new long[] {commitIndex, v.getT()});
      long prev = sv[d]; // sv[d] is the index of the last local write (or 0): this write's predecessor
      sv[d] = commitIndex;
      forwarder.committed(Op.newBuilder().setKey(op.getKey()).setVersion(stored).setPrev(prev).build());
      hlc.update(v.getT());
    } else {
      // Lemma 1, enforced: sv[origin] is the index of the last write of origin applied here, and every write of
      // origin up to it is applied (the writes form a chain by prev). A forwarded write is applied only right after
      // its predecessor. The leader appends only writes that follow on from what it has (ForwardReceiver), so the
      // log can hold two other cases: a write at or below sv[origin] (a duplicate; harmless) and a write whose
      // predecessor is missing because MicroRaft refused the predecessor's entry (too many uncommitted entries,
      // leadership lost) after the leader had handed both to it. Such a write is skipped: applying it would raise
      // sv[origin] over the missing write. The forwarder resends both and they are appended again in order.
      long have = sv[origin];
      if (v.getIdx() <= have) {
        ctx.metrics().count("nukv.forward.duplicate");
      } else if (op.getPrev() != have) {
        // prev < have < idx would mean a write of origin between a write and its predecessor: the chain is broken.
        Invariants.check(op.getPrev() > have, "forwarded write %s of datacenter %s follows %s, but %s, between them,"
            + " is applied already", v.getIdx(), origin, op.getPrev(), have);
        ctx.metrics().count("nukv.forward.gapSkipped");
      } else {
        store(op.getKey(), v);
        sv[origin] = v.getIdx();
        // From the origin leader's stamp to this commit (ms, HLC granularity): the forwarding lag sessions wait for.
        ctx.metrics().record("nukv.forward.lagMillis",
            Math.max(0, ctx.clock().millis() - HybridLogicalClock.l(v.getT())));
        hlc.update(v.getT());
        receiver.applied(origin);
      }
    }
  }

  /**
   * A forwarded snapshot segment: for every key the origin wrote after {@code base} up to {@code upTo}, the origin
   * snapshot's newest version of the key, whatever datacenter it came from, and the origin's newest write of it
   * (local_idx, local_t). Applied as one step, and only if this replica holds every write of the origin up to base
   * (else skipped, like a write whose predecessor is missing); then sv[origin] = upTo, and the stable vector's promise
   * holds and is checked per key: this replica holds a version at least as new as every write of the origin up to
   * upTo (the origin's writes of one key have increasing timestamps, so its newest one up to upTo is the bar).
   *
   * <p>With three or more datacenters the snapshot's newest version of a key the origin wrote may be a third
   * datacenter's (its write superseded the origin's before the snapshot), and this replica may not have it yet (that
   * datacenter's forwarder lags): it is stored as it is (a committed version, the newest by (t, dc) wins, idempotent)
   * without touching sv of its datacenter, whose own forwarder's chain raises that.
   */
  private void applyCatchUp(CatchUp cu) {
    int origin = cu.getOrigin();
    Invariants.check(origin >= 0 && origin < sv.length && origin != d, "catch-up from datacenter %s", origin);
    long have = sv[origin];
    if (cu.getUpTo() <= have) {
      ctx.metrics().count("nukv.forward.duplicate");
    } else if (cu.getBase() > have) {
      ctx.metrics().count("nukv.forward.gapSkipped");
    } else {
      for (Op o : cu.getOpsList()) {
        Version v = o.getVersion();
        String key = o.getKey();
        Invariants.check(v.getDc() >= 0 && v.getDc() < sv.length, "catch-up of datacenter %s holds a version of"
            + " key %s from datacenter %s, outside the topology", origin, key, v.getDc());
        long[] local = localWrite(o, origin);
        // (An entry without local_idx, from a journal written before it existed, is the origin's own version, which
        // could be newer than upTo: only its lower bound is checked.)
        Invariants.check(local != null && local[0] > cu.getBase() && (o.getLocalIdx() == 0
            || local[0] <= cu.getUpTo()), "catch-up of datacenter %s (%s..%s] ships key %s for its write at %s,"
            + " outside it", origin, cu.getBase(), cu.getUpTo(), key, local == null ? "none" : local[0]);
        Invariants.check(compare(v.getT(), v.getDc(), local[1], origin) >= 0, "catch-up of datacenter %s ships"
            + " key %s at (%s, %s), older than its own write (%s, %s)", origin, key, v.getT(), v.getDc(), local[1],
            origin);
        Optional<Stored> mine = ctx.<Stored>store().newest(key);
        if (mine.isEmpty() || compare(mine.get().getVersion(), v) < 0) {
          store(key, v);
          hlc.update(v.getT());
          if (v.getDc() != origin) {
            ctx.metrics().count("nukv.forward.catchUpThirdOrigin");
          }
        }
        Version held = ctx.<Stored>store().newest(key).orElseThrow().getVersion();
        Invariants.check(compare(held.getT(), held.getDc(), local[1], origin) >= 0, "after a catch-up of datacenter"
            + " %s up to %s, key %s is at (%s, %s), older than that datacenter's write (%s, %s) it covers", origin,
            cu.getUpTo(), key, held.getT(), held.getDc(), local[1], origin);
      }
      sv[origin] = cu.getUpTo();
      ctx.metrics().count("nukv.forward.catchUpApplied");
      receiver.applied(origin);
    }
  }

  /**
   * The newest write of {@code op}'s key made in datacenter {@code dc} that a snapshot or catch-up entry names, as
   * {origin log index, HLC time}; an entry without one (local_idx 0) names its own version if that is dc's; else null.
   */
  private static long[] localWrite(Op op, int dc) {
    if (op.getLocalIdx() > 0) {
      return new long[] {op.getLocalIdx(), op.getLocalT()};
    }
    Version v = op.getVersion();
    return v.getDc() == dc && v.getIdx() > 0 ? new long[] {v.getIdx(), v.getT()} : null;
  }

  /** The store's version order: (HLC timestamp, datacenter). */
  private static int compare(long t1, int dc1, long t2, int dc2) {
    return t1 != t2 ? Long.compare(t1, t2) : Integer.compare(dc1, dc2);
  }

  private static int compare(Version a, Version b) {
    return compare(a.getT(), a.getDc(), b.getT(), b.getDc());
  }

  /**
   * A snapshot at {@code commitIndex}: sv, then the newest version of every key, {@code snapshotChunkKeys} keys a
   * part, each handed over as its encoding (see {@link SnapshotSource}). The group takes it right after applying
   * {@code commitIndex}, so sv is the state at that index; the store may hold versions committed later (a restarted
   * replica re-applying its log), which are committed writes too, and a replica that installs them answers reads of
   * them with their own index (see NuKVServer's GET).
   */
  @Override
  public void takeSnapshot(long commitIndex, Consumer<ByteString> parts) {
    keys.take(sv, p.snapshotChunkKeys, lastLocal::get, parts);
    ctx.metrics().count("nukv.snapshot.taken");
    ctx.metrics().record("nukv.snapshot.keys", keys.size());
    ctx.metrics().record("nukv.snapshot.keysRead", keys.lastReads()); // store reads on the event loop
    ctx.metrics().record("nukv.snapshot.keysEncoded", keys.lastEncoded()); // the others are copied as bytes
  }

  /**
   * Installs a snapshot (a lagging replica receiving the leader's, or a restart restoring its own): its versions go
   * into the store (the same records as a replay would put: idempotent), sv covers its sv. The forwarder ships the
   * snapshot's local writes to each other datacenter still below the snapshot's sv[d] as one catch-up (see
   * applyCatchUp): it no longer has the log entries they came from.
   */
  @Override
  public void installSnapshot(long commitIndex, List<ByteString> parts, boolean restored) {
    long[] at = null;
    List<Op> written = new ArrayList<>(); // keys written in this datacenter, each with its newest version and write
    for (ByteString bytes : parts) {
      SnapshotPart part = parse(commitIndex, bytes);
      if (part.getSvCount() > 0) {
        Invariants.check(part.getSvCount() == sv.length, "snapshot at %s has sv of %s datacenters, the topology %s",
            commitIndex, part.getSvCount(), sv.length);
        at = new long[sv.length];
        for (int i = 0; i < at.length; i++) {
          at[i] = part.getSv(i);
        }
      }
      for (Op op : part.getOpsList()) {
        Version v = op.getVersion();
        Invariants.check(v.getDc() >= 0 && v.getDc() < sv.length, "snapshot write from datacenter %s", v.getDc());
        store(op.getKey(), v);
        hlc.update(v.getT());
        long[] w = localWrite(op, d);
        if (w != null) {
          Invariants.check(compare(v.getT(), v.getDc(), w[1], d) >= 0, "snapshot at %s has key %s at (%s, %s),"
              + " older than its write (%s, %s) in this datacenter", commitIndex, op.getKey(), v.getT(), v.getDc(),
              w[1], d);
          lastLocal.merge(op.getKey(), w, (a, b) -> a[0] >= b[0] ? a : b);
          written.add(op.toBuilder().setLocalIdx(w[0]).setLocalT(w[1]).build());
        }
      }
    }
    Invariants.check(at != null, "snapshot at %s has no sv", commitIndex);
    Invariants.check(at[d] <= commitIndex, "snapshot at %s has sv[%s] = %s beyond it", commitIndex, d, at[d]);
    for (int i = 0; i < sv.length; i++) {
      sv[i] = Math.max(sv[i], at[i]);
    }
    forwarder.installed(commitIndex, at[d], written);
    ctx.metrics().count(restored ? "nukv.snapshot.restored" : "nukv.snapshot.installed");
  }

  private static SnapshotPart parse(long commitIndex, ByteString bytes) {
    try {
      return SnapshotPart.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new Invariants.InvariantViolation("NuKV snapshot at " + commitIndex + ": a part of " + bytes.size()
          + " bytes does not parse: " + e.getMessage());
    }
  }
}
