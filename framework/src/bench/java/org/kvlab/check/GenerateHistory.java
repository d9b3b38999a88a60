package org.kvlab.check;

import java.nio.file.Path;
import org.kvlab.eval.ProgramArgs;
import org.kvlab.history.HistoryFiles;

/**
 * Writes a large random history for the checkers' benchmark (docs/benchmarks/checkers.md):
 * {@code scripts/bench/eval framework GenerateHistory FILE OPERATIONS SESSIONS DCS KEYS}.
 * The history is that of a single-copy store ({@link RandomHistories#linearizable}), so every checker accepts it and
 * has to do its full work.
 */
final class GenerateHistory {
  private GenerateHistory() {}

  public static void main(String[] argv) throws Exception {
    ProgramArgs args = ProgramArgs.of("framework", "GenerateHistory", "FILE OPERATIONS SESSIONS DCS KEYS", argv, 5);
    if (args == null) {
      return;
    }
    if (args.count() < 5) {
      throw args.fail("need 5 arguments, got " + args.count());
    }
    int ops = Math.toIntExact(args.positive(1, "OPERATIONS", 0));
    int sessions = Math.toIntExact(args.positive(2, "SESSIONS", 0));
    int dcs = Math.toIntExact(args.positive(3, "DCS", 0));
    int keys = Math.toIntExact(args.positive(4, "KEYS", 0));
    HistoryFiles.write(RandomHistories.linearizable(7, sessions, dcs, keys, ops), Path.of(args.text(0, null)));
  }
}
