package org.kvlab.consensus.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.history.Operation;
import org.kvlab.sim.Fault;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;

/**
 * A 3-replica {@link RaftGroup} in the simulator ({@link RaftLog}: clients append values through the leader): it
 * elects a leader, every replica applies the same value at each index, every acknowledged value is applied once, and
 * this holds across a leader's crash and restart from its journal, and for a follower that comes back behind the
 * leader's snapshot.
 */
class RaftGroupSimTest {
  private static final long SEED = 3;

  private static SimSpec spec(List<Fault> faults, int snapshotEvery, long durationMicros) {
    SimSpec base = SimSpec.defaults().withTopology(1, 1, 3).withDuration(durationMicros).withSettle(6_000_000)
        .withFaults(faults).withParams(new Params(Map.of("snapshotEvery", Integer.toString(snapshotEvery))));
    return base.withWorkload(base.workload().withSessionsPerDc(2).withGetRatio(0).withKeys(8));
  }

  private static SimResult run(List<Fault> faults, int snapshotEvery, long durationMicros) {
    return run(spec(faults, snapshotEvery, durationMicros), SEED);
  }

  private static SimResult run(SimSpec spec, long seed) {
    RaftLog.LIVE.clear();
    SimResult r = new Simulation(spec, new RaftLog(), seed).run();
    assertTrue(r.failures().isEmpty(), r.failures().toString());
    return r;
  }

  /** The replica that leads at the end of a fault-free run of {@code durationMicros}, and its term. */
  private static RaftLog.LogServer leaderOfFaultFreeRun(long durationMicros) {
    run(List.of(), 1_000_000, durationMicros);
    return leader();
  }

  private static RaftLog.LogServer leader() {
    RaftLog.LogServer leader = null;
    for (RaftLog.LogServer s : RaftLog.LIVE.values()) {
      if (s.raft.isReadyLeader()) {
        assertEquals(null, leader, "two ready leaders: " + roles());
        leader = s;
      }
    }
    assertNotNull(leader, "no replica leads: " + roles());
    return leader;
  }

  private static Map<NodeId, String> roles() {
    Map<NodeId, String> roles = new TreeMap<>();
    RaftLog.LIVE.forEach((n, s) -> roles.put(n, s.role()));
    return roles;
  }

  /**
   * Every replica applied the same values at the same indexes, all of them up to the leader's last, and every value a
   * client had acknowledged exactly once; returns how many were acknowledged.
   */
  private static int checkOneOrder(SimResult r) {
    RaftLog.LogServer leader = leader();
    for (RaftLog.LogServer s : RaftLog.LIVE.values()) {
      assertEquals(leader.raft.leader(), s.raft.leader(), "every replica knows the leader: " + roles());
      assertEquals(leader.applied, s.applied, s.id + " applied what the leader " + leader.id + " did");
    }
    List<String> values = new ArrayList<>(leader.applied.values());
    int acknowledged = 0;
    for (Operation o : r.history().operations()) {
      if (o.type() == Operation.Type.PUT && o.ok()) {
        String v = o.key() + "=" + o.value().toStringUtf8();
        assertEquals(1, values.stream().filter(v::equals).count(), "acknowledged " + v + " applied once");
        acknowledged++;
      }
    }
    return acknowledged;
  }

  @Test
  void when_threeReplicasRun_then_theyElectALeaderAndApplyTheCommittedValuesInOneOrder() {
    SimResult r = run(List.of(), 1_000_000, 6_000_000);
    assertTrue(leader().raft.term() >= 1);
    int acknowledged = checkOneOrder(r);
    assertTrue(acknowledged >= 50, "the clients' values commit: " + acknowledged);
  }

  /** Random crashes, partitions and slow replicas (10 seeds), a snapshot every 30 commits: still one order. */
  @Test
  void when_faultsHitTheGroup_then_everyReplicaStillAppliesTheAcknowledgedValuesInOneOrder() {
    SimSpec spec = spec(List.of(), 30, 8_000_000).withFaultKinds(java.util.Set.of("crash", "partition", "slow"));
    int acknowledged = 0;
    for (long seed = 1; seed <= 10; seed++) {
      acknowledged += checkOneOrder(run(spec, seed));
    }
    assertTrue(acknowledged >= 100, "values commit despite the faults: " + acknowledged);
  }

  @Test
  void when_theLeaderCrashesAndRestarts_then_anotherLeadsAndTheRestartedOneRecoversItsLogFromItsJournal() {
    RaftLog.LogServer first = leaderOfFaultFreeRun(4_000_000);
    NodeId crashed = first.id;
    int term = first.raft.term();
    SimResult r = run(List.of(new Fault.Crash(crashed, 4_000_000, 9_000_000)), 1_000_000, 14_000_000);
    RaftLog.LogServer now = leader();
    assertTrue(now.raft.term() > term, "a new term after the leader's crash: " + roles());
    RaftLog.LogServer back = RaftLog.LIVE.get(crashed);
    assertTrue(back.restarted, crashed + " restarted from its journal");
    assertTrue(back.applied.size() > 0 && back.applied.firstKey() <= 2, "it applied its log again from the start");
    int acknowledged = checkOneOrder(r);
    long after = r.history().operations().stream().filter(o -> o.ok() && o.invokeMicros() > 5_000_000).count();
    assertTrue(after > 0 && acknowledged > after, "values commit before and after the crash: " + acknowledged);
  }

  @Test
  void when_aFollowerComesBackBehindTheLeadersSnapshot_then_itInstallsItAndCatchesUp() {
    RaftLog.LogServer first = leaderOfFaultFreeRun(4_000_000);
    NodeId follower = NodeId.of(0, 0, (first.id.replica() + 1) % 3);
    SimResult r = run(List.of(new Fault.Crash(follower, 4_000_000, 10_000_000)), 20, 14_000_000);
    assertNotEquals(follower, leader().id);
    RaftLog.LogServer back = RaftLog.LIVE.get(follower);
    assertTrue(back.installed >= 1, "the follower installed the leader's snapshot: " + r.counters());
    assertTrue(r.counter("raftlog.snapshot.writeTurns") > 0, r.counters().toString());
    checkOneOrder(r);
  }
}
