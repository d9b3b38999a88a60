package org.kvlab.protocols.cops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Protocol;
import org.kvlab.sim.Scenarios;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.explore.Exploration;
import org.kvlab.sim.explore.Explorer;

/**
 * {@code kvlab explore} on COPS (issue 35): BFS over photo/album finds the mutant that skips dependency checks, with a
 * shortest schedule that replays to the same violation; correct COPS has none in the same space.
 */
class CopsExploreTest {
  static final SimSpec SPEC = SimSpec.defaults().withTopology(2, 2);
  /** Alice (dc0) puts the photo, then the album entry; Bob (dc1) reads the album, then the photo. */
  static final List<Script> PHOTO_ALBUM = Scenarios.photoAlbumSessions(SPEC.topology());

  static Exploration exploration(Protocol p) {
    return new Exploration(SPEC, p, PHOTO_ALBUM, 0, 0, List.of("causal"), 1);
  }

  static Explorer.Result bfs(Protocol p, int depth) {
    return new Explorer(exploration(p), new Explorer.Bounds("bfs", depth, 300_000, 0, 1, true)).run();
  }

  @Test
  void bfs_findsTheSkippedDependencyChecks_withAShortestScheduleThatReplays() {
    Explorer.Result r = bfs(new CopsCheckedSimTest.SkipDependencyChecks(), 30);
    assertNotNull(r.found(), r.toString());
    List<String> choices = r.found().choices();
    assertEquals("causal", r.found().verdict().check(), r.found().verdict().description());
    assertEquals(COPS_MUTANT_DEPTH, choices.size(), choices.toString());
    assertNull(bfs(new CopsCheckedSimTest.SkipDependencyChecks(), choices.size() - 1).found(), "nothing shorter fails");
    Exploration e = exploration(new CopsCheckedSimTest.SkipDependencyChecks());
    Exploration.Verdict again = e.verdict(e.replay(choices));
    assertNotNull(again);
    assertEquals(r.found().verdict().description(), again.description());
  }

  /** 4 operations x (invoke, request, reply) and the album's replication to Bob's datacenter. */
  static final int COPS_MUTANT_DEPTH = 13;

  @Test
  void bfs_ofCorrectCops_findsNothing() {
    Explorer.Result r = bfs(new Cops(), 30);
    assertNull(r.found(), () -> "COPS is causal: " + r.found().choices() + " " + r.found().verdict());
    assertTrue(r.exhausted(), r.stop());
    assertTrue(r.completed() > 0, r.toString());
  }
}
