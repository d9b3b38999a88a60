package org.kvlab.protocols.dynastar;

import java.util.List;
import java.util.Set;
import org.kvlab.sim.explore.ExploreBench;

/**
 * docs/benchmarks/explore.md, DynaStar's rows: its two mutants against random seeds of {@code kvlab sim} in the
 * configuration of {@link DynaStarMutantsTest} (no faults), the failing seed shrunk. Usage: {@code scripts/bench/eval dynastar DynaStarExploreEvaluation}.
 */
public final class DynaStarExploreEvaluation {
  private DynaStarExploreEvaluation() {}

  public static void main(String[] args) {
    if (org.kvlab.eval.ProgramArgs.of("dynastar", "DynaStarExploreEvaluation", "", args, 0) == null) {
      return; // --help
    }
    System.out.print(ExploreBench.table(List.of(
        new ExploreBench.Case("dynastar-lender-no-wait", null, null, new DynaStar(),
            DynaStarCheckedSimTest.spec("mutant=lender-no-wait", Set.of()), List.of("strict-serializable"), 1000),
        new ExploreBench.Case("dynastar-client-destination", null, null, new DynaStar(),
            DynaStarCheckedSimTest.spec("mutant=client-destination", Set.of()), List.of("strict-serializable"), 1000))));
  }
}
