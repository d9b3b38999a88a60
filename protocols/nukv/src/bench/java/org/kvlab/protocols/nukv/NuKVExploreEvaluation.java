package org.kvlab.protocols.nukv;

import java.util.ArrayList;
import java.util.List;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.explore.ExploreBench;

/**
 * docs/benchmarks/explore.md, NuKV's rows: its four client mutants (each drops one rule of Alg 4.1) against random
 * seeds of {@code kvlab sim} in the configuration of {@link NuKVCheckedSimTest}'s mutant test (skew larger than the
 * WAN delay), the failing seed shrunk. {@code explore} does not drive them: they need a datacenter whose clock lags
 * (explore's clocks all read one time) and Raft leaders elected on timers of seconds (docs/benchmarks/explore.md says
 * more). Usage: {@code scripts/bench/eval nukv NuKVExploreEvaluation}.
 */
public final class NuKVExploreEvaluation {
  private NuKVExploreEvaluation() {}

  public static void main(String[] args) {
    if (org.kvlab.eval.ProgramArgs.of("nukv", "NuKVExploreEvaluation", "", args, 0) == null) {
      return; // --help
    }
    SimSpec skewed = NuKVCheckedSimTest.faulty("mr+ryw", "mw+wfr", 100);
    List<ExploreBench.Case> cases = new ArrayList<>();
    for (NuKVClient.Drop drop : NuKVClient.Drop.values()) {
      cases.add(new ExploreBench.Case("nukv-without-" + drop.name().toLowerCase(), null, null,
          Mutants.dropping(drop), skewed, List.of("session"), 150));
    }
    System.out.print(ExploreBench.table(cases));
  }
}
