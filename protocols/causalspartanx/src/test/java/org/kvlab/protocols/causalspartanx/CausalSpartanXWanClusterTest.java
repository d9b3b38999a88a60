package org.kvlab.protocols.causalspartanx;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvlab.testing.CheckedClusterRun;
import org.kvlab.testing.TestClusters;

/**
 * CausalSpartanX on a real loopback cluster of 2 datacenters x 3 partitions (in-memory store) with a 30 ms emulated
 * WAN and skewed clocks (issue 4 item 6): a recorded mixed workload in both datacenters passes the causal, session,
 * convergence and rotx checkers, and the history is not trivial.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CausalSpartanXWanClusterTest {

  @Test
  void when_sessionsInBothDatacentersMixGetPutRotxOverAWan_then_theRecordedHistoryPassesEveryChecker()
      throws Exception {
    CheckedClusterRun.Outcome run = CheckedClusterRun.run(new CausalSpartanX(), TestClusters.memory(),
        CheckedClusterRun.Spec.wan2x3());
    System.out.println("causalspartanx, 2x3 over a 30 ms WAN: " + run.summary());
    run.assertNoViolations();
    run.assertNonTrivial(300, 200, 100, 50);
  }
}
