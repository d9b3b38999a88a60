package org.kvlab.sim.explore;

import java.util.ArrayList;
import java.util.List;
import org.kvlab.api.Protocol;
import org.kvlab.check.Checker;
import org.kvlab.check.Result;
import org.kvlab.check.Violation;
import org.kvlab.sim.ControlledRun;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimSpec;

/**
 * What one exploration explores: a protocol over a small topology ({@code spec}'s topology and parameters), scripted
 * sessions, at most {@code maxCrashes} server crashes, and the checkers run on every completed history.
 *
 * @param spec the topology and the protocol's parameters (its workload, faults and delays are not used)
 * @param protocol the protocol's code, unchanged
 * @param scripts one per session: its datacenter and its operations
 * @param maxCrashes server crashes a run may choose, 0 for none
 * @param horizonMicros the bound on the clocks' time: a timer due later never fires
 * @param checks checker names (see {@code Checkers.names()}); convergence is not one (it needs the simulator's final
 *     reads after a quiet period, which a schedule of chosen events does not have)
 * @param seed the seed of the servers' and clients' random sources (the same in every run of the exploration)
 */
public record Exploration(SimSpec spec, Protocol protocol, List<Script> scripts, int maxCrashes, long horizonMicros,
    List<String> checks, long seed) {

  public Exploration {
    scripts = List.copyOf(scripts);
    checks = List.copyOf(checks);
    if (scripts.isEmpty()) {
      throw new IllegalArgumentException("no session to explore. Fix: give at least one session (--sessions 2)");
    }
    if (maxCrashes < 0) {
      throw new IllegalArgumentException("crashes must be 0 or more, got " + maxCrashes + ". Fix: --faults 0..3");
    }
    if (horizonMicros < 0) {
      throw new IllegalArgumentException("the time horizon must not be negative. Fix: e.g. --horizon 20ms");
    }
    for (String c : checks) {
      if (c.equals("convergence")) {
        throw new IllegalArgumentException("explore cannot check convergence: it needs the final reads after a quiet"
            + " period, and an explored run ends when its sessions have finished. Fix: check causal, session or"
            + " linearizable here, and convergence with ./kvlab sim");
      }
    }
    SimRunner.checkers(spec, checks); // an unknown name fails here, naming the known ones
  }

  /** A fresh run in the initial state (the servers started). */
  public ControlledRun start() {
    return new ControlledRun(spec, protocol, seed, scripts, maxCrashes, horizonMicros);
  }

  /** A fresh run with {@code choices} taken in order; throws if one is not enabled when its turn comes. */
  public ControlledRun replay(List<String> choices) {
    ControlledRun run = start();
    for (int i = 0; i < choices.size(); i++) {
      if (!run.take(choices.get(i))) {
        throw new IllegalArgumentException("choice " + (i + 1) + " '" + choices.get(i) + "' is not enabled there (enabled: "
            + run.enabled() + "). Fix: replay the schedule with the protocol, topology and sessions it was made with");
      }
    }
    return run;
  }

  /**
   * What is wrong in {@code run}'s state, or null: the run failed (a protocol invariant, a handler that threw), or its
   * history is complete and a checker finds a violation.
   */
  public Verdict verdict(ControlledRun run) {
    if (run.failed()) {
      return new Verdict("run", run.failures().get(0), null, null);
    }
    if (!run.complete()) {
      return null;
    }
    for (Checker c : SimRunner.checkers(spec, checks)) {
      Result r = c.check(run.history());
      if (!r.valid()) {
        Violation v = r.violations().isEmpty() ? null : r.violations().get(0);
        return new Verdict(r.checker(), v == null ? r.toString() : v.kind() + ": " + v.explanation(), v, r);
      }
    }
    return null;
  }

  /**
   * A violation found in a state.
   *
   * @param check the checker that found it, or {@code run} when the run itself failed
   * @param description what it says
   * @param violation the checker's violation (its operations), null for a run failure
   * @param result the checker's whole verdict, null for a run failure
   */
  public record Verdict(String check, String description, Violation violation, Result result) {
    /** The diagram of the run: centred on the violation's operations, or of all its operations. */
    public String diagram(ControlledRun run, int maxRows) {
      List<org.kvlab.history.Operation> ops = new ArrayList<>();
      if (violation != null) {
        for (long id : violation.operations()) {
          ops.add(run.history().get(id));
        }
      }
      if (ops.isEmpty()) {
        ops.addAll(run.history().operations());
      }
      return run.trace().diagram(ops, List.of(), maxRows);
    }
  }
}
