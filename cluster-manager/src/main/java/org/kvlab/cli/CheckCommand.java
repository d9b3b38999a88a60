package org.kvlab.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.kvlab.check.Checker;
import org.kvlab.check.Checkers;
import org.kvlab.history.HistoryFiles;
import org.kvlab.check.Result;
import org.kvlab.check.Violation;
import org.kvlab.history.History;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kvlab check}: run consistency checkers on a recorded history (real or simulated run). */
@Command(name = "check", mixinStandardHelpOptions = true,
    description = "Check a recorded history (JSON lines, e.g. from ./kvlab shell --history) with the consistency "
        + "checkers. Exit code 0 if every check passed, 1 if any found a violation.")
final class CheckCommand implements Callable<Integer> {
  @Parameters(index = "0", description = "the history file")
  Path file;

  @Option(names = "--check", split = ",", defaultValue = "causal,session,convergence",
      description = "checkers: causal, session, convergence, rotx, linearizable (default: ${DEFAULT-VALUE})")
  List<String> checks;

  @Option(names = "--show", defaultValue = "5", description = "violations to print per checker (default: ${DEFAULT-VALUE})")
  int show;

  @Override
  public Integer call() {
    if (!Files.isRegularFile(file)) {
      throw new Main.CliException(Main.USAGE, "history file " + file + " does not exist. Fix: check the path");
    }
    History history;
    try {
      history = HistoryFiles.read(file);
    } catch (IOException | RuntimeException e) {
      throw new Main.CliException(Main.USAGE, "cannot read history " + file + ": " + e.getMessage());
    }
    boolean ok = true;
    System.out.printf("%s: %d operations%n", file, history.size());
    for (String name : checks) {
      Checker checker;
      try {
        checker = Checkers.byName(name);
      } catch (IllegalArgumentException e) {
        throw new Main.CliException(Main.USAGE, e.getMessage());
      }
      Result r = checker.check(history);
      ok &= r.valid();
      System.out.printf("%-13s %s%n", name, r.valid() ? "ok" : r.violations().size() + " violations");
      for (Violation v : r.violations().subList(0, Math.min(show, r.violations().size()))) {
        System.out.println("  " + v.kind() + ": " + v.explanation());
      }
    }
    return ok ? Main.OK : Main.FAILED;
  }
}
