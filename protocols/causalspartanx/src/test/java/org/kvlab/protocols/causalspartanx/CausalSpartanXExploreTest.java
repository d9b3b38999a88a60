package org.kvlab.protocols.causalspartanx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Params;
import org.kvlab.api.Protocol;
import org.kvlab.sim.Scenarios;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.explore.Exploration;
import org.kvlab.sim.explore.Explorer;

/**
 * {@code kvlab explore} on CausalSpartanX (hybrid logical clocks; issue 35): BFS over photo/album finds the GET that
 * ignores the visibility rule, with a shortest schedule that replays to the same violation; the correct protocol has
 * no violation in the same space.
 */
class CausalSpartanXExploreTest {
  /** 2 x 2; heartbeats and DSV steps every second, past the 1 ms horizon; no activity leases (idleAfter 0). */
  static final SimSpec SPEC = SimSpec.defaults().withTopology(2, 2).withParams(new Params(Map.of("heartbeat", "1s",
      "dsvInterval", "1s", "idleInterval", "1s", "idleAfter", "0s")));
  /** Alice (dc0) puts the photo, then the album entry; Bob (dc1) reads the album, then the photo. */
  static final List<Script> PHOTO_ALBUM = Scenarios.photoAlbumSessions(SPEC.topology());

  static Exploration exploration(Protocol p) {
    return new Exploration(SPEC, p, PHOTO_ALBUM, 0, 1_000, List.of("causal"), 1);
  }

  static Explorer.Result bfs(Protocol p, int depth) {
    return new Explorer(exploration(p), new Explorer.Bounds("bfs", depth, 50_000, 0, 1, true)).run();
  }

  static Protocol mutant() {
    return Mutants.variant(CausalSpartanXServer.Variant.NO_VISIBILITY_RULE);
  }

  @Test
  void bfs_findsTheMissingVisibilityRule_withAShortestScheduleThatReplays() {
    Explorer.Result r = bfs(mutant(), 30);
    assertNotNull(r.found(), r.toString());
    List<String> choices = r.found().choices();
    assertEquals("causal", r.found().verdict().check(), r.found().verdict().description());
    // 4 operations x (invoke, request, reply) and the album's replication to Bob's datacenter
    assertEquals(13, choices.size(), choices.toString());
    assertTrue(choices.contains("deliver 0_1->1_1") && !choices.contains("deliver 0_0->1_0"), choices.toString());
    assertNull(bfs(mutant(), choices.size() - 1).found(), "nothing shorter fails");
    Exploration e = exploration(mutant());
    assertEquals(r.found().verdict().description(), e.verdict(e.replay(choices)).description());
  }

  @Test
  void bfs_ofCorrectCausalSpartanX_findsNothing() {
    Explorer.Result r = bfs(new CausalSpartanX(), 30);
    assertNull(r.found(), () -> "CausalSpartanX is causal: " + r.found().choices() + " " + r.found().verdict());
    assertTrue(r.exhausted(), r.stop());
    assertTrue(r.completed() > 0, r.toString());
    assertEquals(112, r.states(), "the state count of this configuration changed");
  }
}
