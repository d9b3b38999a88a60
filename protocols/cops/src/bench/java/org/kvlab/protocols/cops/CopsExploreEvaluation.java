package org.kvlab.protocols.cops;

import java.util.List;
import org.kvlab.sim.explore.ExploreBench;
import org.kvlab.sim.explore.Explorer;

/**
 * docs/benchmarks/explore.md, COPS's row: the mutant that skips dependency checks found by {@code explore} (BFS over
 * photo/album) against random seeds of {@code kvlab sim} (the faulty configuration of its checked simulation test).
 * Usage: {@code scripts/bench/eval cops CopsExploreEvaluation}.
 */
public final class CopsExploreEvaluation {
  private CopsExploreEvaluation() {}

  public static void main(String[] args) {
    if (org.kvlab.eval.ProgramArgs.of("cops", "CopsExploreEvaluation", "", args, 0) == null) {
      return; // --help
    }
    ExploreBench.Case mutant = new ExploreBench.Case("cops-skip-dep-checks",
        CopsExploreTest.exploration(new CopsCheckedSimTest.SkipDependencyChecks()),
        new Explorer.Bounds("bfs", 40, 1_000_000, 0, 1, false), new CopsCheckedSimTest.SkipDependencyChecks(),
        CopsCheckedSimTest.FAULTY, List.of("causal"), 1000);
    System.out.println(ExploreBench.HEADER);
    System.out.println(ExploreBench.measure(mutant).markdown());
  }
}
