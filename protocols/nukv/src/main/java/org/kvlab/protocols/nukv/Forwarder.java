package org.kvlab.protocols.nukv;

import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.kvlab.api.BackPressureException;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.ServerContext;

/**
 * Alg 4.2's XC, the sending side: replica {@link NuKVServer#FORWARDER} of each group ships the writes committed in its
 * datacenter, in log order, to the group of the same partition in every other datacenter. Each write carries prev
 * (the origin index of the local write before it): a chain the receivers take in order ({@link ForwardReceiver}).
 * Writes stay in the outbox until every other datacenter acknowledged them; unacknowledged ones are resent after
 * {@code resendAfter}. After installing a snapshot (the log entries it covers are gone) the forwarder ships the
 * snapshot's local writes as one catch-up instead.
 *
 * <p>Failure detection: each other datacenter is reached through the replica its answers name as leader; one that
 * has not answered for {@code retargetAfter} is given up on for a while (see {@link #retarget}).
 */
final class Forwarder {
  private final ServerContext ctx;
  private final NuKVParams p;
  private final NodeId self;
  private final int d;
  private final long[] sv;
  /** This replica forwards: it is its group's forwarder, and there are other datacenters. */
  private final boolean active;
  // Committed local writes not yet acknowledged by every other datacenter, by origin log index.
  private final TreeMap<Long, Op> outbox = new TreeMap<>();
  // After installing a snapshot: the snapshot's local versions (they replace the log entries up to catchUpTo, the
  // snapshot's sv[d], which the outbox no longer has), shipped as one CatchUp to each datacenter still below it.
  private final TreeMap<Long, Op> catchUp = new TreeMap<>();
  private long catchUpTo;
  /** Whether each other datacenter answered since this start (a catch-up starts from what it says it has). */
  private final boolean[] heard;
  private final long[] acked;
  private final long[] sentUpTo;
  private final long[] lastSend;
  private final int[] remoteLeader;
  /** Since when (micros) the forwarder has sent each other datacenter something it has had no answer to (-1: none). */
  private final long[] unansweredSince;
  /** Per other datacenter: the replica given up on as its leader (-1: none), whose name in hints is ignored until
   * suspectUntil (micros) unless it answers itself (other replicas name a crashed leader until they elect another). */
  private final int[] suspect;
  private final long[] suspectUntil;

  Forwarder(ServerContext ctx, NuKVParams p, long[] sv) {
    this.ctx = ctx;
    this.p = p;
    this.self = ctx.self();
    this.d = self.dc();
    this.sv = sv;
    int dcs = sv.length;
    this.active = self.replica() == NuKVServer.FORWARDER && dcs > 1;
    acked = new long[dcs];
    sentUpTo = new long[dcs];
    lastSend = new long[dcs];
    remoteLeader = new int[dcs];
    unansweredSince = new long[dcs];
    Arrays.fill(unansweredSince, -1);
    suspect = new int[dcs];
    Arrays.fill(suspect, -1);
    suspectUntil = new long[dcs];
    heard = new boolean[dcs];
  }

  void start() {
    ctx.after(p.forwardPeriod, this::tick);
  }

  /** A local write committed (at {@code op}'s version's index, after {@code op.prev}): to be shipped. */
  void committed(Op op) {
    if (active) {
      outbox.put(op.getVersion().getIdx(), op);
    }
  }

  /**
   * A snapshot at {@code commitIndex} was installed whose sv[d] is {@code upTo}: the log entries up to it are gone,
   * and with them the chain of local writes up to upTo. What the other datacenters may still lack of it is shipped
   * as one CatchUp: each key written here up to upTo ({@code written}: by its last such write's index, with the
   * snapshot's newest version of the key, whatever its origin; see NuKVReplica's applyCatchUp). The newest version
   * may be newer than upTo (stored by a replica re-applying its log): newer, committed, harmless to ship. A key whose
   * only local writes came after upTo is not in it: the log after the snapshot has them, continuing the chain.
   */
  void installed(long commitIndex, long upTo, List<Op> written) {
    if (!active || upTo <= 0) {
      return;
    }
    catchUp.clear();
    for (Op op : written) {
      if (op.getLocalIdx() <= upTo) {
        Op before = catchUp.put(op.getLocalIdx(), op);
        Invariants.check(before == null, "snapshot at %s names write %s of this datacenter for keys %s and %s",
            commitIndex, op.getLocalIdx(), op.getKey(), before == null ? "" : before.getKey());
      }
    }
    catchUpTo = upTo;
    outbox.headMap(upTo, true).clear();
  }

  private void tick() {
    ctx.after(p.forwardPeriod, this::tick);
    if (outbox.isEmpty() && catchUp.isEmpty()) {
      return;
    }
    long now = ctx.clock().micros();
    long top = Math.max(outbox.isEmpty() ? 0 : outbox.lastKey(), catchUp.isEmpty() ? 0 : catchUpTo);
    for (int other = 0; other < sv.length; other++) {
      if (other == d) {
        continue;
      }
      if (unansweredSince[other] >= 0 && now - unansweredSince[other] >= p.retargetAfter.toNanos() / 1000) {
        retarget(other, now);
      }
      boolean fresh = top > sentUpTo[other];
      boolean resend = acked[other] < sentUpTo[other] && now - lastSend[other] >= p.resendAfter.toNanos() / 1000;
      if (!fresh && !resend) {
        continue;
      }
      long from = resend ? acked[other] : sentUpTo[other];
      long upTo = from;
      NodeId to = NodeId.of(other, self.partition(), Math.max(0, remoteLeader[other]));
      Replicate.Builder batch = Replicate.newBuilder().setOrigin(d);
      if (!catchUp.isEmpty() && from < catchUpTo && acked[other] < catchUpTo) {
        if (!heard[other]) {
          // A probe (no ops): learn what the other datacenter has, so the catch-up starts there.
          if (now - lastSend[other] >= p.resendAfter.toNanos() / 1000) {
            trySend(to, batch.build(), other, now);
          }
          continue;
        }
        batch.setCatchUp(CatchUp.newBuilder().setOrigin(d).setBase(acked[other]).setUpTo(catchUpTo)
            .addAllOps(catchUp.tailMap(acked[other], false).values()));
        from = catchUpTo;
        upTo = catchUpTo;
      }
      for (Op op : outbox.tailMap(from, false).values()) {
        if (batch.getOpsCount() >= p.batch) {
          break;
        }
        batch.addOps(op);
        upTo = op.getVersion().getIdx();
      }
      if (!batch.hasCatchUp() && batch.getOpsCount() == 0) {
        continue;
      }
      if (trySend(to, batch.build(), other, now)) {
        sentUpTo[other] = upTo;
      }
    }
  }

  /**
   * The replica of {@code other}'s group this forwarder sends to has not answered for {@code retargetAfter} (down,
   * or cut off): send to the next replica from now on, and resend from what {@code other} acknowledged. A follower
   * refuses (rewind) and names its leader; hints naming the replica given up on are ignored for heartbeatTimeout +
   * electionTimeout (the group's followers name a crashed leader until they have elected another), unless that replica
   * answers itself. So forwarding resumes once the group has a leader again, not once the old one restarts.
   */
  private void retarget(int other, long now) {
    unansweredSince[other] = -1;
    int replicas = ctx.topology().replicas();
    if (replicas < 2) {
      return; // nobody else to ask: the forwarder keeps resending to the only replica
    }
    int left = Math.max(0, remoteLeader[other]);
    suspect[other] = left;
    suspectUntil[other] = now + (p.heartbeatTimeout.toNanos() + p.electionTimeout.toNanos()) / 1000;
    remoteLeader[other] = next(other, left, now);
    sentUpTo[other] = acked[other]; // what the new target may lack: everything not acknowledged
    lastSend[other] = 0; // send (or probe) at once
    ctx.metrics().count("nukv.forward.retarget");
    ctx.log().debug("{}: no answer from {} for {} ms, forwarding to datacenter {} through replica {}", self,
        NodeId.of(other, self.partition(), left), p.retargetAfter.toMillis(), other, remoteLeader[other]);
  }

  /** The replica of {@code other}'s group after {@code replica}, skipping the one given up on while it is suspected. */
  private int next(int other, int replica, long now) {
    int n = ctx.topology().replicas();
    int next = (replica + 1) % n;
    if (next == suspect[other] && now < suspectUntil[other] && n > 2) {
      next = (next + 1) % n;
    }
    return next;
  }

  private boolean trySend(NodeId to, Replicate batch, int other, long now) {
    if (unansweredSince[other] < 0) {
      unansweredSince[other] = now; // a send that fails (unreachable) counts as unanswered too
    }
    try {
      ctx.send(to, batch);
      lastSend[other] = now;
      return true;
    } catch (BackPressureException e) {
      return false; // the other datacenter is unreachable for long: retry on a later tick
    }
  }

  void onReplicateAck(ReplicateAck m, NodeId from) {
    int other = from.dc();
    if (m.getOrigin() != d || other == d || from.partition() != self.partition()
        || self.replica() != NuKVServer.FORWARDER) {
      return;
    }
    heard[other] = true;
    unansweredSince[other] = -1;
    if (from.replica() == suspect[other]) {
      suspect[other] = -1; // it answers: not down after all (a partition, a slow link)
    }
    acked[other] = Math.max(acked[other], m.getCommitted());
    if (m.getLeader() >= 0 && m.getLeader() < ctx.topology().replicas()) {
      if (m.getLeader() != suspect[other] || ctx.clock().micros() >= suspectUntil[other]) {
        remoteLeader[other] = m.getLeader();
      } // else a stale hint (the replica given up on): stay with this one until the group names another
    } else if (from.replica() == Math.max(0, remoteLeader[other])) {
      remoteLeader[other] = next(other, from.replica(), ctx.clock().micros()); // no leader known there: try the next
    }
    if (m.getRewind() || sentUpTo[other] < acked[other]) {
      sentUpTo[other] = acked[other]; // not taken (not the ready leader, or out of order): send again from acked
    }
    long min = Long.MAX_VALUE;
    for (int i = 0; i < acked.length; i++) {
      if (i != d) {
        min = Math.min(min, acked[i]);
      }
    }
    outbox.headMap(min, true).clear();
    if (min >= catchUpTo) {
      catchUp.clear();
    }
  }
}
