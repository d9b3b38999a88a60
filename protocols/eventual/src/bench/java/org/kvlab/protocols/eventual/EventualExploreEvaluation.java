package org.kvlab.protocols.eventual;

import java.util.List;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.explore.ExploreBench;
import org.kvlab.sim.explore.Exploration;
import org.kvlab.sim.explore.Explorer;

/**
 * docs/benchmarks/explore.md, Eventual's rows: its stale-reads mutant found by {@code explore} (BFS) against random
 * seeds of {@code kvlab sim}, and explore's states per CPU-second on a fixed small configuration of the correct
 * protocol. Usage: {@code scripts/bench/eval eventual EventualExploreEvaluation}.
 */
public final class EventualExploreEvaluation {
  private EventualExploreEvaluation() {}

  /** The fixed configuration of the throughput row: 2x1, two sessions of a put and a get of one key each. */
  static Exploration fixed() {
    return new Exploration(SimSpec.defaults().withTopology(2, 1), new Eventual(),
        List.of(Script.at(0).put("k0", "a").get("k0").put("k0", "c"), Script.at(1).put("k0", "b").get("k0")), 0, 0,
        List.of("session"), 1);
  }

  public static void main(String[] args) {
    if (org.kvlab.eval.ProgramArgs.of("eventual", "EventualExploreEvaluation", "", args, 0) == null) {
      return; // --help
    }
    SimSpec seeds = SimSpec.defaults().withDuration(2_000_000).withFaultKinds(java.util.Set.of("partition", "crash",
        "slow"));
    ExploreBench.Case stale = new ExploreBench.Case("eventual-stale-reads",
        new Exploration(SimSpec.defaults().withTopology(2, 1), new Mutants.StaleReads(),
            List.of(Script.at(0).put("k0", "a").put("k0", "b").get("k0").get("k0")), 0, 0, List.of("session"), 1),
        new Explorer.Bounds("bfs", 40, 1_000_000, 0, 1, false), new Mutants.StaleReads(), seeds, List.of("session"),
        1000);
    System.out.println(ExploreBench.HEADER);
    System.out.println(ExploreBench.measure(stale).markdown());
    System.out.println();
    System.out.println(ExploreBench.THROUGHPUT_HEADER);
    System.out.println(ExploreBench.throughput("Eventual 2x1, 2 sessions, 5 operations, 1 key", fixed(), 60, 5_000_000)
        .markdown());
  }
}
