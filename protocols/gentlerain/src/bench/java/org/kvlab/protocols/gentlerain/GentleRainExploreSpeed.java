package org.kvlab.protocols.gentlerain;

import org.kvlab.sim.explore.ExploreBench;

/**
 * docs/benchmarks/explore.md, "Speed": explore's states per CPU-second on GentleRain's photo/album (the configuration
 * of {@link GentleRainExploreEvaluation}'s throughput row), the fast path against the reference path, interleaved in
 * one JVM; with {@code plain}, only the default path's median ({@link ExploreBench#plain}). Usage:
 * {@code scripts/bench/eval gentlerain GentleRainExploreSpeed [REPETITIONS] [plain]}.
 */
public final class GentleRainExploreSpeed {
  private GentleRainExploreSpeed() {}

  public static void main(String[] args) {
    org.kvlab.eval.ProgramArgs a = org.kvlab.eval.ProgramArgs.of("gentlerain", "GentleRainExploreSpeed",
        "[REPETITIONS] [plain]", args, 2);
    if (a == null) {
      return; // --help
    }
    int repetitions = (int) a.positive(0, "REPETITIONS", 20);
    if (a.text(1, "").equals("plain")) {
      System.out.println(ExploreBench.plain(GentleRainExploreTest.exploration(new GentleRain()), 60, 5_000_000,
          repetitions));
      return;
    }
    System.out.println(ExploreBench.SPEED_HEADER);
    System.out.println(ExploreBench.speed("GentleRain 2x2, photo/album (4 operations), 1 ms horizon",
        GentleRainExploreTest.exploration(new GentleRain()), 60, 5_000_000, repetitions));
  }
}
