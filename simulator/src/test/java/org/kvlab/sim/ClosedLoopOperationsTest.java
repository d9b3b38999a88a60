package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The work a closed-loop run can do, which the generated protocol tests ask a share of. */
class ClosedLoopOperationsTest {

  @Test
  void when_eachOperationWaitsOneWanRoundTrip_then_theSessionsDoDurationOverRttEach() {
    // 2 datacenters x 2 sessions, 50 ms WAN RTT, 0.4 ms inside a datacenter, think 0..2 ms (mean 1 ms), 2 s
    SimSpec spec = SimSpec.defaults().withDuration(2_000_000);
    assertEquals(4L * 2_000_000 / (50_000 + 400 + 1_000), spec.closedLoopOperations(1));
    assertEquals(4L * 2_000_000 / (400 + 1_000), spec.closedLoopOperations(0));
  }

  @Test
  void when_theDurationSessionsOrRttChange_then_theExpectationScales() {
    SimSpec spec = SimSpec.defaults().withDuration(2_000_000);
    long base = spec.closedLoopOperations(1);
    assertEquals(2 * base, spec.withDuration(4_000_000).closedLoopOperations(1), 1);
    assertEquals(2 * base, spec.withWorkload(spec.workload().withSessionsPerDc(4)).closedLoopOperations(1), 1);
    assertTrue(spec.withNetwork(NetworkModel.uniform(2, 200)).closedLoopOperations(1) < base / 3);
    assertTrue(spec.closedLoopOperations(2) < base * 0.6);
  }

  @Test
  void when_theRoundTripsAreNegative_then_itIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> SimSpec.defaults().closedLoopOperations(-1));
  }
}
