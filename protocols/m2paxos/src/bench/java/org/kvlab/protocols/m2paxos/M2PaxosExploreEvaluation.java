package org.kvlab.protocols.m2paxos;

import java.util.List;
import org.kvlab.sim.explore.ExploreBench;

/**
 * docs/benchmarks/explore.md, M²Paxos's rows: its two mutants against random seeds of {@code kvlab sim} in the
 * configurations of {@link M2PaxosMutantsTest}, the failing seed shrunk. {@code explore} does not drive them (the page
 * says why). Usage: {@code scripts/bench/eval m2paxos M2PaxosExploreEvaluation}.
 */
public final class M2PaxosExploreEvaluation {
  private M2PaxosExploreEvaluation() {}

  public static void main(String[] args) {
    if (org.kvlab.eval.ProgramArgs.of("m2paxos", "M2PaxosExploreEvaluation", "", args, 0) == null) {
      return; // --help
    }
    System.out.print(ExploreBench.table(List.of(
        new ExploreBench.Case("m2paxos-owner-without-quorum", null, null, Mutants.ownerWithoutQuorum(),
            M2PaxosCheckedSimTest.spec("none", false), List.of("linearizable"), 1000),
        new ExploreBench.Case("m2paxos-acquisition-ignores-toforce", null, null,
            Mutants.acquisitionIgnoresToForce(), M2PaxosCheckedSimTest.spec("none", true),
            List.of("strict-serializable"), 1000))));
  }
}
