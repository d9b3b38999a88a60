package org.kvlab.protocols.m2paxos;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/**
 * The mutants of {@link Mutants} are caught under the faults of {@link M2PaxosCheckedSimTest} within 20 seeds (in a
 * few), by the replicas' own invariants (a DECIDE at an (object, instance) a replica already
 * holds decided with another command; a decided command not at all its positions) before a client could read the
 * difference; the linearizable and strict-serializable checkers run on the same seeds.
 */
class M2PaxosMutantsTest {

  /** Runs seeds until one is caught; returns how it was caught, or fails after {@code k} seeds. */
  private static List<String> caught(SimSpec spec, Supplier<Observed> mutant, int k, List<String> checks) {
    for (long seed = 1; seed <= k; seed++) {
      Observed obs = mutant.get();
      SeedReport r = SimRunner.run(spec, obs, seed, checks);
      List<String> how = new ArrayList<>();
      r.checks().stream().filter(c -> !c.valid()).forEach(c -> how.add(c.checker()));
      r.result().failures().stream().filter(f -> f.contains("invariant")).forEach(f -> how.add("invariant"));
      if (!how.isEmpty()) {
        return how;
      }
    }
    throw new AssertionError("not caught within " + k + " seeds");
  }

  @Test
  void when_theOwnerDecidesWithoutAQuorum_then_itIsCaughtWithin20Seeds() {
    List<String> how = caught(M2PaxosCheckedSimTest.spec("none", false), Mutants::ownerWithoutQuorum, 20,
        List.of("linearizable"));
    assertTrue(how.contains("linearizable") || how.contains("invariant"), how.toString());
  }

  @Test
  void when_theAcquisitionIgnoresToForce_then_itIsCaughtWithin20Seeds() {
    List<String> how = caught(M2PaxosCheckedSimTest.spec("none", true), Mutants::acquisitionIgnoresToForce, 20,
        List.of("strict-serializable"));
    assertTrue(how.contains("strict-serializable") || how.contains("invariant"), how.toString());
  }
}
