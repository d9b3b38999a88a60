package org.kvlab.protocols.causalspartanx;

import java.util.List;
import java.util.Set;
import org.kvlab.sim.explore.ExploreBench;
import org.kvlab.sim.explore.Explorer;

/**
 * docs/benchmarks/explore.md, CausalSpartanX's row: the GET without the visibility rule found by {@code explore} (BFS
 * over photo/album) against random seeds of {@code kvlab sim} (the configuration of its checked simulation test's
 * catch: slow nodes and partitions). Usage: {@code scripts/bench/eval causalspartanx CausalSpartanXExploreEvaluation}.
 */
public final class CausalSpartanXExploreEvaluation {
  private CausalSpartanXExploreEvaluation() {}

  public static void main(String[] args) {
    if (org.kvlab.eval.ProgramArgs.of("causalspartanx", "CausalSpartanXExploreEvaluation", "", args, 0) == null) {
      return; // --help
    }
    ExploreBench.Case mutant = new ExploreBench.Case("causalspartanx-no-visibility-rule",
        CausalSpartanXExploreTest.exploration(CausalSpartanXExploreTest.mutant()),
        new Explorer.Bounds("bfs", 40, 1_000_000, 0, 1, false), CausalSpartanXExploreTest.mutant(),
        CausalSpartanXSimTest.FAULTY.withFaultKinds(Set.of("slow", "partition")), List.of("causal"), 1000);
    System.out.println(ExploreBench.HEADER);
    System.out.println(ExploreBench.measure(mutant).markdown());
  }
}
