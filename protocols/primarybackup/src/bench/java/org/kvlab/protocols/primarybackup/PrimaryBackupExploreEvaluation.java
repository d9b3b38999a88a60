package org.kvlab.protocols.primarybackup;

import java.util.List;
import java.util.Set;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.explore.ExploreBench;
import org.kvlab.sim.explore.Explorer;

/**
 * docs/benchmarks/explore.md, primary-backup's rows: its three mutants by {@code explore} (BFS) against random seeds
 * of {@code kvlab sim} in the configurations of {@link PrimaryBackupCheckedSimTest}, the failing seed shrunk. Usage:
 * {@code scripts/bench/eval primarybackup PrimaryBackupExploreEvaluation}.
 */
public final class PrimaryBackupExploreEvaluation {
  private PrimaryBackupExploreEvaluation() {}

  public static void main(String[] args) {
    if (org.kvlab.eval.ProgramArgs.of("primarybackup", "PrimaryBackupExploreEvaluation", "", args, 0) == null) {
      return; // --help
    }
    Explorer.Bounds bfs = new Explorer.Bounds("bfs", 40, 1_000_000, 0, 1, false);
    SimSpec switching = PrimaryBackupCheckedSimTest.FAULTY.withFaultKinds(Set.of("slow"));
    switching = switching.withWorkload(switching.workload().withRemoteRatio(0.5));
    System.out.print(ExploreBench.table(List.of(
        new ExploreBench.Case("primarybackup-backup-reads",
            PrimaryBackupExploreTest.backupReads(Mutants.backupReads()), bfs, Mutants.backupReads(),
            PrimaryBackupCheckedSimTest.FAULTY, List.of("linearizable"), 1000),
        new ExploreBench.Case("primarybackup-early-ack-backup-reads",
            PrimaryBackupExploreTest.earlyAck(Mutants.earlyAckBackupReads()), bfs, Mutants.earlyAckBackupReads(),
            switching, List.of("session"), 1000),
        new ExploreBench.Case("primarybackup-early-ack", PrimaryBackupExploreTest.earlyAck(Mutants.earlyAck()), bfs,
            Mutants.earlyAck(), PrimaryBackupCheckedSimTest.FAULTY, PrimaryBackupCheckedSimTest.CHECKS, 100))));
  }
}
