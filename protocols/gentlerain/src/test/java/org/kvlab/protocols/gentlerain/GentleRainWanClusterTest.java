package org.kvlab.protocols.gentlerain;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.store.Durability;
import org.kvlab.testing.CheckedClusterRun;
import org.kvlab.testing.TestClusters;

/**
 * GentleRain on a real loopback cluster of 2 datacenters x 3 partitions (Berkeley DB store) with a 30 ms emulated WAN
 * and skewed clocks (issue 4 item 6): a recorded mixed workload in both datacenters passes the causal, session,
 * convergence and rotx checkers, and the history is not trivial.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GentleRainWanClusterTest {

  @Test
  void when_sessionsInBothDatacentersMixGetPutRotxOverAWan_then_theRecordedHistoryPassesEveryChecker(
      @TempDir Path dir) throws Exception {
    CheckedClusterRun.Outcome run = CheckedClusterRun.run(new GentleRain(), TestClusters.je(dir, Durability.NONE),
        CheckedClusterRun.Spec.wan2x3());
    System.out.println("gentlerain, 2x3 over a 30 ms WAN: " + run.summary());
    run.assertNoViolations();
    run.assertNonTrivial(300, 200, 100, 50);
  }
}
