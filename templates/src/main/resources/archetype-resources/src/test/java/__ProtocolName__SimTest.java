package ${package};

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.history.Operation;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/** ${ProtocolName} in the deterministic simulator, under faults, judged by the consistency checkers. */
class ${ProtocolName}SimTest {
  /** TODO add "skew" and the checkers of the paper's guarantee ("causal", "rotx") once the rules are in. */
  static final SimSpec FAULTY = SimSpec.defaults().withFaultKinds(Set.of("partition", "crash", "slow"))
      .withDuration(2_000_000);
  static final List<String> CHECKS = List.of("convergence");
  /**
   * Round trips between datacenters an operation may wait for: 1 allows a primary in another datacenter or a
   * synchronous remote replica. TODO raise it if each operation of the paper waits for more.
   */
  static final int WAN_ROUND_TRIPS = 1;
  /**
   * The least work a seed must show: a fifth of what the sessions complete in the simulated duration at
   * WAN_ROUND_TRIPS per operation over the configured RTT (faults stall sessions: with one WAN round trip per
   * operation, every seed of these 30 does more than a quarter). It grows with the duration and the sessions, so a
   * protocol that answers nothing fails at any setting.
   */
  static final long LEAST_WORK = Math.max(1, FAULTY.closedLoopOperations(WAN_ROUND_TRIPS) / 5);

  @Test
  void when_faultsHit30Seeds_then_theCheckersPass() {
    for (long seed = 1; seed <= 30; seed++) {
      SeedReport r = SimRunner.run(FAULTY, new ${ProtocolName}(), seed, CHECKS);
      assertTrue(r.ok(), () -> "seed " + r.seed() + " (replay: ./kvlab sim --protocol ${protocolName} --seeds "
          + r.seed() + "): " + r.checks() + " " + r.result().failures());
      long ok = r.result().history().operations().stream().filter(Operation::ok).count();
      assertTrue(ok >= LEAST_WORK, "seed " + seed + " did little work: " + ok + " operations, fewer than " + LEAST_WORK
          + " (a fifth of " + FAULTY.closedLoopOperations(WAN_ROUND_TRIPS) + " at " + WAN_ROUND_TRIPS
          + " WAN round trip(s) per operation; raise WAN_ROUND_TRIPS if the protocol needs more)");
    }
  }
}
