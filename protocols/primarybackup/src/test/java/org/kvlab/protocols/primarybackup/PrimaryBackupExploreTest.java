package org.kvlab.protocols.primarybackup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Protocol;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.explore.Exploration;
import org.kvlab.sim.explore.Explorer;
import org.kvlab.sim.explore.Shortest;

/**
 * {@code kvlab explore} on primary-backup (issue 35): BFS finds backups that answer reads from their own copy (a read
 * at the primary sees the write, a later read at the backup does not: not linearizable) and the early answer with
 * backup reads (a session writes, then reads at a backup that has no copy yet: not read-your-writes), each with a
 * shortest schedule that replays; the correct protocol has no violation in the same spaces. The early answer alone
 * is invisible to every checker (nothing reads a backup), in explore as in {@code kvlab sim}.
 */
class PrimaryBackupExploreTest {
  static final SimSpec SPEC = SimSpec.defaults().withTopology(2, 1);
  /** A write at the primary; a read there; then a read at the backup. */
  static final List<Script> READS = List.of(Script.at(0).put("k0", "a"), Script.at(0).get("k0"),
      Script.at(1).get("k0"));
  /** One session writes at the primary, then reads at the backup. */
  static final List<Script> MOVES = List.of(Script.at(0).put("k0", "a").moveTo(1).get("k0"));

  static Exploration backupReads(Protocol p) {
    return new Exploration(SPEC, p, READS, 0, 0, List.of("linearizable"), 1);
  }

  static Exploration earlyAck(Protocol p) {
    return new Exploration(SPEC, p, MOVES, 0, 0, List.of("session"), 1);
  }

  static Explorer.Result bfs(Exploration e, int depth) {
    return new Explorer(e, new Explorer.Bounds("bfs", depth, 50_000, 0, 1, true)).run();
  }

  private static void foundShortest(Exploration e, String check, int events, long states) {
    Shortest s = Shortest.search(e, 30, 50_000);
    assertTrue(s.found(), s.toString());
    assertEquals(check, s.check(), s.toString());
    assertEquals(events, s.depth(), s.toString());
    assertEquals(states, s.result().states(), "the state count of this configuration changed");
    assertTrue(s.replays(), "replays to the same violation: " + s.replayed());
    assertTrue(s.shortest(), "nothing shorter fails: " + s.shallower());
  }

  @Test
  void bfs_findsBackupReads_withAShortestScheduleThatReplays() {
    // the put at the primary, a read there, the read at the backup answered before the copy arrives
    foundShortest(backupReads(Mutants.backupReads()), "linearizable", 11, 211);
  }

  @Test
  void bfs_findsTheEarlyAnswerWithBackupReads_withAShortestScheduleThatReplays() {
    // put answered at once, the session moves to the backup and reads nothing there
    foundShortest(earlyAck(Mutants.earlyAckBackupReads()), "session", 7, 17);
  }

  @Test
  void bfs_ofTheEarlyAnswerAlone_andOfCorrectPrimaryBackup_findsNothing() {
    for (Exploration e : List.of(backupReads(new PrimaryBackup()), earlyAck(new PrimaryBackup()),
        backupReads(Mutants.earlyAck()), earlyAck(Mutants.earlyAck()))) {
      Explorer.Result r = bfs(e, 40);
      assertNull(r.found(), () -> e.protocol().name() + ": " + r.found().choices() + " " + r.found().verdict());
      assertTrue(r.exhausted(), r.stop());
      assertTrue(r.completed() > 0, r.toString());
    }
  }
}
