package org.kvlab.protocols.eventual;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvlab.api.NodeId;
import org.kvlab.check.Result;
import org.kvlab.config.ClusterConfig.EmulationSpec;
import org.kvlab.testing.CheckedClusterRun;
import org.kvlab.testing.TestClusters;

/**
 * The real-runtime check that GentleRain and CausalSpartanX pass ({@code *WanClusterTest}) has teeth: Eventual, whose
 * last-writer-wins on physical clocks loses writes when a clock runs ahead, fails it on the same cluster and workload
 * once server 0_1 runs 60 ms ahead.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EventualWanClusterTest {

  @Test
  void when_aClockRunsAheadOfTheWan_then_theRecordedHistoryShowsEventualsAnomalies() throws Exception {
    CheckedClusterRun.Spec spec = CheckedClusterRun.Spec.wan2x3()
        .withEmulation(new EmulationSpec(new long[][] {{0, 30}, {30, 0}}, Map.of(NodeId.of(0, 1), 60L)));
    CheckedClusterRun.Outcome run = CheckedClusterRun.run(new Eventual(), TestClusters.memory(), spec);
    List<Result> checks = run.checks();
    System.out.println("eventual, 2x3 over a 30 ms WAN, 0_1 60 ms ahead: " + run.summary() + "; " + checks.stream()
        .map(r -> r.checker() + " " + r.violations().size()).toList());
    assertTrue(run.workloadErrors().isEmpty(), run.workloadErrors().toString());
    assertFalse(checks.get(0).valid() && checks.get(1).valid(), "causal or session should catch lost writes");
  }
}
