package org.kvlab.check;

import java.nio.file.Path;
import org.kvlab.history.HistoryFiles;

/**
 * Writes a large random history for docs/benchmarks/checkers.md:
 * {@code java -cp <test classpath> org.kvlab.check.GenerateHistory FILE OPERATIONS SESSIONS DCS KEYS}.
 * The history is that of a single-copy store ({@link RandomHistories#linearizable}), so every checker accepts it and
 * has to do its full work.
 */
final class GenerateHistory {
  private GenerateHistory() {}

  public static void main(String[] args) throws Exception {
    int ops = Integer.parseInt(args[1]);
    int sessions = Integer.parseInt(args[2]);
    int dcs = Integer.parseInt(args[3]);
    int keys = Integer.parseInt(args[4]);
    HistoryFiles.write(RandomHistories.linearizable(7, sessions, dcs, keys, ops), Path.of(args[0]));
  }
}
