package org.kvlab.protocols.epaxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Protocol;
import org.kvlab.check.Result;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/**
 * The two mutants of {@link Mutants}, each caught by the linearizability checker within a few seeds of a
 * contended workload (3 replicas, 3 keys, slow nodes so commits cross), while the same seeds pass with EPaxos.
 */
class EPaxosMutantTest {
  static final SimSpec CONTENDED = SimSpec.defaults().withTopology(3, 1).withFaultKinds(Set.of("slow"))
      .withWorkload(SimSpec.defaults().workload().withKeys(3).withSessionsPerDc(3)).withDuration(2_000_000)
      .withTrace(false);
  static final int SEEDS = 10;

  @Test
  void when_aReplicaExecutesOnCommitWithoutItsDependencies_then_linearizableCatchesItWithin10Seeds() {
    caught(Mutants.executeOnCommit());
  }

  @Test
  void when_theFastPathCommitsWithoutTheFastQuorumsAgreement_then_linearizableCatchesItWithin10Seeds() {
    caught(Mutants.fastPathWithoutAgreement());
  }

  @Test
  void when_epaxosRunsTheSameSeeds_then_theyPass() {
    for (long seed = 1; seed <= SEEDS; seed++) {
      SeedReport r = SimRunner.run(CONTENDED, new EPaxos(), seed, List.of("linearizable"));
      assertTrue(r.ok(), () -> "seed " + r.seed() + ": " + r.checks() + " " + r.result().failures());
    }
  }

  private static void caught(Protocol mutant) {
    for (long seed = 1; seed <= SEEDS; seed++) {
      SeedReport r = SimRunner.run(CONTENDED, mutant, seed, List.of("linearizable"));
      assertEquals(List.of(), r.result().failures(), "seed " + seed);
      Result c = r.checks().get(0);
      if (!c.valid()) {
        assertFalse(c.violations().isEmpty());
        return;
      }
    }
    throw new AssertionError(mutant.name() + " was not caught by linearizable within " + SEEDS + " seeds");
  }
}
