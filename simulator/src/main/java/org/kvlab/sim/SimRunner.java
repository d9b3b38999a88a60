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
    /**
     * Passed: the run did not fail, at least one operation ended OK (a run where none did checked nothing, see
     * {@link #checkedNothing()}), and no checker found a violation.
     */
    public boolean ok() {
      return !result.failed() && !checkedNothing() && checks.stream().allMatch(Result::valid);
    }

    /** Whether no operation ended OK: every checker's "no violation" is then empty (each says so, vacuous). */
    public boolean checkedNothing() {
      return result.history().outcomes().ok() == 0;
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
      checks.add(inContext(spec, result, c.check(result.history())));
    }
    Checkers.release(result.history()); // the checkers' shared model: not kept while the next seed runs
    return new SeedReport(seed, result, checks);
  }

  /**
   * {@code r}, with what the simulator knows about its run when the history left nothing to judge: a checker that
   * found nothing in a run where no operation ended OK is vacuous, saying why (servers that did not start, servers
   * that answered nothing); a vacuous convergence verdict says what kept the final reads from comparing anything
   * instead of the checker's advice to record reads (the simulator makes them itself).
   */
  static Result inContext(SimSpec spec, SimResult run, Result r) {
    if (!r.valid()) {
      return r;
    }
    History.Outcomes outcomes = run.history().outcomes();
    if (outcomes.ok() == 0) { // Checkers.judged, with what the simulator knows of why
      return Checkers.judged(run.history(), r).vacuous(nothingCompleted(run, outcomes));
    }
    if (r.vacuous() && r.checker().equals(ConvergenceChecker.NAME)) {
      return r.vacuous(noFinalRead(spec, run));
    }
    if (r.vacuous() && r.checker().equals(org.kvlab.check.TxnChecker.NAME) && spec.workload().txn().ratio() == 0
        && spec.workload().custom() == null) {
      return r.vacuous("nothing to check: the workload runs no transactions (its transaction ratio is 0; a test sets"
          + " one with Workload.withTxn)");
    }
    return r;
  }

  /** Why a run with no OK operation checked nothing. */
  static String nothingCompleted(SimResult run, History.Outcomes outcomes) {
    if (!run.startFailures().isEmpty()) {
      return "nothing checked: " + run.startFailures().size() + " server(s) did not start (" + run.startFailures()
          .get(0).describe() + "), so no operation ran";
    }
    if (run.history().size() == 0) {
      return "nothing checked: no operation ran" + (run.failed() ? " (the run failed: " + run.failures().get(0) + ")"
          : "");
    }
    return "nothing checked: no operation ended OK (" + outcomes + "): the servers answered none"
        + (outcomes.info() > 0 ? " in time (INFO: no answer within the client's timeout, or the protocol said unknown)"
            : "");
  }

  /** Why convergence compared nothing in a run where some operation ended OK. */
  static String noFinalRead(SimSpec spec, SimResult run) {
    long from = spec.durationMicros() + spec.settleMicros();
    long puts = 0;
    long finalReads = 0;
    long finalOk = 0;
    for (Operation op : run.history().operations()) {
      if (op.type() == Operation.Type.PUT) {
        puts++;
      } else if (op.invokeMicros() >= from && op.type() == Operation.Type.GET) {
        finalReads++;
        finalOk += op.outcome() == Operation.Outcome.OK ? 1 : 0;
      }
    }
    if (puts == 0) {
      return "nothing to compare: the run wrote no key (no PUT; the workload's get ratio is "
          + spec.workload().getRatio() + "), so the final reads had nothing to read";
    }
    if (finalReads == 0) {
      return "nothing to compare: the simulator's final reads (from " + Fault.ms(from) + ") did not run"
          + (run.failed() ? ": the run failed first (" + run.failures().get(0) + ")"
              : spec.finalReads() ? "" : ": this run skips them (final reads off)");
    }
    return "nothing to compare: none of the simulator's " + finalReads + " final reads (from " + Fault.ms(from)
        + ") ended OK (" + (finalReads - finalOk) + " INFO or FAIL): the servers did not answer them";
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
