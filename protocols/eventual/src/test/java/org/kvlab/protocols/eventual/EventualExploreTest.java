package org.kvlab.protocols.eventual;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.explore.Exploration;
import org.kvlab.sim.explore.Explorer;

/** {@code kvlab explore} on Eventual: its stale-reads mutant found by BFS with a shortest schedule that replays. */
class EventualExploreTest {
  static final SimSpec TWO_BY_ONE = SimSpec.defaults().withTopology(2, 1);

  @Test
  void bfs_findsTheStaleReadsMutant() {
    Exploration e = new Exploration(TWO_BY_ONE, new Mutants.StaleReads(),
        List.of(Script.at(0).put("k0", "a").put("k0", "b").get("k0").get("k0")), 0, List.of("session"), 1);
    Explorer.Result r = new Explorer(e, new Explorer.Bounds("bfs", 20, 100_000, 0, 1, true)).run();
    System.out.println(r);
    assertNotNull(r.found());
    System.out.println(r.found().choices());
    System.out.println(r.found().verdict().diagram(r.found().run(), 40));
  }

  @Test
  void bfs_correctEventualPasses() {
    Exploration e = new Exploration(TWO_BY_ONE, new Eventual(),
        List.of(Script.at(0).put("k0", "a").get("k0"), Script.at(1).put("k0", "b").get("k0")), 0, List.of("session"), 1);
    Explorer.Result r = new Explorer(e, new Explorer.Bounds("bfs", 30, 100_000, 0, 1, true)).run();
    System.out.println(r);
    assertNull(r.found());
  }
}
