package org.kvlab.protocols.m2paxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.history.Operation;
import org.kvlab.sim.Fault;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/**
 * Crashes placed on purpose: a replica down for most of the run restarts from its store and its durable acceptor
 * state, catches up and ends with the same per-object sequences as the others; the Multi-Paxos leader down for a
 * second stops every decision, and after its restart it recovers the instances it left accepted and the cluster goes
 * on. Both with multi-key transactions (strict-serializable) and single-key operations (linearizable). And a replica
 * that loses every DECIDE catches up by the gossip and Fetch alone.
 */
class M2PaxosCrashTest {

  private static Observed run(String leader, boolean txns, Fault.Crash crash, long seed) {
    SimSpec spec = M2PaxosCheckedSimTest.spec(leader, txns).withFaultKinds(Set.of()).withFaults(List.of(crash))
        .withDuration(5_000_000); // sessions stuck on the crashed server wait out the client's 2 s timeout
    Observed obs = Observed.of(new M2Paxos());
    SeedReport r = SimRunner.run(spec, obs, seed, List.of(txns ? "strict-serializable" : "linearizable"));
    assertTrue(r.ok(), () -> "seed " + seed + ": " + r.checks() + " " + r.result().failures());
    assertEquals(List.of(), obs.conflicts);
    long okAfter = r.result().history().operations().stream()
        .filter(o -> o.ok() && o.invokeMicros() > crash.endMicros() + 200_000 && o.dc() == crash.node().dc()).count();
    assertTrue(okAfter >= 10, "seed " + seed + ": only " + okAfter + " operations OK at dc" + crash.node().dc()
        + " after its restart");
    return obs;
  }

  @Test
  void when_aReplicaIsDownForMostOfTheRun_then_itRestartsFromItsStoreAndCatchesUp() {
    for (long seed = 1; seed <= 5; seed++) {
      for (boolean txns : List.of(true, false)) {
        Observed obs = run("none", txns, new Fault.Crash(new NodeId(2, 0), 300_000, 2_000_000), seed);
        for (Map.Entry<String, Map<Integer, List<Long>>> o : obs.deliveries.entrySet()) {
          List<Long> restarted = o.getValue().get(2);
          for (int dc = 0; dc < 2; dc++) { // equal up to the final reads still being decided when the run stops
            List<Long> other = o.getValue().get(dc);
            int common = Math.min(other.size(), restarted.size());
            assertEquals(other.subList(0, common), restarted.subList(0, common), "seed " + seed + ": " + o.getKey());
            assertTrue(Math.abs(other.size() - restarted.size()) <= 3, "seed " + seed + ": object " + o.getKey()
                + ": dc" + dc + " delivered " + other.size() + " commands, the restarted dc2 " + restarted.size());
          }
        }
      }
    }
  }

  /**
   * Message loss, which the simulator's reliable links do not produce: dc2 drops every DECIDE it receives, so it
   * learns decisions only by the catch-up (the others' gossip of LastDecided, then a Fetch of the decided commands),
   * and still delivers every object's commands in the others' order and answers its clients.
   */
  @Test
  void when_aReplicaLosesEveryDecide_then_itLearnsTheDecisionsByCatchUp() {
    SimSpec spec = M2PaxosCheckedSimTest.spec("none", true).withFaultKinds(Set.of());
    Observed[] o = new Observed[1];
    o[0] = new Observed(new M2Paxos(), () -> new Observed.Watched(o[0]) {
      @Override
      void onDecide(Decide m, NodeId from) {
        if (dc() != 2) {
          super.onDecide(m, from);
        }
      }
    });
    SeedReport r = SimRunner.run(spec, o[0], 1, List.of("strict-serializable"));
    assertTrue(r.ok(), () -> r.checks() + " " + r.result().failures());
    assertTrue(r.result().counter("m2paxos.fetched.sum") > 50, r.result().counters().toString());
    long okAtDc2 = r.result().history().operations().stream().filter(x -> x.ok() && x.dc() == 2).count();
    assertTrue(okAtDc2 >= 10, okAtDc2 + " operations OK at dc2");
    for (Map.Entry<String, Map<Integer, List<Long>>> e : o[0].deliveries.entrySet()) {
      List<Long> lossy = e.getValue().get(2);
      List<Long> other = e.getValue().get(0);
      int common = Math.min(other.size(), lossy.size());
      assertEquals(other.subList(0, common), lossy.subList(0, common), e.getKey());
      assertTrue(common >= 10, e.getKey() + ": dc2 delivered " + lossy.size() + ", dc0 " + other.size());
    }
  }

  @Test
  void when_theMultiPaxosLeaderCrashes_then_nothingIsDecidedUntilItRestartsAndThenTheClusterGoesOn() {
    for (long seed = 1; seed <= 5; seed++) {
      for (boolean txns : List.of(true, false)) {
        run("0", txns, new Fault.Crash(new NodeId(0, 0), 500_000, 1_500_000), seed);
      }
    }
  }
}
