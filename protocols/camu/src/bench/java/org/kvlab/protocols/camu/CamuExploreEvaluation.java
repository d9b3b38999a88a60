package org.kvlab.protocols.camu;

import java.util.List;
import org.kvlab.sim.explore.ExploreBench;
import org.kvlab.sim.explore.Explorer;

/**
 * docs/benchmarks/explore.md, CaMu's row: the mutant that executes before the MEC gate, by {@code explore} (BFS of
 * {@link CamuExploreTest}'s two transactions, to the end: not found) against random seeds of {@code kvlab sim} in the
 * configuration of {@link CamuCheckedSimTest}'s mutant test, the failing seed shrunk. Usage: {@code scripts/bench/eval camu CamuExploreEvaluation}.
 */
public final class CamuExploreEvaluation {
  private CamuExploreEvaluation() {}

  public static void main(String[] args) {
    if (org.kvlab.eval.ProgramArgs.of("camu", "CamuExploreEvaluation", "", args, 0) == null) {
      return; // --help
    }
    System.out.print(ExploreBench.table(List.of(
        new ExploreBench.Case("camu-execute-before-mec-gate", CamuExploreTest.exploration("execute-before-mec-gate"),
            new Explorer.Bounds("bfs", 40, 1_000_000, 0, 1, false), new Camu(),
            CamuCheckedSimTest.spec("camu", "uniform", 2, "mutant=execute-before-mec-gate"), List.of("txn"), 1000))));
  }
}
