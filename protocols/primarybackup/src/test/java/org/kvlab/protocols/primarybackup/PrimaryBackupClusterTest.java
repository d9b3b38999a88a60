package org.kvlab.protocols.primarybackup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvlab.check.ConvergenceChecker;
import org.kvlab.check.LinearizabilityChecker;
import org.kvlab.check.Result;
import org.kvlab.check.SessionChecker;
import org.kvlab.testing.CheckedClusterRun;
import org.kvlab.testing.TestClusters;

/**
 * Primary-backup on a real loopback cluster: the kit's forwards and calls over the runtime's channels. Sessions in
 * both datacenters read and write 12 keys for 4 s over a 30 ms emulated WAN (datacenter 1's requests all forwarded
 * to datacenter 0), and the recorded history is linearizable.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PrimaryBackupClusterTest {

  @Test
  void when_sessionsInBothDatacentersReadAndWrite_then_theRecordedHistoryIsLinearizable() throws Exception {
    CheckedClusterRun.Spec wan = CheckedClusterRun.Spec.wan2x3();
    CheckedClusterRun.Spec spec = new CheckedClusterRun.Spec(2, 3, wan.emulation(), 3, 12, 0.5, 0.0, 1, 2,
        Duration.ofSeconds(4), Duration.ofSeconds(20)); // no read-only transactions: the protocol offers none
    CheckedClusterRun.Outcome run = CheckedClusterRun.run(new PrimaryBackup(), TestClusters.memory(), spec);
    assertEquals(List.of(), run.workloadErrors(), run.summary());
    for (Result r : List.of(new LinearizabilityChecker().check(run.history()), new SessionChecker().check(run.history()),
        new ConvergenceChecker(run.finalReadsFromMicros()).check(run.history()))) {
      assertTrue(r.valid(), () -> r.checker() + ": " + r.violations() + "; " + run.summary());
    }
    run.assertNonTrivial(100, 100, 0, 10); // datacenter 1 reads datacenter 0's writes and the other way round
  }
}
