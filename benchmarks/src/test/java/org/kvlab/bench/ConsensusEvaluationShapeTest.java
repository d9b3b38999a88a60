package org.kvlab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.kvlab.sim.ConsensusRun;

/** A cut-down ConsensusEvaluation (short runs): Fig 10.2a's order at 3 and 5 replicas, Fig 10.5's locality drop. */
class ConsensusEvaluationShapeTest {
  private static final ConsensusEvaluation.Proto M2PAXOS = ConsensusEvaluation.PROTOS.get(0);
  private static final ConsensusEvaluation.Proto MULTIPAXOS = ConsensusEvaluation.PROTOS.get(1);

  private static ConsensusRun.Measure peak(ConsensusEvaluation.Proto p, int n, double locality) {
    return ConsensusEvaluation.run(p, ConsensusEvaluation.peakSetup(n).withLocality(locality).withDuration(100_000));
  }

  @Test
  void when_replicasGrow_then_theLeaderFallsBehind_andWithoutLocalityM2PaxosForwardsAndLosesThroughput() {
    ConsensusRun.Measure m3 = peak(M2PAXOS, 3, 1.0);
    ConsensusRun.Measure p3 = peak(MULTIPAXOS, 3, 1.0);
    ConsensusRun.Measure m5 = peak(M2PAXOS, 5, 1.0);
    ConsensusRun.Measure p5 = peak(MULTIPAXOS, 5, 1.0);
    assertEquals(0, m3.slow() + m5.slow() + m5.forwarded(), "100% locality on the initial owners: owner path only");
    assertTrue(m3.throughput() > 1.2 * p3.throughput(), m3 + " vs " + p3);
    assertTrue(m5.throughput() > 2 * p5.throughput(), m5 + " vs " + p5);
    assertTrue(p5.throughput() < 0.7 * p3.throughput(), "the leader: " + p3 + " then " + p5);
    ConsensusRun.Measure remote = peak(M2PAXOS, 5, 0.0);
    assertTrue(remote.forwarded() > 0.9 * remote.ok(), "every command forwarded: " + remote);
    assertTrue(remote.throughput() < 0.95 * m5.throughput(), remote + " vs " + m5);
  }
}
