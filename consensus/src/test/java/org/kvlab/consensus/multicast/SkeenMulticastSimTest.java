package org.kvlab.consensus.multicast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.consensus.multicast.MulticastChecker.Violation;
import org.kvlab.sim.Fault;
import org.kvlab.sim.Script;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;

/**
 * {@link SkeenMulticast} in the simulator, judged by the {@link MulticastChecker}: six groups (2 datacenters x 3
 * servers, each server a group) multicast to random sets of groups under the faults the block tolerates — a network
 * whose jitter reorders messages across channels (each channel stays FIFO), partitions between the datacenters,
 * slow servers, clock skew (the block reads no clock) and crashes with restart (the state is saved with each event's
 * messages, durability sync) — and every seed must keep integrity, prefix order and acyclic order, and deliver
 * every message at all its destinations once the faults are over. Two mutants must be caught: a block that delivers
 * on its tentative timestamp, and a restarted server that lost its state.
 */
class SkeenMulticastSimTest {
  /** One run: the log it made and the simulator's result. */
  record Run(MulticastLog log, SimResult result, List<Violation> violations) {}

  static SimSpec spec(Map<String, String> params, Set<String> faults) {
    // inside a datacenter 0.5 ms + up to 4 ms of jitter, between them 10 ms + up to 10 ms: heavy reordering
    long[][] base = {{500, 10_000}, {10_000, 500}};
    long[][] jitter = {{4_000, 10_000}, {10_000, 4_000}};
    return SimSpec.defaults().withTopology(2, 3).withNetwork(new NetworkModel(base, jitter))
        .withParams(new Params(params)).withFinalReads(false).withFaultKinds(faults).withDuration(1_000_000).withSettle(3_000_000)
        .withTrace(false);
  }

  static Run run(SimSpec spec, long seed) {
    MulticastLog log = new MulticastLog();
    // no client operations: one session that only waits (a run needs one), and no final reads
    List<Script> idle = List.of(Script.at(0).pause(spec.durationMicros()));
    SimResult r = new Simulation(spec, new SkeenTestProtocol(log), seed, idle).run();
    return new Run(log, r, MulticastChecker.check(log, true));
  }

  @Test
  void when_groupsMulticastUnderFaults_then_200SeedsKeepEveryMulticastProperty() {
    SimSpec spec = spec(Map.of(), Set.of("partition", "slow", "skew", "crash"));
    int recovered = 0;
    int multiGroup = 0;
    for (long seed = 1; seed <= 200; seed++) {
      Run r = run(spec, seed);
      long s = seed;
      assertEquals(List.of(), r.result().failures(), () -> "seed " + s + ": the run failed");
      assertEquals(List.of(), r.violations(), () -> "seed " + s + ": " + r.result().faults());
      assertEquals(6 * 40, r.log().sent().size(), "seed " + seed + ": every group multicast its 40 messages");
      long expected = r.log().sent().values().stream().mapToLong(x -> x.get(0).dest().size()).sum();
      assertEquals(expected, r.log().deliveries(), "seed " + seed + ": every destination delivered every message");
      recovered += r.result().counter("skeen.recovered") > 0 ? 1 : 0;
      multiGroup += r.log().sent().values().stream().filter(x -> x.get(0).dest().size() > 1).count() > 0 ? 1 : 0;
    }
    assertTrue(recovered >= 100, "only " + recovered + " of 200 seeds restarted a crashed group from its state");
    assertEquals(200, multiGroup, "every seed multicasts to several groups at once");
  }

  @Test
  void when_theBlockDeliversOnItsTentativeTimestamp_then_theCheckerCatchesTheOrder() {
    SimSpec spec = spec(Map.of("mutant", "deliver-before-final"), Set.of());
    boolean caught = false;
    for (long seed = 1; seed <= 20 && !caught; seed++) {
      Run r = run(spec, seed);
      caught = r.violations().stream().anyMatch(v -> v.kind().equals(MulticastChecker.PREFIX_ORDER)
          || v.kind().equals(MulticastChecker.ACYCLIC_ORDER));
    }
    assertTrue(caught, "delivering before the final timestamp must break prefix or acyclic order within 20 seeds");
  }

  @Test
  void when_aRestartedGroupForgetsItsState_then_theCheckerCatchesIt() {
    NodeId victim = NodeId.of(0, 1);
    Fault crash = new Fault.Crash(victim, 150_000, 250_000);
    for (boolean durable : List.of(true, false)) {
      SimSpec spec = spec(Map.of("durable", String.valueOf(durable)), Set.of()).withFaults(List.of(crash));
      int caught = 0;
      for (long seed = 1; seed <= 10; seed++) {
        Run r = run(spec, seed);
        assertEquals(List.of(), r.result().failures(), "seed " + seed + ": the run failed");
        assertEquals(durable ? 1 : 0, r.result().counter("skeen.recovered"), "seed " + seed);
        caught += r.violations().isEmpty() ? 0 : 1;
      }
      if (durable) {
        assertEquals(0, caught, "with its state saved, the restarted group keeps every property");
      } else {
        assertTrue(caught >= 5, "a group that restarts empty must be caught in most of 10 seeds, was in " + caught);
      }
    }
  }

  @Test
  void when_theSameSeedRunsTwice_then_itDeliversTheSame() {
    SimSpec spec = spec(Map.of(), Set.of("partition", "slow", "crash"));
    Run a = run(spec, 7);
    Run b = run(spec, 7);
    assertEquals(a.log().delivered(), b.log().delivered());
    assertFalse(a.log().delivered().isEmpty());
  }
}
