package org.kvlab.check;

import java.util.ArrayList;
import java.util.List;
import org.kvlab.history.History;
import org.kvlab.history.Operation.Type;

/**
 * Causally consistent read-only transactions (seed 003 §2.4, Defs 17–20, Fig 2.2; §9 item 5).
 *
 * <p>For every completed ROTX and every key k it returned:
 *
 * <ul>
 *   <li>{@link #SNAPSHOT} (Def 18): for every other value v1 in the set, no PUT w of k in the causal past of v1's PUT
 *       may overwrite the returned value of k — the returned value must not happen before w, and must not be the
 *       initial state. Fig 2.2: returning Alice's new picture with Bob still unblocked.
 *   <li>{@link #CAUSAL_PAST}: the value must obey the rules of a GET by the same session (a ROTX is a read in session
 *       order): no PUT of k in the causal past of the session's previous operation may overwrite it.
 * </ul>
 *
 * Together these are exactly the conditions {@link CausalChecker} applies to the ROTX's reads (whose causal past is the
 * session's plus the pasts of the values read); this checker separates the two causes and words them for ROTX. It does
 * not judge arbitration between concurrent values (the causal checker's CyclicCF does).
 */
public final class RotxChecker implements Checker {
  public static final String NAME = "rotx";
  public static final String SNAPSHOT = "rotx: not a causally consistent snapshot";
  public static final String CAUSAL_PAST = "rotx: stale read (session's causal past)";
  public static final String CYCLIC = "rotx: cyclic causal order";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Result check(History history) {
    HistoryModel m = HistoryModel.of(history);
    List<Violation> out = new ArrayList<>();
    for (HistoryModel.Problem p : m.problems) {
      if (m.op(p.op()).type() == Type.ROTX) {
        out.add(p.violation());
      }
    }
    boolean anyRotx = false;
    for (int i = 0; i < m.n && !anyRotx; i++) {
      anyRotx = m.reads[i] != null && m.op(i).type() == Type.ROTX;
    }
    // Without a completed ROTX the visitor would find nothing: only the order's cycles are needed, and the order
    // an earlier checker of this history built is then taken as it is, not traversed again.
    CausalOrder co = CausalOrder.compute(m, null, !anyRotx ? null
        : (order, op, sessionPast, past) -> visit(m, order, op, sessionPast, out));
    for (int[] cycle : co.cycles()) {
      out.add(CausalChecker.cyclic(m, co, cycle, CYCLIC, "ROTX checks were skipped"));
    }
    Result r = Result.of(NAME, out);
    return anyRotx || !r.valid() ? r : r.vacuous("no read-only transaction completed OK: nothing to check. Fix:"
        + " record read-only transactions against a protocol that offers them (./kvlab shell's rotx command;"
        + " ./kvlab sim --rotx-ratio 0.2)");
  }

  private static void visit(HistoryModel m, CausalOrder co, int op, CausalOrder.Past sessionPast, List<Violation> out) {
    if (m.op(op).type() != Type.ROTX || m.reads[op] == null) {
      return;
    }
    HistoryModel.Read[] rs = m.reads[op];
    for (HistoryModel.Read r : rs) {
      if (!r.resolved()) {
        continue;
      }
      boolean reported = false;
      for (HistoryModel.Read other : rs) {
        if (other == r || other.source() < 0) {
          continue;
        }
        int over = overwriter(co, r, co.pastOfRank(co.rank(other.source())));
        if (over >= 0) {
          int[] chain = co.chain(over, other.source());
          out.add(new Violation(SNAPSHOT,
              m.describe(op) + " is not a causally consistent snapshot: it returned " + HistoryModel.show(other)
                  + ", written by " + m.describe(other.source()) + ", which depends on " + m.describe(over)
                  + (chain == null ? "" : " (" + co.showChain(chain) + ")")
                  + ", yet it returned " + HistoryModel.show(r) + ", which " + m.describe(over) + " overwrote"
                  + (r.source() >= 0 ? " (" + m.describe(r.source()) + " happens before it)" : ""),
              new Ids(m).add(op, other.source(), over, r.source()).list()));
          reported = true;
          break;
        }
      }
      if (reported) {
        continue;
      }
      int over = overwriter(co, r, sessionPast);
      if (over >= 0) {
        int[] chain = co.chain(over, op);
        out.add(new Violation(CAUSAL_PAST,
            m.describe(op) + " returned " + HistoryModel.show(r) + " although " + m.describe(over)
                + ", which overwrote it, was already in session s" + m.op(op).session() + "'s causal past"
                + (chain == null ? "" : ": " + co.showChain(chain)),
            new Ids(m).add(op, over, r.source()).list()));
      }
    }
  }

  /** A PUT of r's key in {@code past} that overwrites r's value (r's PUT happens before it, or r read nil), or -1. */
  private static int overwriter(CausalOrder co, HistoryModel.Read r, CausalOrder.Past past) {
    int[] max = co.maximalWritesOf(r.keyIdx(), past);
    if (r.source() == HistoryModel.INITIAL) {
      return max.length == 0 ? -1 : co.opOfRank(max[0]);
    }
    int w = co.rank(r.source());
    for (int x : max) {
      if (x != w && co.pastOfRank(x).contains(w)) {
        return co.opOfRank(x);
      }
    }
    return -1;
  }
}
