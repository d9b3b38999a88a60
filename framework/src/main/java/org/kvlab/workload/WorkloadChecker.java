package org.kvlab.workload;

import java.util.ArrayList;
import java.util.List;
import org.kvlab.check.Checker;
import org.kvlab.check.Result;
import org.kvlab.check.Violation;
import org.kvlab.history.History;
import org.kvlab.workload.chirper.ChirperInvariants;
import org.kvlab.workload.tpcc.TpccInvariants;

/**
 * The {@code workload} checker: the invariants of the workload families that ran in a history (Chirper,
 * TPC-C-lite; one line per family in {@link #FAMILIES}), judged on the final state the history's readers saw at
 * quiescence ({@link FinalState}: the simulator's final reads) and on what the transactions read; and, as the
 * convergence checker does for PUTs, that every final reader saw the same value of every key the family's
 * transactions wrote ({@value #DIVERGED}). A history where no family ran, or without a complete final read, gets no
 * verdict (vacuous), saying why.
 */
public final class WorkloadChecker implements Checker {
  public static final String NAME = "workload";
  public static final String DIVERGED = "workload: final readers disagree";
  /** Violations shown per kind of invariant. */
  static final int SHOWN = 5;
  private static final List<WorkloadInvariants> FAMILIES = List.of(new ChirperInvariants(), new TpccInvariants());

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Result check(History history) {
    List<String> ran = new ArrayList<>();
    List<Violation> out = new ArrayList<>();
    FinalState state = null;
    for (WorkloadInvariants f : FAMILIES) {
      long n = f.transactions(history);
      if (n == 0) {
        continue;
      }
      state = state == null ? FinalState.of(history) : state;
      if (state.missing() != null) {
        return Result.ok(NAME).vacuous(f.family() + ": " + state.missing());
      }
      ran.add(f.family() + " (" + n + " transactions)");
      out.addAll(f.check(history, state, SHOWN));
    }
    if (!ran.isEmpty()) {
      out.addAll(diverged(state));
    }
    if (ran.isEmpty()) {
      return Result.ok(NAME).vacuous("no transaction of a workload family (chirper, tpcc) in the history: nothing to"
          + " check. Fix: run one, e.g. kvlab sim --txn-workload tpcc");
    }
    return Result.of(NAME, out).withNote("checked the invariants of " + String.join(", ", ran) + " on the final"
        + " state of " + state.readers().size() + " reader(s)");
  }

  /** The keys whose value differs between two complete final readers (at most {@link #SHOWN}). */
  static List<Violation> diverged(FinalState state) {
    List<Violation> out = new ArrayList<>();
    var readers = new ArrayList<>(state.readers().entrySet());
    java.util.Map<String, Integer> found = new java.util.HashMap<>();
    for (int i = 1; i < readers.size(); i++) {
      var a = readers.get(0);
      var b = readers.get(i);
      java.util.TreeSet<String> keys = new java.util.TreeSet<>(a.getValue().keySet());
      keys.addAll(b.getValue().keySet());
      for (String k : keys) {
        var va = a.getValue().getOrDefault(k, java.util.Optional.empty());
        var vb = b.getValue().getOrDefault(k, java.util.Optional.empty());
        if (!va.equals(vb)) {
          WorkloadInvariants.report(out, found, SHOWN, DIVERGED, "final reader " + a.getKey() + " read " + k + " = "
              + show(va) + ", final reader " + b.getKey() + " read " + show(vb) + ": the replicas applied different"
              + " writes", List.of());
        }
      }
    }
    return out;
  }

  private static String show(java.util.Optional<com.google.protobuf.ByteString> v) {
    return v.map(b -> "\"" + b.toStringUtf8() + "\"").orElse("(absent)");
  }
}
