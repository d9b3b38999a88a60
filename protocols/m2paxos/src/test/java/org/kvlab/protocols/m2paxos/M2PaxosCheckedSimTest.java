package org.kvlab.protocols.m2paxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Params;
import org.kvlab.history.Operation;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.TxnWorkload;
import org.kvlab.sim.Workload;

/**
 * M²Paxos and its Multi-Paxos configuration ({@code leader=0}) under the simulator's faults: partitions between
 * datacenters, crashes with a restart from the store (durability sync: the acceptor state in the kit's durable maps
 * survives), a slow server. 3 datacenters x 1 server, 50 ms RTT, 5 keys, 3 simulated seconds a seed (faults in the
 * first 2.4). Single-key GET/PUT runs are checked linearizable and convergent; list-append transactions over 1 to 4
 * keys (multi-object commands) strictly serializable. Every seed also checks from outside (the {@link Observed}
 * servers) that no two replicas learned different commands at one (object, instance).
 */
class M2PaxosCheckedSimTest {
  static final Set<String> FAULTS = Set.of("partition", "crash", "slow");
  static final String REPLAY = "./kvlab sim --protocol m2paxos --datacenters 3 --partitions 1 --keys 5 --duration 3s"
      + " --faults partition,crash,slow";

  static SimSpec spec(String leader, boolean txns) {
    SimSpec s = SimSpec.defaults().withTopology(3, 1).withNetwork(NetworkModel.uniform(3, 50))
        .withParams(new Params(Map.of("leader", leader))).withDuration(3_000_000).withSettle(3_000_000)
        .withTrace(false).withFaultKinds(FAULTS);
    Workload w = s.workload().withKeys(5);
    return s.withWorkload(txns ? w.withTxn(Workload.Txns.of(1.0, TxnWorkload.of("list-append"))) : w);
  }

  /**
   * Runs seeds 1..count of {@code spec}; each must pass {@code checks} with no failure and no conflicting decision.
   * Returns the OK operations per seed.
   */
  static long[] seeds(SimSpec spec, int count, List<String> checks) {
    long[] ok = new long[count];
    for (int i = 0; i < count; i++) {
      long seed = i + 1;
      Observed obs = Observed.of(new M2Paxos());
      SeedReport r = SimRunner.run(spec, obs, seed, checks);
      assertTrue(r.ok(), () -> "seed " + seed + " (replay: " + REPLAY + " --seeds " + seed + " --param leader="
          + spec.params().string("leader", "none") + "): " + r.checks() + " " + r.result().failures());
      assertEquals(List.of(), obs.conflicts, "seed " + seed + ": replicas learned different decisions");
      ok[i] = r.result().history().operations().stream().filter(Operation::ok).count();
    }
    return ok;
  }

  /**
   * Most seeds do real work: at least 9 in 10 complete {@code floor} operations (a fault-free seed completes about
   * 100 to 160; a seed whose partitions and crashes cover most of its 3 s completes a few dozen).
   */
  static void mostWorked(long[] ok, long floor) {
    long worked = java.util.Arrays.stream(ok).filter(x -> x >= floor).count();
    assertTrue(worked * 10 >= ok.length * 9, "only " + worked + " of " + ok.length + " seeds completed " + floor
        + " operations: " + java.util.Arrays.toString(ok));
  }

  @Test
  void when_m2paxosRunsSingleKeyOperationsUnderFaults_then_60SeedsAreLinearizableAndConverge() {
    mostWorked(seeds(spec("none", false), 60, List.of("linearizable", "convergence")), 20);
  }

  @Test
  void when_m2paxosRunsMultiKeyTransactionsUnderFaults_then_60SeedsAreStrictlySerializable() {
    mostWorked(seeds(spec("none", true), 60, List.of("strict-serializable")), 10);
  }

  @Test
  void when_multiPaxosRunsSingleKeyOperationsUnderFaults_then_60SeedsAreLinearizableAndConverge() {
    mostWorked(seeds(spec("0", false), 60, List.of("linearizable", "convergence")), 20);
  }

  @Test
  void when_multiPaxosRunsMultiKeyTransactionsUnderFaults_then_60SeedsAreStrictlySerializable() {
    mostWorked(seeds(spec("0", true), 60, List.of("strict-serializable")), 10);
  }
}
