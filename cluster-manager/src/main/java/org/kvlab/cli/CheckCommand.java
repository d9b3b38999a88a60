package org.kvlab.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
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
      description = "checkers: causal, session, convergence, rotx, linearizable, txn (protocol metadata),"
          + " serializable, strict-serializable, bank, store (black box: docs/checkers.md#transactions), workload"
          + " (docs/workloads.md) (default: ${DEFAULT-VALUE})")
  List<String> checks;

  @Option(names = "--show", defaultValue = "5", description = "violations to print per checker, 0 to 100,000 (default:"
      + " ${DEFAULT-VALUE})")
  int show;

  static final int SHOW_MAX = 100_000;

  @Override
  public Integer call() {
    if (show < 0 || show > SHOW_MAX) {
      throw new Main.CliException(Main.USAGE, "--show " + show + ": out of range. Fix: give a whole number from 0 to"
          + " 100,000");
    }
    List<String> names;
    try {
      names = Checkers.validate(checks); // before reading the history or running anything
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, e.getMessage());
    }
    if (!Files.isRegularFile(file)) {
      throw new Main.CliException(Main.USAGE, "history file " + file + " does not exist. Fix: check the path, or"
          + " record a history first: ./kvlab shell <cluster.yaml> --history " + file + " (docs/checkers.md)");
    }
    History history;
    try {
      history = HistoryFiles.read(file);
    } catch (IOException | RuntimeException e) {
      throw new Main.CliException(Main.USAGE, "cannot read history: " + e.getMessage());
    } catch (OutOfMemoryError e) {
      throw outOfMemory("reading " + file);
    }
    System.out.printf("%s: %d operations (%s)%n", file, history.size(), history.outcomes());
    List<Result> results = new ArrayList<>();
    for (String name : names) {
      Result r;
      try {
        r = Checkers.judged(history, Checkers.byName(name).check(history));
      } catch (OutOfMemoryError e) {
        throw outOfMemory("checking " + history.size() + " operations with " + name);
      }
      results.add(r);
    }
    // a violation several checkers found (e.g. a thin-air read) is printed once, under the first, naming them all
    Map<Violation, List<String>> foundBy = new HashMap<>();
    for (Checkers.Reported rep : Checkers.distinct(results)) {
      foundBy.put(rep.violation(), rep.checkers());
    }
    Set<Violation> printed = new HashSet<>();
    boolean ok = true;
    for (Result r : results) {
      ok &= r.valid();
      String verdict = !r.valid() ? r.violations().size() + " violation" + (r.violations().size() == 1 ? "" : "s")
          : r.vacuous() ? "no verdict" : "ok";
      System.out.printf("%-13s %s%s%n", r.checker(), verdict, r.note() == null ? "" : (r.valid() ? ": " : " (")
          + r.note() + (r.valid() ? "" : ")"));
      int shown = 0;
      int before = 0;
      for (Violation v : r.violations()) {
        if (printed.contains(v)) {
          before++;
        } else if (shown < show) {
          List<String> by = foundBy.get(v);
          System.out.println("  " + v.kind() + (by.size() > 1 ? " [found by " + String.join(", ", by) + "]" : "")
              + ": " + v.explanation());
          printed.add(v);
          shown++;
        }
      }
      int hidden = r.violations().size() - shown - before;
      if (before > 0 || hidden > 0) {
        System.out.println("  (" + (before > 0 ? before + " shown above" : "") + (before > 0 && hidden > 0 ? ", " : "")
            + (hidden > 0 ? hidden + " more; --show N prints more" : "") + ")");
      }
    }
    return ok ? Main.OK : Main.FAILED;
  }

  static Main.CliException outOfMemory(String what) {
    return new Main.CliException(Main.FAILED, "out of memory " + what + " (maximum heap "
        + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MB). Fix: give the JVM more heap, e.g. "
        + "KVLAB_JAVA_OPTS=\"-XX:+UseSerialGC -Xmx4g\" ./kvlab ... (java -Xmx4g ... when running the jar directly);"
        + " docs/benchmarks/checkers.md lists what fits in 1 GB");
  }
}
