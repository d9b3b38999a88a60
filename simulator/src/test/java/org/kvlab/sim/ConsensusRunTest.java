package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.kvlab.api.Params;
import org.kvlab.testing.PrimaryBackupKit;

/** The consensus harness's run on a leader-based protocol: the kit's primary-backup (primary at datacenter 0). */
class ConsensusRunTest {
  private static final ConsensusRun SHORT = ConsensusRun.of(3).withDuration(500_000);

  @Test
  void when_theLoadIsLow_then_everyOfferedCommandCompletesAtAboutTheNetworksLatency() {
    ConsensusRun.Measure m = SHORT.withLoad(200, 8).run(new PrimaryBackupKit(), Params.empty(), 1);
    assertEquals("", m.failures());
    assertEquals(600, m.throughput(), 600 * 0.2, "3 replicas x 200/s offered");
    assertEquals(0, m.notOk());
    // a PUT at replica d goes to the primary (0.25 ms one way unless local) which waits for both backups (0.5 ms RTT)
    assertTrue(m.medianMillis() > 0.5 && m.medianMillis() < 3, m.medianMillis() + " ms");
  }

  @Test
  void when_theLoadIsBeyondTheLeader_then_throughputStopsAtItsCpuAndDoesNotGrowWithReplicas() {
    ConsensusRun.Measure three = SHORT.withLoad(20_000, 8).run(new PrimaryBackupKit(), Params.empty(), 1);
    ConsensusRun.Measure five = SHORT.withNodes(5).withLoad(20_000, 8).run(new PrimaryBackupKit(), Params.empty(), 1);
    assertTrue(three.skipped() > 0, "offered beyond the cap");
    // every command costs the primary at least its request or forward, 2 x (replicas - 1) messages and the reply
    assertTrue(three.throughput() < 1e6 / (10 * 4), three.throughput() + "/s at 3 replicas");
    assertTrue(five.throughput() < three.throughput(), five.throughput() + "/s at 5 vs " + three.throughput() + " at 3");
  }

  @Test
  void when_complexCommandsAreAsked_then_theRunIssuesThatShareAsTransactions() {
    ConsensusRun setup = SHORT.withLoad(200, 8).withComplex(0.5, 2);
    SimResult r = new Simulation(setup.spec(Params.empty()), new ConsensusWorkloadTest.TxnAsPuts(), 1).run();
    long txns = r.history().operations().stream().filter(o -> o.type() == org.kvlab.history.Operation.Type.TXN).count();
    assertEquals(0.5, txns / (double) r.history().operations().size(), 0.1, txns + " transactions");
  }
}
