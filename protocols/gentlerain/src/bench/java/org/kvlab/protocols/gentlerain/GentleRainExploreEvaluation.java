package org.kvlab.protocols.gentlerain;

import java.util.List;
import org.kvlab.sim.explore.ExploreBench;
import org.kvlab.sim.explore.Exploration;
import org.kvlab.sim.explore.Explorer;

/**
 * docs/benchmarks/explore.md, GentleRain's rows: the GST-ignoring mutant found by {@code explore} (BFS over
 * photo/album) against random seeds of {@code kvlab sim} (the faulty configuration of its checked simulation test),
 * and explore's states per CPU-second on photo/album over the correct protocol. Usage:
 * {@code scripts/bench/eval gentlerain GentleRainExploreEvaluation}.
 */
public final class GentleRainExploreEvaluation {
  private GentleRainExploreEvaluation() {}

  public static void main(String[] args) {
    if (org.kvlab.eval.ProgramArgs.of("gentlerain", "GentleRainExploreEvaluation", "", args, 0) == null) {
      return; // --help
    }
    ExploreBench.Case mutant = new ExploreBench.Case("gentlerain-get-ignores-gst",
        GentleRainExploreTest.exploration(new GetIgnoresGst()), new Explorer.Bounds("bfs", 40, 1_000_000, 0, 1, false),
        new GetIgnoresGst(), GentleRainCheckedSimTest.FAULTY.withWorkload(GentleRainCheckedSimTest.FAULTY.workload()
            .withKeys(5)), List.of("causal"), 1000);
    System.out.println(ExploreBench.HEADER);
    System.out.println(ExploreBench.measure(mutant).markdown());
    System.out.println();
    System.out.println(ExploreBench.THROUGHPUT_HEADER);
    Exploration fixed = GentleRainExploreTest.exploration(new GentleRain());
    System.out.println(ExploreBench.throughput("GentleRain 2x2, photo/album (4 operations), 1 ms horizon", fixed, 60,
        5_000_000).markdown());
  }
}
