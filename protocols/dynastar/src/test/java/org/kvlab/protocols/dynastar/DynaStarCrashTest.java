package org.kvlab.protocols.dynastar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.consensus.multicast.MulticastChecker;
import org.kvlab.history.Operation;
import org.kvlab.sim.Fault;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/**
 * Crashes placed on purpose rather than drawn: each server in turn (the three data partitions and the oracle) is
 * down for 200 ms at one of ten moments of the checked simulation's workload (a plan every 300 ms, so some crashes
 * fall while a plan's variables are in flight, others while the server lends or waits for lends). Each run must be
 * strictly serializable, pass the multicast checker, end with every key held by exactly one partition, restart the
 * server from its saved state, and go on completing commands after the restart (once the clients whose requests the
 * crash lost have timed out).
 */
class DynaStarCrashTest {
  @Test
  void when_eachServerCrashesAtTenMoments_then_itRecoversAndTheRunStaysCorrect() {
    // 4 s: a request lost with the crashed server is answered by the client's timeout, and its session goes on after
    SimSpec base = DynaStarCheckedSimTest.spec("", Set.of()).withDuration(4_000_000);
    for (int p = 0; p < 4; p++) {
      for (int i = 0; i < 10; i++) {
        long start = 150_000 + i * 130_000L;
        long end = start + 200_000;
        SimSpec spec = base.withFaults(List.of(new Fault.Crash(NodeId.of(0, p), start, end)));
        Watched w = new Watched();
        SeedReport r = SimRunner.run(spec, w, 1, List.of("strict-serializable"));
        String at = "server 0_" + p + " down " + start / 1000 + ".." + end / 1000 + " ms";
        assertTrue(r.ok(), () -> at + ": " + r.checks() + " " + r.result().failures());
        List<String> bad = w.locationViolations(DynaStarCheckedSimTest.keys());
        assertNotNull(bad, () -> at + ": the run did not end quiet: " + w.live.values().stream()
            .map(PartitionRole::describe).toList());
        assertEquals(List.of(), bad, at + ": the location invariant");
        assertEquals(List.of(), MulticastChecker.check(w.log, true), at + ": the multicast");
        if (p < 3) {
          assertTrue(r.result().counter("dynastar.recovered") >= 1, at + ": restarted from its saved state");
        }
        long after = r.result().history().operations().stream()
            .filter(o -> o.ok() && o.invokeMicros() > end + SimSpec.CLIENT_TIMEOUT_MICROS).count();
        assertTrue(after >= 100, at + ": only " + after + " commands completed after the restart");
      }
    }
  }
}
