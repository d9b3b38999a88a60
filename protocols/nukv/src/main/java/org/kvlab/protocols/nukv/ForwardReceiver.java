package org.kvlab.protocols.nukv;

import java.util.Arrays;
import org.kvlab.api.BackPressureException;
import org.kvlab.api.NodeId;
import org.kvlab.api.ServerContext;
import org.kvlab.consensus.raft.RaftGroup;

/**
 * Alg 4.2's XC, the receiving side: the group's ready leader appends the writes another datacenter's forwarder ships,
 * each only right after its predecessor in the origin's chain, and answers with what it has committed of the origin
 * (sv[origin]) and its leader hint.
 */
final class ForwardReceiver {
  private final ServerContext ctx;
  private final NodeId self;
  private final int d;
  private final long[] sv;
  private final RaftGroup<Op> raft;
  // The origin index of the last write of each origin handed to Raft in the current term (the end of the chain
  // appended so far; lowered again when the group refuses an entry).
  private final long[] appended;
  private int appendedTerm = -1;

  ForwardReceiver(ServerContext ctx, long[] sv, RaftGroup<Op> raft) {
    this.ctx = ctx;
    this.self = ctx.self();
    this.d = self.dc();
    this.sv = sv;
    this.raft = raft;
    this.appended = new long[sv.length];
  }

  /** A write of {@code origin} was applied here: the origin's forwarder learns it from the leader. */
  void applied(int origin) {
    if (raft.isReadyLeader()) {
      sendAck(origin);
    }
  }

  /**
   * A forwarder's batch (Alg 4.2's XC to another datacenter). Only the group's ready leader appends, and only writes
   * that follow on from what it has: a write whose prev is the last write of its origin this replica applied or
   * appended. Anything else stops the batch and the answer asks the forwarder to resend from what this replica has
   * committed.
   */
  void onReplicate(Replicate m, NodeId from) {
    int origin = m.getOrigin();
    if (origin < 0 || origin >= sv.length || origin == d || from.dc() != origin
        || from.partition() != self.partition()) {
      ctx.log().warn("{}: dropping a Replicate from {} claiming origin {}", self, from, origin);
      return;
    }
    boolean took = false;
    if (raft.isReadyLeader()) {
      int term = raft.term();
      if (term != appendedTerm) {
        // Everything committed before this term is applied (the leader is ready), nothing of this term appended yet.
        Arrays.fill(appended, 0);
        appendedTerm = term;
      }
      long expected = Math.max(sv[origin], appended[origin]); // the last write of origin this leader has
      took = true;
      if (m.hasCatchUp()) {
        CatchUp cu = m.getCatchUp();
        if (cu.getOrigin() != origin) {
          ctx.log().warn("{}: dropping a Replicate from {} whose catch-up claims origin {}", self, from,
              cu.getOrigin());
          return;
        }
        if (cu.getUpTo() > expected) {
          if (cu.getBase() <= expected) {
            append(origin, Op.newBuilder().setCatchUp(cu).build(), expected, cu.getUpTo());
            expected = cu.getUpTo();
          } else {
            took = false;
          }
        }
      }
      for (Op op : m.getOpsList()) {
        if (!took) {
          break;
        }
        long idx = op.getVersion().getIdx();
        if (op.getVersion().getDc() != origin || op.hasCatchUp()) {
          ctx.log().warn("{}: dropping the rest of a Replicate from {} (origin {}): a write of datacenter {}", self,
              from, origin, op.getVersion().getDc());
          took = false;
        } else if (idx <= expected) {
          continue; // a resend of a write this replica has (or has appended)
        } else if (op.getPrev() != expected) {
          took = false; // its predecessor is not here: a batch went missing or was dropped before this one
        } else {
          append(origin, op, expected, idx);
          expected = idx;
        }
      }
    }
    if (!took) {
      ctx.metrics().count("nukv.forward.rewind");
    }
    sendAckTo(from, origin, !took);
  }

  /**
   * Hands a forwarded entry to the group: the origin's chain is then appended up to {@code upTo}. If it fails, the
   * chain appended ends at {@code before} again, so the forwarder's resend is taken; entries handed over after it that
   * the group did append are skipped when applied (their predecessor is missing).
   */
  private void append(int origin, Op op, long before, long upTo) {
    appended[origin] = upTo;
    int term = appendedTerm;
    raft.propose(op, (index, failure) -> {
      if (failure != null && term == appendedTerm) {
        appended[origin] = Math.min(appended[origin], before);
        ctx.metrics().count("nukv.forward.refused");
      }
    });
  }

  private void sendAck(int origin) {
    sendAckTo(NodeId.of(origin, self.partition(), NuKVServer.FORWARDER), origin, false);
  }

  private void sendAckTo(NodeId to, int origin, boolean rewind) {
    try {
      ctx.send(to, ReplicateAck.newBuilder().setOrigin(origin).setCommitted(sv[origin]).setLeader(leaderHint())
          .setRewind(rewind).build());
    } catch (BackPressureException e) {
      // the forwarder resends and asks again
    }
  }

  private int leaderHint() {
    NodeId leader = raft.leader();
    return leader == null ? -1 : leader.replica();
  }
}
