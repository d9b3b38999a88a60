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

  @Test
  void when_faultsHit30Seeds_then_theCheckersPass() {
    for (long seed = 1; seed <= 30; seed++) {
      SeedReport r = SimRunner.run(FAULTY, new ${ProtocolName}(), seed, CHECKS);
      assertTrue(r.ok(), () -> "seed " + r.seed() + " (replay: ./kvlab sim --protocol ${protocolName} --seeds "
          + r.seed() + "): " + r.checks() + " " + r.result().failures());
      long ok = r.result().history().operations().stream().filter(Operation::ok).count();
      assertTrue(ok >= 100, "seed " + seed + " did little work: " + ok + " operations");
    }
  }
}
