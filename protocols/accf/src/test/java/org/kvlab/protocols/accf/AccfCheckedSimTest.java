package org.kvlab.protocols.accf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Params;
import org.kvlab.api.Protocol;
import org.kvlab.history.Operation;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;

/**
 * ACCF under partitions, 100 ms clock skew, crashes and slow nodes, for several groupings: causal, session guarantees
 * and convergence (ACCF guarantees causal consistency for GET/PUT; it has no read-only transactions).
 * 210 seeds in all across the groupings.
 */
class AccfCheckedSimTest {
  static final List<String> CHECKS = List.of("causal", "session", "convergence");
  static final SimSpec FAULTY = SimSpec.defaults().withFaultKinds(Set.of("partition", "skew", "crash", "slow"))
      .withMaxSkewMillis(100).withDuration(3_000_000).withTrace(false);

  static SimSpec grouping(String tracking, String checking) {
    return FAULTY.withParams(new Params(Map.of("tracking", tracking, "checking", checking)));
  }

  static void runSeeds(SimSpec spec, long from, long to) {
    long ok = 0;
    for (long seed = from; seed <= to; seed++) {
      SeedReport r = SimRunner.run(spec, new Accf(), seed, CHECKS);
      assertTrue(r.ok(), () -> "seed " + r.seed() + " " + spec.params() + " faults " + r.result().faults() + ": "
          + r.checks() + " " + r.result().failures());
      List<Operation> ops = r.result().history().operations();
      long n = ops.stream().filter(Operation::ok).count();
      long reads = ops.stream().filter(o -> o.ok() && o.type() == Operation.Type.GET && o.readValue().isPresent()).count();
      assertTrue(n >= 100 && reads >= 20, "seed " + seed + " did little work: " + n + " ok ops, " + reads + " reads found a value");
      ok += n;
    }
    assertTrue(ok > 0);
  }

  /** The seed's 2 x 2 view (CausalSpartan's grouping): groups are datacenters. */
  @Test
  void when_faultsHitSeeds1To80_withDatacenterGroups_then_causalSessionConvergenceHold() {
    runSeeds(grouping("datacenter", "datacenter"), 1, 80);
  }

  /** The seed's 4 x 1 view: every server its own tracking and checking group; reads across servers wait (line 2). */
  @Test
  void when_faultsHitSeeds81To160_withServerGroups_then_causalSessionConvergenceHold() {
    runSeeds(grouping("server", "server"), 81, 160);
  }

  /** GentleRain-like scalar tracking with per-datacenter checking, and an explicit mixed assignment. */
  @Test
  void when_faultsHitSeeds161To210_withSystemAndExplicitGroups_then_causalSessionConvergenceHold() {
    runSeeds(grouping("system", "datacenter"), 161, 185);
    runSeeds(grouping("0.0=x 0.1=y 0.2=x 1.0=y 1.1=x 1.2=y", "0.0=a+b 0.1=a 0.2=b 1.0=b 1.1=a+b 1.2=a"), 186, 210);
  }

  @Test
  void when_sameSeedRunsTwice_then_runsAreIdentical() {
    SimSpec spec = grouping("server", "datacenter").withTrace(true);
    SimResult a = new Simulation(spec, new Accf(), 42).run();
    SimResult b = new Simulation(spec, new Accf(), 42).run();
    assertTrue(a.history().size() > 100, "the run should do work: " + a.history().size());
    assertEquals(a.history().operations(), b.history().operations());
    assertEquals(a.trace().fingerprint(), b.trace().fingerprint());
  }

  /** Without line 2's wait, a server answers a client that depends on versions it has not received yet. */
  @Test
  void when_getSkipsTheWaitForDependencies_then_causalCheckerCatchesItWithin20Seeds() {
    assertCaught(Mutants.variant(AccfServer.Variant.NO_GET_WAIT), grouping("server", "server"));
  }

  /** A PUT that drops the client's dependency set (line 13 keeps only the writer's entry) loses causality. */
  @Test
  void when_putDropsTheClientsDependencies_then_causalCheckerCatchesItWithin20Seeds() {
    assertCaught(Mutants.variant(AccfServer.Variant.NO_CLIENT_DEPS), grouping("server", "server"));
  }

  private static void assertCaught(Protocol mutant, SimSpec base) {
    SimSpec spec = base.withFaultKinds(Set.of("slow", "partition"));
    for (long seed = 1; seed <= 20; seed++) {
      SeedReport r = SimRunner.run(spec, mutant, seed, List.of("causal"));
      if (!r.ok()) {
        assertFalse(r.checks().get(0).violations().isEmpty(), () -> "seed " + r.seed() + " failed otherwise: "
            + r.result().failures());
        return;
      }
    }
    throw new AssertionError(mutant.name() + " was not caught by the causal checker in 20 seeds");
  }
}
