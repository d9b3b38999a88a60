package org.kvlab.protocols.gentlerain;

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
 * {@code kvlab explore} on GentleRain, a physical-clock protocol (issue 35): BFS over photo/album's four operations
 * finds the GST-ignoring mutant's causal violation with a shortest schedule that replays to it; the correct protocol
 * explored over the same operations has no violation.
 */
class GentleRainExploreTest {
  /**
   * 2 datacenters x 2 partitions; heartbeats and GST steps every second, past the 1 ms horizon, so the only timers that
   * fire are the PUTs' "wait until the clock passes dt" (GST stays put: nothing remote becomes visible to a correct
   * GentleRain; the mutant ignores GST); idleAfter 0: no activity leases between servers (kit frames that would only
   * multiply the interleavings).
   */
  static final SimSpec SPEC = SimSpec.defaults().withTopology(2, 2).withParams(new org.kvlab.api.Params(java.util.Map.of(
      "heartbeat", "1s", "gstInterval", "1s", "idleInterval", "1s", "idleAfter", "0s")));
  static final long HORIZON_MICROS = 1_000;
  /** Alice (dc0) puts the photo, then the album entry; Bob (dc1) reads the album, then the photo. */
  static final List<Script> PHOTO_ALBUM = Scenarios.photoAlbumSessions(SPEC.topology());

  static Exploration exploration(Protocol p) {
    return new Exploration(SPEC, p, PHOTO_ALBUM, 0, HORIZON_MICROS, List.of("causal"), 1);
  }

  static Explorer.Result bfs(Protocol p, int depth) {
    return new Explorer(exploration(p), new Explorer.Bounds("bfs", depth, 300_000, 0, 1, true)).run();
  }

  @Test
  void bfs_findsTheGstIgnoringMutant_withAShortestScheduleThatReplays() {
    Explorer.Result r = bfs(new GetIgnoresGst(), 30);
    assertNotNull(r.found(), r.toString());
    List<String> choices = r.found().choices();
    assertEquals("causal", r.found().verdict().check());
    // 4 operations x (invoke, request, reply) = 12, the album's replication to dc1, and the PUT's clock wait
    assertEquals(14, choices.size(), choices.toString());
    assertTrue(choices.contains("deliver 0_1->1_1"), "the album replicates to Bob's datacenter: " + choices);
    assertTrue(choices.stream().noneMatch(c -> c.equals("deliver 0_0->1_0")), "the photo does not: " + choices);
    assertNull(bfs(new GetIgnoresGst(), choices.size() - 1).found(), "nothing shorter fails");
    Exploration e = exploration(new GetIgnoresGst());
    Exploration.Verdict again = e.verdict(e.replay(choices));
    assertNotNull(again);
    assertEquals(r.found().verdict().description(), again.description());
    assertEquals(Explorer.fingerprints(e, choices), Explorer.fingerprints(e, choices));
  }

  @Test
  void bfs_ofCorrectGentleRain_findsNothing_inTheSameStatesEveryTime() {
    Explorer.Result r = bfs(new GentleRain(), 30);
    assertNull(r.found(), () -> "GentleRain is causal: " + r.found().choices() + " " + r.found().verdict());
    assertTrue(r.exhausted(), r.stop());
    assertTrue(r.completed() > 0, r.toString());
    assertEquals(r.states(), bfs(new GentleRain(), 30).states());
    assertEquals(GENTLERAIN_STATES, r.states());
  }

  /** Distinct states of photo/album under the correct GentleRain in {@link #SPEC} (regression). */
  static final long GENTLERAIN_STATES = 166;
}
