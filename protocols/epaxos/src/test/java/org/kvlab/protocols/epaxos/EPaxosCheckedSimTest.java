package org.kvlab.protocols.epaxos;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.history.Operation;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

class EPaxosCheckedSimTest {
  static final SimSpec FAULTY = SimSpec.defaults().withTopology(3, 1)
      .withFaultKinds(Set.of("partition", "slow", "crash", "skew"))
      .withWorkload(SimSpec.defaults().workload().withKeys(5)).withDuration(3_000_000).withTrace(false);

  @Test
  void when_faultsHitSeeds_then_everyRunIsLinearizable() {
    for (long seed = 1; seed <= 20; seed++) {
      SeedReport r = SimRunner.run(FAULTY, new EPaxos(), seed, List.of("linearizable", "convergence"));
      long ok = r.result().history().operations().stream().filter(Operation::ok).count();
      System.out.println("seed " + seed + " ok " + ok + " fast " + r.result().counter("consensus.fast") + " slow "
          + r.result().counter("consensus.slow") + " rec " + r.result().counter("epaxos.recovered") + " " + r.ok());
      assertTrue(r.ok(), () -> "seed " + r.seed() + ": " + r.checks() + " " + r.result().failures());
    }
  }
}
