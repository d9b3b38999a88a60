package org.kvlab.protocols.accf;

import java.util.List;
import java.util.Set;
import org.kvlab.sim.explore.ExploreBench;

/**
 * docs/benchmarks/explore.md, ACCF's rows: its two mutants against random seeds of {@code kvlab sim} in the
 * configuration of {@link AccfCheckedSimTest}'s mutant tests (slow nodes, partitions), the failing seed shrunk.
 * {@code explore} does not drive them (the page says why). Usage: {@code scripts/bench/eval accf AccfExploreEvaluation}.
 */
public final class AccfExploreEvaluation {
  private AccfExploreEvaluation() {}

  public static void main(String[] args) {
    if (org.kvlab.eval.ProgramArgs.of("accf", "AccfExploreEvaluation", "", args, 0) == null) {
      return; // --help
    }
    System.out.print(ExploreBench.table(List.of(
        new ExploreBench.Case("accf-no-get-wait", null, null, Mutants.variant(AccfServer.Variant.NO_GET_WAIT),
            AccfCheckedSimTest.grouping("server", "server").withFaultKinds(Set.of("slow", "partition")),
            List.of("causal"), 1000),
        new ExploreBench.Case("accf-no-client-deps", null, null, Mutants.variant(AccfServer.Variant.NO_CLIENT_DEPS),
            AccfCheckedSimTest.grouping("server", "server").withFaultKinds(Set.of("slow", "partition")),
            List.of("causal"), 1000))));
  }
}
