package org.kvlab.protocols.primarybackup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Protocol;
import org.kvlab.check.SessionChecker;
import org.kvlab.check.Violation;
import org.kvlab.history.Operation;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/**
 * Primary-backup under the simulator with the linearizability checker, and its two mutants: backups that answer
 * reads (caught), and a primary that answers before its backups acknowledge (caught by no checker as long as
 * backups are never read; caught by the session checker once they are).
 */
class PrimaryBackupCheckedSimTest {
  /**
   * The faults the protocol is meant to survive: partitions (writes wait for the backups across them, so they end
   * unknown; nothing is read from a cut-off copy), slow nodes, and crashes with a restart from the store (durability
   * sync, the simulator's default: a restarted primary has every write it made visible). Skew too: it reads no clock.
   * 10 s per seed on 5 keys: about 600 operations a seed, many on one key at once.
   */
  static final SimSpec FAULTY = SimSpec.defaults().withFaultKinds(Set.of("partition", "slow", "crash", "skew"))
      .withWorkload(SimSpec.defaults().workload().withKeys(5));
  static final List<String> CHECKS = List.of("linearizable", "session", "convergence");
  /** A PUT at a backup waits for two WAN round trips: forwarded to the primary and back, the primary's copy. */
  static final int WAN_ROUND_TRIPS = 2;
  static final long LEAST_WORK = FAULTY.closedLoopOperations(WAN_ROUND_TRIPS) / 5;

  @Test
  void when_partitionsSlowNodesCrashesAndSkewHit100Seeds_then_everyRunIsLinearizable() {
    for (long seed = 1; seed <= 100; seed++) {
      SeedReport r = SimRunner.run(FAULTY, new PrimaryBackup(), seed, CHECKS);
      assertTrue(r.ok(), () -> "seed " + r.seed() + " (replay: ./kvlab sim --protocol primarybackup --seeds " + r.seed()
          + " --keys 5 --faults partition,slow,crash,skew --check linearizable,session,convergence): " + r.checks()
          + " " + r.result().failures());
      long ok = r.result().history().operations().stream().filter(Operation::ok).count();
      assertTrue(ok >= LEAST_WORK, "seed " + seed + " did little work: " + ok + " operations OK, fewer than "
          + LEAST_WORK);
    }
  }

  @Test
  void when_backupsAnswerReadsFromTheirOwnCopy_then_linearizableCatchesItWithin20Seeds() {
    for (long seed = 1; seed <= 20; seed++) {
      SeedReport r = SimRunner.run(FAULTY, Mutants.backupReads(), seed, List.of("linearizable"));
      assertEquals(List.of(), r.result().failures(), "seed " + seed);
      if (!r.checks().get(0).valid()) {
        assertFalse(r.checks().get(0).violations().isEmpty());
        return;
      }
    }
    throw new AssertionError("backups that answer reads were not caught by linearizable within 20 seeds");
  }

  /**
   * The blind spot: a primary that answers before its backups acknowledge loses nothing a client can observe while
   * backups are never read and the primary never loses its store, so every checker passes it.
   */
  @Test
  void when_thePrimaryAnswersBeforeItsBackupsAcknowledge_then_noCheckerCanSeeIt() {
    for (long seed = 1; seed <= 30; seed++) { // 30: no PUT at the primary waits a WAN round trip: 20x the operations
      SeedReport r = SimRunner.run(FAULTY, Mutants.earlyAck(), seed, CHECKS);
      assertTrue(r.ok(), () -> "seed " + r.seed() + ": " + r.checks() + " " + r.result().failures());
    }
  }

  /**
   * Reads at backups make the early answer visible: sessions that switch datacenters write at the primary, then
   * read their key at the backup, whose copy a slow primary has not sent yet. With acknowledgements before answers a
   * backup holds every answered write, so backup reads break linearizability but never read-your-writes; with the
   * early answer they break read-your-writes.
   */
  @Test
  void when_backupsAreReadBySessionsThatSwitchDatacenters_then_theEarlyAnswerBreaksReadYourWrites() {
    SimSpec slow = FAULTY.withFaultKinds(Set.of("slow"));
    slow = slow.withWorkload(slow.workload().withRemoteRatio(0.5));
    int caught = 0;
    for (long seed = 1; seed <= 20; seed++) {
      assertEquals(List.of(), readYourWrites(slow, Mutants.backupReads(), seed), "seed " + seed);
      caught += readYourWrites(slow, Mutants.earlyAckBackupReads(), seed).isEmpty() ? 0 : 1;
    }
    assertTrue(caught > 0, "the early answer with backup reads broke read-your-writes in none of 20 seeds");
  }

  private static List<Violation> readYourWrites(SimSpec spec, Protocol protocol, long seed) {
    SeedReport r = SimRunner.run(spec, protocol, seed, List.of("session"));
    assertEquals(List.of(), r.result().failures(), "seed " + seed);
    return r.checks().get(0).violations().stream()
        .filter(v -> v.kind().equals(SessionChecker.READ_YOUR_WRITES)).toList();
  }
}
