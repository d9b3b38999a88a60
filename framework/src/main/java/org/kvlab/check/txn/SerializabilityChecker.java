package org.kvlab.check.txn;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.kvlab.check.Checker;
import org.kvlab.check.Result;
import org.kvlab.check.Violation;
import org.kvlab.history.History;

/**
 * A black-box checker of transactions (Elle's class): judges only what clients observed, never a protocol's own
 * ordering metadata. From a list-append or rw-register history ({@link TxnHistory}) it infers the ww, wr and rw
 * dependencies ({@link Dependencies}), adds session and real-time order for strict serializability, and names every
 * cycle by Adya's classes ({@link CycleSearch}), with the anomalies that need no cycle: G1a, G1b, lost update,
 * internal inconsistency, incompatible order, garbage reads, duplicate elements, non-unique writes.
 *
 * <p>Registered twice: {@code serializable} (dependencies only) and {@code strict-serializable} (also session and
 * real-time order). Transactions with an unknown outcome may or may not have taken effect; failed ones must not be
 * seen. Time and memory are linear in the history (plus sorting), whatever its length: see
 * docs/benchmarks/txn-checker.md.
 */
public final class SerializabilityChecker implements Checker {
  public static final String SERIALIZABLE = "serializable";
  public static final String STRICT = "strict-serializable";
  /** Violations listed per kind; the note counts them all. */
  static final int SHOWN_PER_KIND = 20;

  public static final String G0 = CycleSearch.G0;
  public static final String G1A = Dependencies.G1A;
  public static final String G1B = Dependencies.G1B;
  public static final String G1C = CycleSearch.G1C;
  public static final String G_SINGLE = CycleSearch.G_SINGLE;
  public static final String G2_ITEM = CycleSearch.G2;
  public static final String LOST_UPDATE = Dependencies.LOST_UPDATE;
  public static final String INTERNAL = TxnHistory.INTERNAL;
  public static final String INCOMPATIBLE_ORDER = TxnHistory.INCOMPATIBLE;
  public static final String GARBAGE_READ = Dependencies.GARBAGE;
  public static final String DUPLICATE_ELEMENT = Dependencies.DUPLICATE;
  public static final String MALFORMED_LIST = TxnHistory.MALFORMED;
  public static final String NOT_UNIQUE = TxnHistory.NOT_UNIQUE;

  private final boolean strict;

  private SerializabilityChecker(boolean strict) {
    this.strict = strict;
  }

  public static SerializabilityChecker serializable() {
    return new SerializabilityChecker(false);
  }

  public static SerializabilityChecker strictSerializable() {
    return new SerializabilityChecker(true);
  }

  @Override
  public String name() {
    return strict ? STRICT : SERIALIZABLE;
  }

  @Override
  public Result check(History history) {
    return check(TxnHistory.of(history));
  }

  /** Checks a history of micro-operations (e.g. one made with {@link TxnHistory#builder}). */
  public Result check(TxnHistory h) {
    if (h.size() == 0) {
      return Result.ok(name()).vacuous("no transaction to check" + (h.skipped() > 0 ? " (" + h.skipped()
          + " operations left out: procedures other than append, or plain writes in a list-append history)" : "")
          + ". Fix: record a list-append, rw-register or bank workload (docs/checkers.md#transactions)");
    }
    DependencyGraph.Builder b = new DependencyGraph.Builder(h.size());
    Dependencies d = Dependencies.infer(h, strict, b);
    DependencyGraph g = b.build();
    CycleSearch cycles = new CycleSearch(g, d, h);
    int mask = DependencyGraph.DEPENDENCIES | (strict ? DependencyGraph.SESSION | DependencyGraph.REALTIME : 0);
    cycles.run(mask);
    List<Violation> out = new ArrayList<>(h.violations);
    StringBuilder note = new StringBuilder("checked " + h.size() + " transactions ("
        + (h.model() == TxnHistory.Model.LIST_APPEND ? "list-append" : "rw-register") + ", " + h.keys.size()
        + " keys): " + g.edges() + " edges, " + cycles.components + " cyclic components"
        + (cycles.largest > 0 ? " (largest " + cycles.largest + ")" : ""));
    if (h.skipped() > 0) {
      note.append("; left out ").append(h.skipped()).append(" operations that write no unique values");
    }
    TreeMap<String, Integer> over = new TreeMap<>();
    h.violationCounts.forEach((k, c) -> {
      if (c > SHOWN_PER_KIND) {
        over.put(k, c);
      }
    });
    if (!over.isEmpty()) {
      note.append("; listed ").append(SHOWN_PER_KIND).append(" of each kind, found in all: ").append(over);
    }
    return new Result(name(), out.isEmpty(), List.copyOf(out), note.toString(), false);
  }
}
