package org.kvlab.protocols.eventual;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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

/**
 * The explorer's fast path (search without the trace, the violation's run replayed with it) against its reference
 * path ({@link Explorer#referencePath}: the search with the trace recorded, as before the fast path): the same
 * states, by fingerprint, the same transitions, and the same violation with the same schedule.
 */
class ExploreFastPathTest {
  private static final SimSpec TWO_BY_ONE = SimSpec.defaults().withTopology(2, 1);

  private static Explorer explorer(Exploration e, String mode, boolean reference) {
    return new Explorer(e, new Explorer.Bounds(mode, 40, 1_000_000, 0, 5, false)).referencePath(reference);
  }

  @Test
  void fastAndReferencePaths_visitTheSameFingerprints_onCorrectEventual() {
    Exploration e = new Exploration(TWO_BY_ONE, new Eventual(), List.of(Script.at(0).put("k0", "a").get("k0"),
        Script.at(1).put("k0", "b").get("k0"), Script.at(1).get("k0")), 0, 0, List.of("session"), 1);
    Explorer fast = explorer(e, "bfs", false);
    Explorer reference = explorer(e, "bfs", true);
    Explorer.Result f = fast.run();
    Explorer.Result r = reference.run();
    assertNull(f.found());
    assertNull(r.found());
    assertTrue(f.exhausted() && r.exhausted(), f + " / " + r);
    assertTrue(f.states() > 500, "a configuration with some states to compare: " + f);
    assertEquals(r.states(), f.states());
    assertEquals(r.transitions(), f.transitions());
    assertEquals(r.completed(), f.completed());
    assertArrayEquals(reference.visitedFingerprints(), fast.visitedFingerprints());
    assertEquals(f.states(), fast.visitedFingerprints().length);
  }

  @Test
  void fastAndReferencePaths_findTheSameViolation_withTheSameSchedule_andBothRunsDraw() {
    Exploration e = new Exploration(TWO_BY_ONE, new Mutants.StaleReads(), EventualExploreTest.STALE, 0, 0,
        List.of("session"), 1);
    for (String mode : List.of("bfs", "random")) {
      Explorer fast = explorer(e, mode, false);
      Explorer reference = explorer(e, mode, true);
      Explorer.Result f = fast.run();
      Explorer.Result r = reference.run();
      assertNotNull(f.found(), mode + ": " + f);
      assertNotNull(r.found(), mode + ": " + r);
      assertEquals(r.found().choices(), f.found().choices(), mode);
      assertEquals(r.found().verdict().description(), f.found().verdict().description(), mode);
      assertEquals(r.states(), f.states(), mode);
      assertArrayEquals(reference.visitedFingerprints(), fast.visitedFingerprints(), mode);
      assertEquals(r.found().run().fingerprint(), f.found().run().fingerprint(), mode);
      // the fast path searched without the trace; the run it hands back is replayed with it, for the diagram
      String diagram = f.found().verdict().diagram(f.found().run(), 60);
      assertTrue(diagram.contains("recv"), diagram);
      assertEquals(r.found().verdict().diagram(r.found().run(), 60), diagram, mode);
    }
  }
}
