package org.kvlab.protocols.eventual;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Protocol;
import org.kvlab.check.CausalChecker;
import org.kvlab.check.Result;
import org.kvlab.check.Violation;
import org.kvlab.history.Operation;
import org.kvlab.sim.Scenarios;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;

/** Eventual under the simulator with checkers: what it guarantees, what it does not, and mutants. */
class EventualCheckedSimTest {
  private static final SimSpec FAULTY = SimSpec.defaults()
      .withFaultKinds(Set.of("partition", "skew", "crash", "slow")).withDuration(3_000_000);

  @Test
  void when_partitionsCrashesAndSlowNodesHitEventual_then_itConvergesAndKeepsPerKeySessionGuarantees() {
    // Sticky sessions read one replica, and with synchronized clocks a later write gets a later timestamp.
    SimSpec spec = FAULTY.withFaultKinds(Set.of("partition", "crash", "slow"));
    for (long seed = 1; seed <= 30; seed++) {
      SeedReport r = SimRunner.run(spec, new Eventual(), seed, List.of("convergence", "session"));
      assertTrue(r.ok(), () -> "seed " + r.seed() + ": " + r.checks() + " " + r.result().failures());
    }
  }

  /**
   * With skewed clocks Eventual still converges, but last-writer-wins on physical time breaks
   * read-your-writes: a session reads x from a datacenter whose clock is ahead, then writes x itself
   * with a smaller timestamp, and its own write loses. The session checker must say so.
   */
  @Test
  void when_clocksAreSkewed_then_eventualConvergesButBreaksReadYourWrites() {
    boolean caught = false;
    for (long seed = 1; seed <= 10 && !caught; seed++) {
      SeedReport r = SimRunner.run(FAULTY, new Eventual(), seed, List.of("convergence", "session"));
      assertTrue(r.checks().get(0).valid(), "convergence must hold under skew too: " + r.checks().get(0));
      caught = r.checks().get(1).violations().stream().anyMatch(v -> v.kind().equals("read-your-writes"));
    }
    assertTrue(caught, "skew should expose the read-your-writes anomaly of last-writer-wins within 10 seeds");
  }

  /**
   * The photo/album anomaly (seed 003 §2.3): Alice uploads a photo, then adds it to her album; Bob,
   * in the other datacenter, sees the album entry but not the photo. Eventual makes each write visible
   * on arrival, so when the photo's partition is slow, the album arrives first. The causal checker must
   * name Bob's read of the photo.
   */
  @Test
  void when_photoReplicatesAfterAlbum_then_causalCheckerCatchesTheAnomaly() {
    Scenarios.PhotoAlbum scenario = Scenarios.photoAlbum(new Eventual(), 7);
    SimResult run = scenario.run();
    Operation bobReadsPhoto = scenario.bobReadsPhoto();
    assertTrue(bobReadsPhoto.readValue().isEmpty(), "the anomaly should happen: Bob sees the album but not the photo");
    Result causal = new CausalChecker().check(run.history());
    assertFalse(causal.valid(), "the causal checker must catch photo/album");
    assertTrue(causal.violations().stream().map(Violation::operations).anyMatch(ops -> ops.contains(bobReadsPhoto.id())),
        "the violation must name Bob's read of the photo: " + causal.violations());
  }

  /**
   * Odd/even increments (seed 003 §9 item 3) with B's clocks 20 ms behind A's: c2 in B reads count 2 (written in A)
   * and writes 3, stamped earlier than 2, so last-writer-wins keeps 2; c2 then reads 2 after its own 3 and c1 never
   * sees 3. The scenario stalls and the session and causal checkers catch the count going back. Without skew,
   * Eventual gets through, which is why the scenario skews the clocks.
   */
  @Test
  void when_oddEvenIncrementsRunWithBBehind_then_theCountGoesBackAndTheCheckersCatchIt() {
    Scenarios.OddEven skewed = Scenarios.oddEven(new Eventual(), 1, 20, Scenarios.C_RTTS.get(1), 20_000);
    assertEquals(List.of(), skewed.run().failures());
    assertFalse(skewed.completed(), "Eventual should lose c2's increments");
    List<Result> checks = skewed.checks("causal", "session");
    assertFalse(checks.get(0).valid(), "causal should catch it");
    assertTrue(checks.get(0).violations().stream().anyMatch(v -> v.kind().equals(CausalChecker.WRITE_CO_READ)),
        checks.get(0).violations().toString());
    assertFalse(checks.get(1).valid(), "session (read-your-writes) should catch it");

    Scenarios.OddEven synced = Scenarios.oddEven(new Eventual(), 1, 20, Scenarios.C_RTTS.get(1), 0);
    assertTrue(synced.completed(), "stalls without skew: " + synced.stalls());
  }

  @Test
  void when_replicasApplyWritesInArrivalOrder_then_convergenceCheckerCatchesItWithin20Seeds() {
    assertCaught(new Mutants.LastArrivalWins(), "convergence", 20);
  }

  @Test
  void when_readsSkipTheNewestVersion_then_sessionCheckerCatchesItWithin20Seeds() {
    assertCaught(new Mutants.StaleReads(), "session", 20);
  }

  private static void assertCaught(Protocol mutant, String checker, int seeds) {
    SimSpec spec = SimSpec.defaults().withDuration(2_000_000).withWorkload(
        SimSpec.defaults().workload().withKeys(5));
    for (long seed = 1; seed <= seeds; seed++) {
      SeedReport r = SimRunner.run(spec, mutant, seed, List.of(checker));
      if (!r.ok()) {
        assertFalse(r.checks().get(0).violations().isEmpty());
        return;
      }
    }
    throw new AssertionError(mutant.name() + " was not caught by " + checker + " within " + seeds + " seeds");
  }

  @Test
  void when_scriptsRun_then_theyAreReproducible() {
    Script s = Script.at(0).put("a", "1").get("a");
    SimResult a = new Simulation(SimSpec.defaults(), new Eventual(), 1, List.of(s)).run();
    SimResult b = new Simulation(SimSpec.defaults(), new Eventual(), 1, List.of(s)).run();
    assertEquals(a.history().operations(), b.history().operations());
  }
}
