package org.kvlab.protocols.dynastar;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.check.Result;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/**
 * The deliberately broken variants ({@code mutant=...}) the checks must catch, on the checked simulation's workload
 * without faults: a lender that goes on without waiting for its variables to come back (the strict-serializable
 * checker sees lost or reordered appends), and a client whose destination rule differs from the servers' (the
 * partition it addresses is not the one that executes the command: the servers' invariant halts it).
 */
class DynaStarMutantsTest {
  @Test
  void when_aLenderDoesNotWaitForTheReturn_then_theCheckerFindsANonSerializableHistory() {
    SimSpec spec = DynaStarCheckedSimTest.spec("mutant=lender-no-wait", Set.of());
    int caught = 0;
    for (long seed = 1; seed <= 5; seed++) {
      SeedReport r = SimRunner.run(spec, new DynaStar(), seed, List.of("strict-serializable"));
      Result c = r.checks().get(0);
      if (!c.violations().isEmpty()) {
        caught++;
      }
    }
    assertTrue(caught == 5, "a lender that goes on must break strict serializability in every seed: " + caught
        + " of 5");
  }

  @Test
  void when_theClientsDestinationRuleDiffersFromTheServers_then_theInvariantHaltsTheAddressedPartition() {
    SimSpec spec = DynaStarCheckedSimTest.spec("mutant=client-destination", Set.of());
    for (long seed = 1; seed <= 3; seed++) {
      SeedReport r = SimRunner.run(spec, new DynaStar(), seed, List.of("strict-serializable"));
      assertTrue(!r.ok() && r.result().failures().stream().anyMatch(f -> f.contains("client and servers must"
          + " compute one destination rule")), "seed " + seed + ": " + r.result().failures());
    }
  }

  @Test
  void when_theSameWorkloadRunsUnbroken_then_neitherCheckFires() {
    SimSpec spec = DynaStarCheckedSimTest.spec("", Set.of());
    for (long seed = 1; seed <= 5; seed++) {
      SeedReport r = SimRunner.run(spec, new DynaStar(), seed, List.of("strict-serializable"));
      assertTrue(r.ok(), "seed " + seed + ": " + r.checks() + " " + r.result().failures());
    }
  }
}
