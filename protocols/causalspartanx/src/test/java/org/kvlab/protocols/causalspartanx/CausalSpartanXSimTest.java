package org.kvlab.protocols.causalspartanx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.history.Operation;
import org.kvlab.sim.Fault;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;
import org.kvlab.api.NodeId;

/** CausalSpartanX under the simulator: many faulty seeds through the checkers, determinism, wait-free PUT, mutants. */
class CausalSpartanXSimTest {
  static final List<String> CHECKS = List.of("causal", "session", "convergence", "rotx");
  static final SimSpec FAULTY = SimSpec.defaults()
      .withFaultKinds(Set.of("partition", "skew", "crash", "slow")).withMaxSkewMillis(100).withDuration(3_000_000)
      .withTrace(false).withWorkload(SimSpec.defaults().workload().withRotx(0.2, 3));

  static void runSeeds(SimSpec spec, long from, long to) {
    for (long seed = from; seed <= to; seed++) {
      SeedReport r = SimRunner.run(spec, new CausalSpartanX(), seed, CHECKS);
      assertTrue(r.ok(), () -> "seed " + r.seed() + " faults " + r.result().faults() + ": " + r.checks() + " "
          + r.result().failures());
      assertTrue(r.result().history().operations().stream().anyMatch(o -> o.type() == Operation.Type.ROTX && o.ok()));
    }
  }

  @Test
  void when_allFaultsHitSeeds1to70_then_causalSessionConvergenceAndRotxHold() {
    runSeeds(FAULTY, 1, 70);
  }

  @Test
  void when_allFaultsHitSeeds71to140_then_causalSessionConvergenceAndRotxHold() {
    runSeeds(FAULTY, 71, 140);
  }

  /** Few keys and more sessions: more conflicts and more cross-key dependencies per seed. */
  @Test
  void when_fewHotKeysAndAllFaults_then_causalSessionConvergenceAndRotxHold() {
    runSeeds(FAULTY.withWorkload(FAULTY.workload().withKeys(6).withSessionsPerDc(3)), 1001, 1035);
  }

  @Test
  void when_sameSeedRunsTwice_then_runsAreIdentical() {
    SimSpec spec = FAULTY.withTrace(true);
    SimResult a = new Simulation(spec, new CausalSpartanX(), 42).run();
    SimResult b = new Simulation(spec, new CausalSpartanX(), 42).run();
    assertTrue(a.history().size() > 100, "the run should do work: " + a.history().size());
    assertEquals(a.history().operations(), b.history().operations());
    assertEquals(a.trace().fingerprint(), b.trace().fingerprint());
    assertEquals(a.deliveries(), b.deliveries());
    SimResult c = new Simulation(spec, new CausalSpartanX(), 43).run();
    assertFalse(a.history().operations().equals(c.history().operations()), "another seed gives another run");
  }

  /**
   * Wait-free PUT (§9 item 1, Fig 5.1): with one server's clock 15 ms ahead of the others, clients carry
   * dependencies from its future into PUTs at the other servers; GentleRain would wait ≈ the skew, HLC does not.
   * Compares mean simulated PUT latency (history timestamps, not real time) at skew 0 vs 15 ms.
   */
  @Test
  void when_clocksAreSkewed15ms_then_putLatencyDoesNotGrow() {
    double flat = meanPutMicros(0);
    double skewed = meanPutMicros(15_000);
    assertTrue(flat > 0 && skewed / flat < 1.2, "mean PUT latency skew 0: " + flat + " us, skew 15 ms: " + skewed);
  }

  private static double meanPutMicros(long skewMicros) {
    SimSpec spec = SimSpec.defaults().withDuration(3_000_000).withTrace(false)
        .withWorkload(SimSpec.defaults().workload().withKeys(6))
        .withFaults(List.of(new Fault.Skew(NodeId.of(0, 0), skewMicros, 0), new Fault.Skew(NodeId.of(1, 0), skewMicros, 0)));
    double sum = 0;
    int n = 0;
    for (long seed = 1; seed <= 3; seed++) {
      SeedReport r = SimRunner.run(spec, new CausalSpartanX(), seed, CHECKS);
      assertTrue(r.ok(), () -> r.checks().toString() + r.result().failures());
      for (Operation op : r.result().history().operations()) {
        if (op.type() == Operation.Type.PUT && op.ok()) {
          sum += op.completeMicros() - op.invokeMicros();
          n++;
        }
      }
    }
    return sum / n;
  }

  @Test
  void when_getIgnoresTheVisibilityRule_then_causalCheckerCatchesItWithin20Seeds() {
    SimSpec spec = FAULTY.withFaultKinds(Set.of("slow", "partition"));
    for (long seed = 1; seed <= 20; seed++) {
      SeedReport r = SimRunner.run(spec, Mutants.variant(CausalSpartanXServer.Variant.NO_VISIBILITY_RULE), seed,
          List.of("causal"));
      if (!r.ok()) {
        assertFalse(r.checks().get(0).violations().isEmpty());
        return;
      }
    }
    throw new AssertionError("GET without the visibility rule was not caught by the causal checker in 20 seeds");
  }
}
