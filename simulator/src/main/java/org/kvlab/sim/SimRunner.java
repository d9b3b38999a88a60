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
   * Runs {@code seeds} on {@code jobs} threads and hands each report to {@code inOrder} in the order of
   * {@code seeds}, on the calling thread, as soon as it and every seed before it are done. Each seed is its own
   * {@link Simulation} (nothing is shared between runs), so every report is identical to what {@link #run}
   * gives for that seed alone; only the wall-clock figures differ. At most {@code 4 * jobs} reports are held
   * at once (a slow seed holds back the output, not the workers for long). {@code jobs == 1} runs on the
   * calling thread. A seed whose run throws ends the sweep with that exception, after the reports of the
   * seeds before it.
   */
  public static void runAll(SimSpec spec, Protocol protocol, List<Long> seeds, List<String> checkerNames, int jobs,
      java.util.function.Consumer<SeedReport> inOrder) throws InterruptedException {
    if (jobs < 1) {
      throw new IllegalArgumentException("jobs must be at least 1, got " + jobs);
    }
    if (jobs == 1) {
      for (long seed : seeds) {
        inOrder.accept(run(spec, protocol, seed, checkerNames));
      }
      return;
    }
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(jobs, r -> {
      Thread t = new Thread(r, "kvlab-sim-seed");
      t.setDaemon(true);
      return t;
    });
    try {
      java.util.ArrayDeque<java.util.concurrent.Future<SeedReport>> window = new java.util.ArrayDeque<>();
      int next = 0;
      int windowMax = 4 * jobs;
      while (next < seeds.size() || !window.isEmpty()) {
        while (next < seeds.size() && window.size() < windowMax) {
          long seed = seeds.get(next++);
          window.add(pool.submit(() -> run(spec, protocol, seed, checkerNames)));
        }
        SeedReport r;
        try {
          r = window.pollFirst().get();
        } catch (java.util.concurrent.ExecutionException e) {
          Throwable c = e.getCause();
          if (c instanceof RuntimeException re) {
            throw re;
          }
          if (c instanceof Error err) {
            throw err;
          }
          throw new IllegalStateException(c);
        }
        inOrder.accept(r);
      }
    } finally {
      pool.shutdownNow();
    }
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
