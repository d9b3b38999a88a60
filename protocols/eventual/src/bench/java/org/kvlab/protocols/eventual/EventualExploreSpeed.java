package org.kvlab.protocols.eventual;

import java.util.List;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.explore.ExploreBench;
import org.kvlab.sim.explore.Exploration;

/**
 * docs/benchmarks/explore.md, "Speed": explore's states per CPU-second on Eventual 2x1 with three sessions, the fast
 * path against the reference path (every state restored by replay from the initial state, with the trace), interleaved
 * in one JVM. With {@code plain}, only the default path's median ({@link ExploreBench#plain}). Usage:
 * {@code scripts/bench/eval eventual EventualExploreSpeed [REPETITIONS] [MAX_STATES] [plain]}.
 */
public final class EventualExploreSpeed {
  private EventualExploreSpeed() {}

  /** Eventual 2x1, three sessions of two or three operations on one key: a few ten thousand states. */
  static Exploration config() {
    return new Exploration(SimSpec.defaults().withTopology(2, 1), new Eventual(),
        List.of(Script.at(0).put("k0", "a").get("k0").put("k0", "c"), Script.at(1).put("k0", "b").get("k0"),
            Script.at(1).get("k0").put("k0", "d")), 0, 0, List.of("session"), 1);
  }

  public static void main(String[] args) {
    org.kvlab.eval.ProgramArgs a = org.kvlab.eval.ProgramArgs.of("eventual", "EventualExploreSpeed",
        "[REPETITIONS] [MAX_STATES] [plain]", args, 3);
    if (a == null) {
      return; // --help
    }
    if (a.text(2, "").equals("plain")) {
      System.out.println(ExploreBench.plain(config(), 60, a.positive(1, "MAX_STATES", 20_000), (int) a.positive(0, "REPETITIONS",
          3)));
      return;
    }
    System.out.println(ExploreBench.SPEED_HEADER);
    System.out.println(ExploreBench.speed("Eventual 2x1, 3 sessions, 7 operations, 1 key", config(), 60,
        a.positive(1, "MAX_STATES", 20_000), (int) a.positive(0, "REPETITIONS", 3)));
  }
}
