package org.kvlab.check;

import static org.kvlab.check.Verdicts.assertValid;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.history.History;
import org.kvlab.history.HistoryFiles;

/**
 * Large random histories of a single-copy (linearizable) store pass every checker; prints how long each took
 * (no timing assertion: CI machines vary).
 */
class RandomHistoryTest {
  @TempDir
  Path dir;

  @Test
  void when_aLargeSingleCopyHistoryIsChecked_then_everyCheckerAcceptsIt() throws Exception {
    History history = RandomHistories.linearizable(42, 60, 3, 300, 20_000);
    for (Checker checker : Checkers.all()) {
      long t0 = System.nanoTime();
      Result r = checker.check(history);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      System.out.printf("checker %-12s %,d operations: %,d ms, %d violations%n", checker.name(), history.size(), ms,
          r.violations().size());
      assertValid(r);
    }
    assertValid(CausalChecker.withGlobalArbitration().check(history));
    assertValid(new ConvergenceChecker().requireCausalWinner().check(history));
    assertValid(LinearizabilityChecker.searchOnly(1_000_000).check(history));
    Path file = dir.resolve("random.jsonl");
    HistoryFiles.write(history, file);
    assertValid(new CausalChecker().check(HistoryFiles.read(file)));
  }

  @Test
  void when_manySmallRandomHistoriesAreChecked_then_everyCheckerAcceptsEach() {
    for (long seed = 1; seed <= 40; seed++) {
      History history = RandomHistories.linearizable(seed, 2 + (int) (seed % 5), 2, 1 + (int) (seed % 4), 120);
      for (Checker checker : Checkers.all()) {
        Result r = checker.check(history);
        if (!r.valid()) {
          throw new AssertionError("seed " + seed + ": " + checker.name() + " rejected a single-copy history:\n"
              + Verdicts.show(r));
        }
      }
    }
  }

  @Test
  void when_aRandomHistoryIsCorruptedByOneStaleRead_then_theCheckersNoticeIt() {
    // sanity: the generator is not trivially valid for everyone; a lagging single read is caught
    HistoryBuilder h = new HistoryBuilder();
    HistoryBuilder.Session a = h.session(0, 0);
    a.put("x", "1");
    a.put("x", "2");
    a.get("x", "1");
    History history = h.build();
    for (String name : java.util.List.of("causal", "session", "linearizable")) {
      if (Checkers.byName(name).check(history).valid()) {
        throw new AssertionError(name + " accepted a stale read-your-writes violation");
      }
    }
  }
}
