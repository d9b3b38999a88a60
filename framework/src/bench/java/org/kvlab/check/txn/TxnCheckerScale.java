package org.kvlab.check.txn;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import org.kvlab.check.Result;
import org.kvlab.eval.ProgramArgs;
import org.kvlab.history.History;

/**
 * The transaction checker's scale figure (docs/benchmarks/txn-checker.md):
 * {@code scripts/bench/eval framework TxnCheckerScale [TXNS [SESSIONS]]} generates TXNS list-append transactions
 * (default 1,000,000) of a strictly serializable single-copy store ({@link AppendHistories}: 1 to 4 keys each, half
 * only read, 1,000 keys in use at once, each retired after 16 appends, 1% INFO, 1% FAIL), checks them with
 * {@code strict-serializable}, and prints the verdict, the wall time of generating and of checking, the heap the
 * history takes and the peak heap of the run.
 */
final class TxnCheckerScale {
  private TxnCheckerScale() {}

  public static void main(String[] argv) {
    ProgramArgs args = ProgramArgs.of("framework", "TxnCheckerScale", "[TXNS [SESSIONS]]", argv, 2);
    if (args == null) {
      return;
    }
    int txns = Math.toIntExact(args.positive(0, "TXNS", 1_000_000));
    int sessions = Math.toIntExact(args.positive(1, "SESSIONS", 32));
    long t0 = System.nanoTime();
    History h = AppendHistories.generate(7, txns, sessions, 1_000, 16, 4, 0.5, 0.01, 0.01, 0);
    long t1 = System.nanoTime();
    System.gc();
    long historyBytes = used();
    long t2 = System.nanoTime();
    Result r = SerializabilityChecker.strictSerializable().check(h);
    long t3 = System.nanoTime();
    long peak = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        peak += p.getPeakUsage().getUsed();
      }
    }
    System.out.printf("%d transactions, %d sessions: %s%n", h.size(), sessions, r.valid() ? "valid" : "INVALID "
        + r.violations().size() + " violations, e.g. " + r.violations().get(0));
    System.out.println("note: " + r.note());
    System.out.printf("generate %.1f s, check %.1f s; history after GC %d MB; peak heap %d MB of max %d MB%n",
        (t1 - t0) / 1e9, (t3 - t2) / 1e9, historyBytes >> 20, peak >> 20, Runtime.getRuntime().maxMemory() >> 20);
  }

  private static long used() {
    Runtime rt = Runtime.getRuntime();
    return rt.totalMemory() - rt.freeMemory();
  }
}
