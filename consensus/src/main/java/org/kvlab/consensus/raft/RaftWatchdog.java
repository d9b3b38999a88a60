package org.kvlab.consensus.raft;

import io.microraft.RaftEndpoint;
import io.microraft.persistence.RestoredRaftState;
import java.util.Objects;
import org.kvlab.api.Invariants;
import org.kvlab.api.ServerContext;

/**
 * Rebuilds a replica's RaftNode from its journal when the node shows no life: it heard no leader of its term (an
 * AppendEntries or InstallSnapshot request), sent no pre-vote or vote request and was not the leader for {@link
 * #stallAfterMicros}, longer than a follower whose leader went silent takes to start an election.
 *
 * <p>MicroRaft 0.7's follower check starts a pre-vote on a leader timeout only while the node holds no pre-candidate
 * state, and only a term change (or becoming candidate or leader) clears one; a replica that restarts, starts a
 * pre-vote and then hears the leader of the same term keeps that state for the rest of the term. If every follower
 * of a group is in it when the leader crashes, none starts an election. A node rebuilt from the journal holds no
 * pre-candidate state and starts a pre-vote at once. The journal is MicroRaft's persistent state (term, vote, log,
 * snapshot), so the rebuilt node keeps what it acknowledged and its vote; the replica's applied state stays, and the
 * entries the new node applies again are skipped ({@link RaftGroup#applied}). docs/protocols.md (NuKV) tells how the
 * stall was found.
 */
final class RaftWatchdog {
  /** MicroRaft's leader heartbeat period (its followers check the leader's heartbeats this often, too). */
  static final int HEARTBEAT_PERIOD_SECS = 1;
  /** MicroRaft 0.7 adds up to this much at random to each election timeout (LEADER_ELECTION_TIMEOUT_NOISE_MILLIS). */
  private static final long ELECTION_NOISE_MICROS = 100_000;

  private final ServerContext ctx;
  private final RaftGroup<?> group;
  private final RaftGroup.Settings settings;
  /** The last time (micros) the node showed life (or was built). */
  private long alive;
  private int rebuilds;

  RaftWatchdog(ServerContext ctx, RaftGroup<?> group, RaftGroup.Settings settings) {
    this.ctx = ctx;
    this.group = group;
    this.settings = settings;
  }

  void start() {
    ctx.after(settings.electionTimeout(), this::check);
  }

  /** The node shows life now. */
  void alive() {
    alive = ctx.clock().micros();
  }

  /** RaftNodes rebuilt since the server started. */
  int rebuilds() {
    return rebuilds;
  }

  /**
   * A follower whose leader went silent starts a pre-vote within heartbeatTimeout + one heartbeat period (its leader
   * check runs once a period), and while it knows no leader it starts another one every election timeout plus up to
   * 100 ms at random; a candidate sends vote requests as often. Two such rounds more are the margin.
   */
  long stallAfterMicros() {
    return (settings.heartbeatTimeoutSecs() + HEARTBEAT_PERIOD_SECS) * 1_000_000L
        + 2 * (settings.electionTimeout().toNanos() / 1000 + ELECTION_NOISE_MICROS);
  }

  private void check() {
    ctx.after(settings.electionTimeout(), this::check);
    long now = ctx.clock().micros();
    if (group.isLeader()) {
      alive = now;
      return;
    }
    long quiet = now - alive;
    if (quiet < stallAfterMicros()) {
      return;
    }
    rebuilds++;
    ctx.metrics().count(settings.metricPrefix() + ".raft.rebuilt");
    var node = group.node;
    ctx.log().warn("{}: its Raft node heard no leader and started no election for {} ms (term {}, leader named {}):"
        + " rebuilding it from its journal", group.self, quiet / 1000, node.getTerm().getTerm(),
        node.getTerm().getLeaderEndpoint());
    int term = node.getTerm().getTerm();
    RaftEndpoint voted = node.getTerm().getVotedEndpoint();
    node.terminate(); // this node only (not the group): its tasks stop, and messages go to the new node from now on
    RestoredRaftState restored = group.journal.restored();
    Invariants.check(restored != null, "%s: a Raft node ran, but its journal holds no endpoint and members",
        group.self);
    Invariants.check(restored.getTermPersistentState().getTerm() == term
        && Objects.equals(restored.getTermPersistentState().getVotedFor(), voted),
        "%s: the journal restores term %s voted for %s, the node was at term %s voted for %s", group.self,
        restored.getTermPersistentState().getTerm(), restored.getTermPersistentState().getVotedFor(), term, voted);
    long last = restored.getLogEntries().isEmpty()
        ? (restored.getSnapshotEntry() == null ? 0 : restored.getSnapshotEntry().getIndex())
        : restored.getLogEntries().get(restored.getLogEntries().size() - 1).getIndex();
    Invariants.check(last >= group.applied(), "%s: the journal ends at entry %s, this replica applied up to %s",
        group.self, last, group.applied());
    group.startNode(restored);
  }
}
