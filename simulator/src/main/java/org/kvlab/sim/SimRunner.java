package org.kvlab.sim;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.kvlab.api.Protocol;
import org.kvlab.check.Checker;
import org.kvlab.check.Checkers;
import org.kvlab.check.ConvergenceChecker;
import org.kvlab.check.Result;
import org.kvlab.check.Violation;
import org.kvlab.history.History;
import org.kvlab.history.Operation;

/** Runs seeds of a simulation and checks each history; what {@code kvlab sim} and protocol tests use. */
public final class SimRunner {
  private SimRunner() {}

  /** One seed's outcome: the run and each checker's verdict. */
  public record SeedReport(long seed, SimResult result, List<Result> checks) {
    public boolean ok() {
      return !result.failed() && checks.stream().allMatch(Result::valid);
    }

    public int violations() {
      return checks.stream().mapToInt(c -> c.violations().size()).sum() + result.failures().size();
    }
  }

  /** The checkers named (see {@link Checkers#names()}); convergence is judged on the final reads. */
  public static List<Checker> checkers(SimSpec spec, List<String> names) {
    List<Checker> out = new ArrayList<>();
    for (String name : names) {
      if (name.equals("convergence")) {
        out.add(new ConvergenceChecker(spec.durationMicros() + spec.settleMicros()));
      } else {
        out.add(Checkers.byName(name));
      }
    }
    return out;
  }

  public static SeedReport run(SimSpec spec, Protocol protocol, long seed, List<String> checkerNames) {
    SimResult result = new Simulation(spec, protocol, seed).run();
    List<Result> checks = new ArrayList<>();
    for (Checker c : checkers(spec, checkerNames)) {
      checks.add(c.check(result.history()));
    }
    return new SeedReport(seed, result, checks);
  }

  /**
   * A readable account of one violation: what the checker said, the operations involved, and a
   * Lamport diagram of the messages around them.
   */
  public static String explain(SeedReport report, Violation v, int maxRows) {
    History h = report.result().history();
    StringBuilder out = new StringBuilder();
    out.append("  ").append(v.kind()).append(": ").append(v.explanation()).append('\n');
    Set<String> processes = new LinkedHashSet<>();
    long from = Long.MAX_VALUE;
    long to = 0;
    for (long id : v.operations()) {
      Operation op = h.get(id);
      out.append("    ").append(op.describe()).append('\n');
      processes.add("s" + op.session() + "@dc" + op.dc());
      from = Math.min(from, op.invokeMicros());
      to = Math.max(to, op.completeMicros());
    }
    if (!v.operations().isEmpty()) {
      out.append("  messages around them:\n");
      out.append(report.result().trace().diagram(processes, Math.max(0, from - 1000), to + 1000, maxRows)
          .indent(4));
    }
    return out.toString();
  }
}
