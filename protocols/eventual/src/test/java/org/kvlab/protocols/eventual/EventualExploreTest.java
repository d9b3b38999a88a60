package org.kvlab.protocols.eventual;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.sim.ControlledRun;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.explore.Exploration;
import org.kvlab.sim.explore.Explorer;
import org.kvlab.sim.explore.Schedule;
import org.kvlab.sim.explore.ScheduleShrinker;

/**
 * {@code kvlab explore} on Eventual (issue 35): BFS finds the stale-reads mutant with a shortest schedule that replays
 * (also through the schedule file's text) to the same violation; the correct protocol explored exhaustively in a tiny
 * configuration has no violation and the same state count every time; every explored schedule replays to the same
 * fingerprints; random walks find the mutant too, and the shrinker cuts their schedule down.
 */
class EventualExploreTest {
  static final SimSpec TWO_BY_ONE = SimSpec.defaults().withTopology(2, 1);
  /** Two versions of k0, then two reads: the mutant answers every other read with the older version. */
  static final List<Script> STALE = List.of(Script.at(0).put("k0", "a").put("k0", "b").get("k0").get("k0"));

  private static Exploration stale() {
    return new Exploration(TWO_BY_ONE, new Mutants.StaleReads(), STALE, 0, 0, List.of("session"), 1);
  }

  private static Explorer.Result bfs(Exploration e, int depth) {
    return new Explorer(e, new Explorer.Bounds("bfs", depth, 1_000_000, 0, 1, true)).run();
  }

  @Test
  void bfs_findsTheStaleReadsMutant_withAShortestScheduleThatReplaysToTheSameViolation() {
    Explorer.Result r = bfs(stale(), 30);
    assertNotNull(r.found(), "BFS must find the stale read: " + r);
    Explorer.Found f = r.found();
    assertEquals("session", f.verdict().check(), f.verdict().description());
    // 4 operations of one session, each invoke + request + reply: nothing shorter can complete the history
    assertEquals(12, f.choices().size(), f.choices().toString());
    assertTrue(f.verdict().description().toLowerCase().contains("read"), f.verdict().description());
    Explorer.Result shorter = bfs(stale(), f.choices().size() - 1);
    assertNull(shorter.found(), "no schedule shorter than BFS's fails");
    assertTrue(shorter.replaysChecked() > 0);

    ControlledRun again = stale().replay(f.choices());
    Exploration.Verdict v = stale().verdict(again);
    assertNotNull(v, "the schedule replays to a violation");
    assertEquals(f.verdict().description(), v.description());
    assertEquals(f.run().fingerprint(), again.fingerprint());
    assertTrue(v.diagram(again, 60).contains("s0@dc0"), v.diagram(again, 60));

    Schedule file = new Schedule("eventual-stale-reads", 2, 1, java.util.Map.of(), STALE, 0, 0, List.of("session"), 1,
        f.choices(), v.check() + ": " + v.description());
    Schedule parsed = Schedule.parse(file.format(), "test");
    assertEquals(file, parsed, file.format());
    Exploration fromFile = new Exploration(TWO_BY_ONE, new Mutants.StaleReads(), parsed.sessions(), parsed.crashes(),
        parsed.horizonMicros(), parsed.checks(), parsed.seed());
    assertEquals(f.verdict().description(), fromFile.verdict(fromFile.replay(parsed.choices())).description());
  }

  @Test
  void bfs_ofCorrectEventual_inATinyConfig_findsNothing_andCountsTheSameStatesEveryTime() {
    Exploration e = new Exploration(TWO_BY_ONE, new Eventual(),
        List.of(Script.at(0).put("k0", "a").get("k0"), Script.at(1).put("k0", "b").get("k0")), 0, 0,
        List.of("session"), 1);
    Explorer.Result first = bfs(e, 40);
    Explorer.Result second = bfs(e, 40);
    assertNull(first.found(), () -> "Eventual keeps session guarantees in one datacenter: " + first.found().choices());
    assertTrue(first.exhausted(), first.stop());
    assertEquals(first.states(), second.states());
    assertEquals(first.transitions(), second.transitions());
    assertEquals(EVENTUAL_TINY_STATES, first.states(), "the state count of this configuration changed");
    assertTrue(first.completed() > 0, "some histories were completed and checked");
  }

  /** Distinct states of {@link #bfs_ofCorrectEventual_inATinyConfig_findsNothing_andCountsTheSameStatesEveryTime}. */
  static final long EVENTUAL_TINY_STATES = 164;

  @Test
  void everyExploredSchedule_replaysToTheSameFingerprints() {
    Exploration e = new Exploration(TWO_BY_ONE, new Eventual(),
        List.of(Script.at(0).put("k0", "a").put("k1", "b"), Script.at(1).get("k1").get("k0")), 1, 0,
        List.of("session"), 7);
    // random walks with a crash allowed, each replayed and compared event by event (selfCheck)
    Explorer.Result walks = new Explorer(e, new Explorer.Bounds("random", 30, 200, 0, 7, true)).run();
    assertNull(walks.found());
    assertEquals("max-states", walks.stop());
    assertTrue(walks.replaysChecked() >= 10, "every walk replayed: " + walks);
    // and BFS, whose every expansion replays a state and compares its fingerprint
    Explorer.Result bfs = new Explorer(e, new Explorer.Bounds("bfs", 8, 5_000, 0, 1, true)).run();
    assertEquals(bfs.transitions(), bfs.replaysChecked());
    assertTrue(bfs.replaysChecked() > 100, bfs.toString());
    List<String> one = new Explorer(e, new Explorer.Bounds("random", 30, 1, 0, 3, false)).run().found() == null
        ? walk(e, 3) : List.of();
    assertEquals(Explorer.fingerprints(e, one), Explorer.fingerprints(e, one));
  }

  /** One random walk's schedule, to the end of the history. */
  private static List<String> walk(Exploration e, long seed) {
    java.util.Random r = new java.util.Random(seed);
    ControlledRun run = e.start();
    while (!run.complete() && !run.enabled().isEmpty() && run.taken().size() < 40) {
      List<String> en = run.enabled();
      run.take(en.get(r.nextInt(en.size())));
    }
    assertTrue(run.taken().size() > 4, run.taken().toString());
    return run.taken();
  }

  @Test
  void randomWalks_findTheMutant_andTheShrinkerCutsTheirSchedule() {
    Exploration e = new Exploration(TWO_BY_ONE, new Mutants.StaleReads(),
        List.of(STALE.get(0), Script.at(1).put("k1", "x").get("k1").get("k0")), 0, 0, List.of("session"), 1);
    Explorer.Result r = new Explorer(e, new Explorer.Bounds("random", 60, 10_000, 0, 5, false)).run();
    assertNotNull(r.found(), r.toString());
    ScheduleShrinker.Shrunk s = ScheduleShrinker.shrink(e, r.found().choices(), r.found().verdict().check(), 5_000);
    assertEquals("session", s.verdict().check());
    assertTrue(s.after().size() < r.found().choices().size(), r.found().choices() + " -> " + s.after());
    // the history is checked once complete: the 7 operations' invocations, requests and replies, nothing else
    assertEquals(21, s.after().size(), "shrinks to the operations' own events: " + s.after());
    assertFalse(s.after().stream().anyMatch(c -> c.contains("0_0->1_0") || c.contains("1_0->0_0")),
        "no replication message is needed: " + s.after());
    assertEquals(s.verdict().description(), e.verdict(e.replay(s.after())).description(), "the shrunk schedule replays");
  }
}
