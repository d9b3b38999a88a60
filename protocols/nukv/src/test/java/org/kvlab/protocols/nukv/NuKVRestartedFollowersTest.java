package org.kvlab.protocols.nukv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.check.ConvergenceChecker;
import org.kvlab.check.Result;
import org.kvlab.check.SessionChecker;
import org.kvlab.history.Operation;
import org.kvlab.sim.Fault;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;

/**
 * A Raft leader crash after both followers of its group restarted while it led (issue 15). Datacenter 1's replicas
 * are crashed in turn for 12 s each: replica 1 (4-16 s), replica 2 (18-30 s), then replica 0 (32-44 s). Replicas 1
 * and 2 are slow while the first leader is elected, so replica 0 is often the first leader, and it then leads until
 * 32 s; the last crash takes the leader down after both followers restarted under it. Meanwhile datacenter 0 writes x
 * every 50 ms, datacenter 1 reads x every 50 ms and writes y every 50 ms.
 *
 * <p>MicroRaft 0.7: a restarted follower starts a pre-vote before the leader's first heartbeat reaches it and keeps
 * its pre-candidate state (only a term change clears it), and its leader check starts a pre-vote only without one. So
 * when the leader then crashed, neither follower ever started an election: datacenter 1 took no write for 14 s and
 * datacenter 0's writes reached it 12.1 s late, until replica 0 came back at 44 s, in 83 of 200 seeds (4, 5, 7 and 8
 * of the first 8). Now a replica whose Raft node has neither heard a leader nor sent an election message for several
 * timeouts rebuilds its RaftNode from its journal (RaftWatchdog.check): in those 83 seeds both followers rebuilt
 * theirs once, datacenter 1 took a write 5.0 to 5.6 s after the crash and forwarded writes arrived within 5.6 s (in
 * the other seeds MicroRaft elected by itself: within 3.1 and 3.2 s, no rebuild). Asserted per seed: datacenter 1's
 * group takes a write within {@link #ELECT_BOUND_MICROS} of the leader crash, every acknowledged write of datacenter
 * 0 reaches datacenter 1's reader within {@link #BOUND_MICROS}, at most one rebuild per follower, the session checker
 * and convergence pass; and over the seeds, a stall (a rebuild) in at least a quarter of them.
 * {@code -Dnukv.stallSeeds=200} runs more seeds: 83 failed before the fix, none now.
 */
class NuKVRestartedFollowersTest {
  static final int SEEDS = Integer.getInteger("nukv.stallSeeds", 8);
  static final long LEADER_CRASH_MICROS = 32_000_000;
  static final long LEADER_BACK_MICROS = 44_000_000;
  /** From the leader crash to datacenter 1's first acknowledged write after it (the old leader is back at +12 s). */
  static final long ELECT_BOUND_MICROS = 7_000_000;
  /** From a write's acknowledgement in datacenter 0 to datacenter 1's reader seeing it. */
  static final long BOUND_MICROS = 7_000_000;
  static final long END_MICROS = 50_000_000;

  static SimResult run(long seed, Map<String, String> extra) {
    List<Fault> faults = List.of(new Fault.Slow(NodeId.of(1, 0, 1), 1_000_000, 0, 3_000_000),
        new Fault.Slow(NodeId.of(1, 0, 2), 1_000_000, 0, 3_000_000),
        new Fault.Crash(NodeId.of(1, 0, 1), 4_000_000, 16_000_000),
        new Fault.Crash(NodeId.of(1, 0, 2), 18_000_000, 30_000_000),
        new Fault.Crash(NodeId.of(1, 0, 0), LEADER_CRASH_MICROS, LEADER_BACK_MICROS));
    SimSpec spec = SimSpec.defaults().withTopology(2, 1, 3).withFaults(faults).withDuration(END_MICROS)
        .withSettle(6_000_000).withParams(new Params(params(extra)));
    Script writer = Script.at(0).startingAt(3_000_000);
    Script reader = Script.at(1).startingAt(3_000_000);
    Script localWriter = Script.at(1).startingAt(3_000_000);
    int n = (int) ((END_MICROS - 3_000_000) / 50_000);
    for (int i = 1; i <= n; i++) {
      writer = writer.put("x", "v" + i).pause(50_000);
      reader = reader.get("x").pause(50_000);
      localWriter = localWriter.put("y", "w" + i).pause(50_000);
    }
    return new Simulation(spec, new NuKV(), seed, List.of(writer, reader, localWriter)).run();
  }

  private static Map<String, String> params(Map<String, String> extra) {
    Map<String, String> all = new java.util.HashMap<>(Map.of("readLevel", "mr+ryw", "writeLevel", "mw+wfr"));
    all.putAll(extra);
    return all;
  }

  @Test
  void when_theLeaderCrashesAfterBothFollowersRestarted_then_theGroupElectsAnotherAndWritesGoOn() {
    check(Map.of());
  }

  /**
   * The same with a snapshot every 50 commits (about 50 snapshots over the run): a rebuilt node restores the journal's
   * snapshot and log, which the replica has applied already (skipped), and snapshots again afterwards at the state of
   * the snapshot's index (asserted in NuKVServer).
   */
  @Test
  void when_theStalledFollowersHaveSnapshots_then_theRebuiltNodesRestoreThemAndWritesGoOn() {
    check(Map.of("snapshotEvery", "50"));
  }

  private void check(Map<String, String> extra) {
    List<String> bad = new ArrayList<>();
    Set<Long> badSeeds = new TreeSet<>();
    int rebuilt = 0;
    for (long seed = 1; seed <= SEEDS; seed++) {
      SimResult run = run(seed, extra);
      assertTrue(run.failures().isEmpty(), "seed " + seed + ": " + run.failures());
      List<Operation> ops = run.history().operations();
      // Datacenter 1's group elects a leader while the old one is down: its writer's next acknowledged write.
      long firstAfter = ops.stream().filter(o -> o.session() == 2 && o.type() == Operation.Type.PUT && o.ok()
          && o.invokeMicros() >= LEADER_CRASH_MICROS).mapToLong(Operation::completeMicros).min().orElse(Long.MAX_VALUE);
      if (firstAfter - LEADER_CRASH_MICROS > ELECT_BOUND_MICROS) {
        badSeeds.add(seed);
        bad.add("seed " + seed + ": datacenter 1 took no write for " + (firstAfter == Long.MAX_VALUE ? "ever"
            : (firstAfter - LEADER_CRASH_MICROS) / 1000 + " ms") + " after replica 0 crashed (bound "
            + ELECT_BOUND_MICROS / 1000 + " ms); counters " + run.counters());
      }
      // Forwarded writes reach datacenter 1 within BOUND_MICROS of their acknowledgement.
      ForwardingDelay delay = ForwardingDelay.of(ops, END_MICROS - BOUND_MICROS);
      assertTrue(delay.checked() >= 500, "seed " + seed + ": most writes are acknowledged: " + delay.checked());
      if (delay.worstMicros() > BOUND_MICROS) {
        badSeeds.add(seed);
        bad.add("seed " + seed + ": " + delay.describe(BOUND_MICROS));
      }
      long rebuilds = run.counter("nukv.raft.rebuilt");
      assertTrue(rebuilds <= 2, "seed " + seed + ": " + rebuilds + " RaftNodes rebuilt, more than the two stalled"
          + " followers once each: " + run.counters());
      rebuilt += rebuilds > 0 ? 1 : 0;
      if (extra.containsKey("snapshotEvery")) {
        assertTrue(run.counter("nukv.snapshot.taken") > 0, "seed " + seed + ": " + run.counters());
      }
      Result session = new SessionChecker().check(run.history());
      assertTrue(session.valid(), "seed " + seed + ": " + session);
      Result convergence = new ConvergenceChecker().check(run.history());
      assertTrue(convergence.valid(), "seed " + seed + ": " + convergence);
    }
    assertEquals(List.of(), bad.subList(0, Math.min(bad.size(), 10)), badSeeds.size() + " of " + SEEDS
        + " seeds fail: " + badSeeds + " (the first 10 findings shown)");
    // The scenario did what it is for: in some seeds both followers were stalled when the leader crashed, and the
    // watchdog rebuilt a RaftNode (the bound above holds in the others without it).
    assertTrue(rebuilt >= Math.max(1, SEEDS / 4), "a stalled replica was rebuilt in only " + rebuilt + " of " + SEEDS
        + " seeds: the scenario no longer stalls the group");
  }
}
