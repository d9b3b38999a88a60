package org.kvlab.sim;

import java.util.ArrayList;
import java.util.List;
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
    return run(spec, protocol, seed, checkerNames, null);
  }

  /**
   * One seed, checked, with {@code probe} (if not null) seeing every server's state as the run goes (see
   * {@link Simulation#observe}); the report is the same as without it.
   */
  public static SeedReport run(SimSpec spec, Protocol protocol, long seed, List<String> checkerNames,
      Simulation.StateProbe probe) {
    Simulation sim = new Simulation(spec, protocol, seed);
    if (probe != null) {
      sim.observe(probe);
    }
    SimResult result = sim.run();
    List<Result> checks = new ArrayList<>();
    for (Checker c : checkers(spec, checkerNames)) {
      checks.add(c.check(result.history()));
    }
    Checkers.release(result.history()); // the checkers' shared model: not kept while the next seed runs
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
   * A readable account of one violation: what the checker said, the operations involved, the faults
   * that touched them (on the servers they called, partitions between their datacenters), and a Lamport diagram centred on them (their sessions and the servers those
   * called; see {@link Trace#diagram(List, List, int)}).
   */
  public static String explain(SeedReport report, Violation v, int maxRows) {
    History h = report.result().history();
    StringBuilder out = new StringBuilder();
    out.append("  ").append(v.kind()).append(": ").append(v.explanation()).append('\n');
    List<Operation> ops = new ArrayList<>();
    for (long id : v.operations()) {
      Operation op = h.get(id);
      out.append("    ").append(op.describe()).append('\n');
      ops.add(op);
    }
    if (!ops.isEmpty()) {
      long from = ops.stream().mapToLong(Operation::invokeMicros).min().orElse(0);
      long to = ops.stream().mapToLong(Operation::completeMicros).max().orElse(0);
      // The faults that touched them: on the servers they called, or between the datacenters involved.
      java.util.Set<String> servers = report.result().trace().serversOf(ops);
      java.util.Set<Integer> dcs = new java.util.TreeSet<>();
      ops.forEach(op -> dcs.add(op.dc()));
      servers.forEach(sv -> dcs.add(org.kvlab.api.NodeId.parse(sv).dc()));
      List<String> during = new ArrayList<>();
      for (Fault f : report.result().faults()) {
        boolean touches = f instanceof Fault.Partition p ? dcs.contains(p.dcA()) && dcs.contains(p.dcB())
            : f instanceof Fault.Crash c ? servers.contains(c.node().toString())
            : f instanceof Fault.Slow sl ? servers.contains(sl.node().toString())
            : f instanceof Fault.Skew k && servers.contains(k.node().toString());
        if (touches && f.startMicros() <= to && f.endMicros() >= from) {
          during.add(f.describe());
        }
      }
      if (!during.isEmpty()) {
        out.append("  faults while they ran: ").append(String.join("; ", during)).append('\n');
      }
      out.append("  messages of these operations (their sessions and the servers they called):\n");
      out.append(report.result().trace().diagram(ops, report.result().faults(), maxRows).indent(4));
    }
    return out.toString();
  }
}
