package org.kvlab.protocols.eventual;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Protocol;
import org.kvlab.sim.Shrinker;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/**
 * {@code kvlab sim --shrink}'s search on Eventual's two mutants: a failing run (thousands of operations: stale reads
 * under partitions, crashes and slow nodes; last-arrival-wins where its own test catches it) shrinks to a run a person reads on one screen that still fails the same checker, and the
 * shrunk run replays: the same spec and seed fail again with the same number of operations.
 */
class EventualShrinkTest {
  private static SimSpec spec(Shrinker.Knobs k) {
    return SimSpec.defaults().withDuration(k.durationMicros()).withFaultKinds(k.faultKinds())
        .withWorkload(SimSpec.defaults().workload().withSessionsPerDc(k.sessionsPerDc()).withKeys(k.keys()));
  }

  private static void shrinksBelow(Protocol mutant, String checker, Shrinker.Knobs start, int most) {
    SeedReport failing = null;
    for (long seed = 1; seed <= 30 && failing == null; seed++) {
      SeedReport r = SimRunner.run(spec(start).withTrace(false), mutant, seed, List.of(checker));
      failing = r.checks().get(0).valid() ? null : r; // the checker's own catch, not a run failure
    }
    assertTrue(failing != null, mutant + " not caught by " + checker + " in 30 seeds");
    List<String> progress = new ArrayList<>();
    Shrinker.Shrunk s = Shrinker.shrink(EventualShrinkTest::spec, mutant, start, failing, List.of(checker), 30,
        progress::add);
    int before = failing.result().history().size();
    int after = s.report().result().history().size();
    assertFalse(s.report().ok(), "the shrunk run still fails");
    assertFalse(s.report().checks().get(0).valid(), checker + " still fails: " + s.report().checks());
    assertTrue(after <= most, "shrunk from " + before + " to " + after + " operations, wanted at most " + most
        + "; steps: " + s.steps() + "; " + progress);
    assertTrue(after < before / 10, before + " -> " + after);
    SeedReport again = SimRunner.run(spec(s.after()), mutant, s.report().seed(), List.of(checker));
    assertFalse(again.ok(), "replays");
    assertEquals(after, again.result().history().size(), "the same run again");
  }

  @Test
  void staleReads_shrinkToAFewOperationsThatStillBreakTheSessionGuarantees() {
    shrinksBelow(new Mutants.StaleReads(), "session",
        new Shrinker.Knobs(2, 20, 10_000_000, Set.of("partition", "crash", "slow")), 20);
  }

  @Test
  void lastArrivalWins_shrinksToAFewOperationsThatStillDiverge() {
    shrinksBelow(new Mutants.LastArrivalWins(), "convergence", new Shrinker.Knobs(2, 5, 2_000_000, Set.of()), 20);
  }
}
