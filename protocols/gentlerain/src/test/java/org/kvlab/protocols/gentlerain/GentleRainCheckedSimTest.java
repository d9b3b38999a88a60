package org.kvlab.protocols.gentlerain;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.history.Operation;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/** GentleRain under partitions, 100 ms clock skew, crashes and slow nodes: causal, session, convergence, rotx. */
class GentleRainCheckedSimTest {
  static final SimSpec FAULTY = SimSpec.defaults().withFaultKinds(Set.of("partition", "skew", "crash", "slow"))
      .withMaxSkewMillis(100).withDuration(3_000_000)
      .withWorkload(SimSpec.defaults().workload().withRotx(0.2, 3));
  static final List<String> CHECKS = List.of("causal", "session", "convergence", "rotx");

  static void runSeeds(long from, long to) {
    long total = 0;
    long totalTx = 0;
    long failed = 0;
    for (long seed = from; seed <= to; seed++) {
      SeedReport r = SimRunner.run(FAULTY, new GentleRain(), seed, CHECKS);
      assertTrue(r.ok(), () -> "seed " + r.seed() + ": " + r.checks() + " " + r.result().failures());
      List<Operation> ops = r.result().history().operations();
      long okTx = ops.stream().filter(op -> op.type() == Operation.Type.ROTX && op.ok()).count();
      long ok = ops.stream().filter(Operation::ok).count();
      assertTrue(okTx >= 5 && ok >= 100, "seed " + seed + " did little work: " + ok + " ops, " + okTx + " rotx");
      total += ok;
      totalTx += okTx;
      failed += ops.size() - ok;
    }
    System.out.printf("GentleRain seeds %d..%d: %d ok ops (%d rotx), %d not ok%n", from, to, total, totalTx, failed);
  }

  @Test
  void when_faultsHitSeeds1To70_then_allCheckersPass() {
    runSeeds(1, 70);
  }

  @Test
  void when_faultsHitSeeds71To140_then_allCheckersPass() {
    runSeeds(71, 140);
  }

  @Test
  void when_faultsHitSeeds141To210_then_allCheckersPass() {
    runSeeds(141, 210);
  }
}
