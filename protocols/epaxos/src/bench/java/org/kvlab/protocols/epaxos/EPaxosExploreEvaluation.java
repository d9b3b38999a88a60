package org.kvlab.protocols.epaxos;

import java.util.List;
import org.kvlab.sim.explore.ExploreBench;

/**
 * docs/benchmarks/explore.md, EPaxos's rows: its two mutants against random seeds of {@code kvlab sim} in the
 * contended configuration of {@link EPaxosMutantTest}, the failing seed shrunk. {@code explore} does not drive them
 * (the page says why). Usage: {@code scripts/bench/eval epaxos EPaxosExploreEvaluation}.
 */
public final class EPaxosExploreEvaluation {
  private EPaxosExploreEvaluation() {}

  public static void main(String[] args) {
    if (org.kvlab.eval.ProgramArgs.of("epaxos", "EPaxosExploreEvaluation", "", args, 0) == null) {
      return; // --help
    }
    System.out.print(ExploreBench.table(List.of(
        new ExploreBench.Case("epaxos-execute-on-commit", null, null, Mutants.executeOnCommit(),
            EPaxosMutantTest.CONTENDED, List.of("linearizable"), 1000),
        new ExploreBench.Case("epaxos-fast-without-agreement", null, null, Mutants.fastPathWithoutAgreement(),
            EPaxosMutantTest.CONTENDED, List.of("linearizable"), 1000))));
  }
}
