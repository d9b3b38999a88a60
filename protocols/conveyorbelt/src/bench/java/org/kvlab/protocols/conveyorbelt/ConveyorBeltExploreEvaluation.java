package org.kvlab.protocols.conveyorbelt;

import java.util.List;
import java.util.Map;
import org.kvlab.sim.explore.ExploreBench;

/**
 * docs/benchmarks/explore.md, the Conveyor Belt's rows: its two mutants against random seeds of {@code kvlab sim} in
 * the configurations of {@link ConveyorBeltMutantsTest}, the failing seed shrunk. Usage: {@code scripts/bench/eval conveyorbelt ConveyorBeltExploreEvaluation}.
 */
public final class ConveyorBeltExploreEvaluation {
  private ConveyorBeltExploreEvaluation() {}

  public static void main(String[] args) {
    if (org.kvlab.eval.ProgramArgs.of("conveyorbelt", "ConveyorBeltExploreEvaluation", "", args, 0) == null) {
      return; // --help
    }
    System.out.print(ExploreBench.table(List.of(
        new ExploreBench.Case("conveyorbelt-global-without-token", null, null, Mutants.globalWithoutToken(),
            ConveyorBeltCheckedSimTest.spec("list-append", Map.of()), List.of("serializable", "convergence"), 1000),
        new ExploreBench.Case("conveyorbelt-token-drops-early", null, null, Mutants.tokenDropsEarly(),
            ConveyorBeltCheckedSimTest.spec("store", Map.of()), List.of("store"), 1000))));
  }
}
