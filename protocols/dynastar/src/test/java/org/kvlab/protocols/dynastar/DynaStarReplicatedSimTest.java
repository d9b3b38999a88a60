package org.kvlab.protocols.dynastar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.consensus.multicast.MulticastChecker;
import org.kvlab.history.Operation;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/**
 * DynaStar with replicated partitions and a replicated oracle ({@link Groups}: each a Raft group of 3 over the
 * consensus module's replicated multicast), the checked simulation's workload (list-append over 1 to 4 of 12 keys,
 * random initial placement, a plan every 300 ms), under the simulator's faults: crashes (restart from the store:
 * the Raft journal, the state machine rebuilt from the group's snapshot and log), slow servers and, with replica d of
 * every partition in datacenter d, network partitions between datacenters, which cut every group. Every seed must be
 * strictly serializable, its multicast (commands, plans, lends, returns, moves) must pass the multicast checker, the
 * replicas of a group must apply the same deliveries in the same order, and once quiet every key must be held by
 * exactly one partition, on which all its replicas agree. And the mutant {@code lender-no-wait} is caught on
 * replicated partitions too.
 */
class DynaStarReplicatedSimTest {
  static final String REPLAY_DCS = "./kvlab sim --protocol dynastar --datacenters 3 --partitions 4"
      + " --txn-workload list-append --check strict-serializable --duration 1s --sessions 2 --keys 12 --rtt 10ms"
      + " --faults crash,partition,slow --param placement=random --param repartitionEvery=300ms"
      + " --param partitioner=greedy --param hintEvery=50ms --param planGain=0";

  /** 3 datacenters x 4 partitions (replica d in datacenter d), 5 ms between datacenters, 2 sessions in each. */
  static SimSpec acrossDatacenters() {
    long[][] base = new long[3][3];
    long[][] jitter = new long[3][3];
    for (int x = 0; x < 3; x++) {
      for (int y = 0; y < 3; y++) {
        base[x][y] = x == y ? 500 : 5_000;
        jitter[x][y] = x == y ? 1_000 : 2_000;
      }
    }
    return DynaStarCheckedSimTest.spec("", Set.of("crash", "partition", "slow")).withTopology(3, 4, 1)
        .withNetwork(new NetworkModel(base, jitter)).withWorkload(DynaStarCheckedSimTest.workload(2))
        .withDuration(1_000_000).withSettle(5_000_000);
  }

  /** 1 datacenter x 4 partitions x 3 replicas, 6 sessions. */
  static SimSpec insideOneDatacenter() {
    return DynaStarCheckedSimTest.spec("", Set.of("crash", "slow")).withTopology(1, 4, 3).withWorkload(
        DynaStarCheckedSimTest.workload(4)).withDuration(1_000_000).withSettle(5_000_000);
  }

  static void seeds(SimSpec spec, int from, int count, String replay) {
    int quiet = 0;
    long ok = 0;
    long multi = 0;
    long plans = 0;
    for (long seed = from; seed < from + count; seed++) {
      long s = seed;
      Watched w = new Watched();
      SeedReport r = SimRunner.run(spec, w, seed, List.of("strict-serializable"));
      assertTrue(r.ok(), () -> "seed " + s + " (replay: " + replay + " --seeds " + s + "): " + r.checks() + " "
          + r.result().failures());
      assertEquals(List.of(), w.disagreements, "seed " + seed + ": the replicas of a group");
      List<String> bad = w.locationViolations(DynaStarCheckedSimTest.keys());
      if (bad != null) {
        quiet++;
        assertEquals(List.of(), bad, "seed " + seed + ": the location invariant");
      }
      assertEquals(List.of(), MulticastChecker.check(w.log, bad != null), "seed " + seed + ": the multicast");
      ok += r.result().history().operations().stream().filter(Operation::ok).count();
      multi += r.result().counter("dynastar.multiPartition");
      plans += r.result().counter("dynastar.plans");
    }
    assertTrue(quiet * 10 >= count * 9, "only " + quiet + " of " + count + " seeds ended quiet");
    assertTrue(ok >= count * 20L && multi > 0 && plans > 0, "ok " + ok + ", multi-partition " + multi + ", plans "
        + plans);
  }

  @Test
  void when_150SeedsRunAcrossDatacentersWithCrashesPartitionsAndSlowServers_then_allAreCheckedAndLocated() {
    seeds(acrossDatacenters(), 1, 150, REPLAY_DCS);
  }

  @Test
  void when_100SeedsRunInsideOneDatacenterWithCrashesAndSlowServers_then_allAreCheckedAndLocated() {
    seeds(insideOneDatacenter(), 1, 100, "not replayable by kvlab sim, which has no --replicas: run this test");
  }

  @Test
  void when_aReplicatedLenderDoesNotWaitForTheReturn_then_theCheckerFindsANonSerializableHistory() {
    SimSpec spec = acrossDatacenters().withParams(DynaStarCheckedSimTest.spec("mutant=lender-no-wait", Set.of())
        .params()).withFaultKinds(Set.of());
    for (long seed = 1; seed <= 3; seed++) {
      SeedReport r = SimRunner.run(spec, new DynaStar(), seed, List.of("strict-serializable"));
      assertTrue(!r.checks().get(0).violations().isEmpty(), "seed " + seed + ": a lender that goes on must break"
          + " strict serializability: " + r.checks());
    }
  }
}
