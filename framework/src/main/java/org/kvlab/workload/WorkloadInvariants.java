package org.kvlab.workload;

import java.util.List;
import org.kvlab.check.Violation;
import org.kvlab.history.History;

/**
 * A workload family's invariants, judged by {@link WorkloadChecker} once a run is over: from the history (what each
 * transaction declared, what it read) and the {@link FinalState} the readers saw at quiescence.
 */
public interface WorkloadInvariants {
  /** The family, e.g. {@code tpcc}. */
  String family();

  /** How many of the history's transactions are the family's (0: the family did not run). */
  long transactions(History history);

  /**
   * The violations in {@code history}, whose final state is {@code state} (at least one complete reader), at most
   * {@code max} per kind of invariant.
   */
  List<Violation> check(History history, FinalState state, int max);

  /**
   * Adds a violation of {@code kind} to {@code out} unless {@code max} of that kind were added already
   * ({@code found} counts them all, per kind).
   */
  static void report(List<Violation> out, java.util.Map<String, Integer> found, int max, String kind, String text,
      List<Long> ops) {
    if (found.merge(kind, 1, Integer::sum) <= max) {
      out.add(new Violation(kind, text, ops));
    }
  }

  /** {@link #report(List, java.util.Map, int, String, String, List)} of a violation of the state, no operation. */
  static void report(List<Violation> out, java.util.Map<String, Integer> found, int max, String kind, String text) {
    report(out, found, max, kind, text, List.of());
  }
}
