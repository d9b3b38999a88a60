package org.kvlab.partitioning.operations;

import java.util.ArrayList;
import java.util.List;

/**
 * The conflicts between two transaction types t and u (t may be u: two operations of one type), as DNF clauses over
 * the parameters of an operation {@code a} of t and an operation {@code b} of u: both write a key ({@code ww}), u reads
 * a key t writes ({@code uReadsT}), t reads a key u writes ({@code tReadsU}). Alg. 1's {@code C_tt'} is their union.
 */
record Conflicts(OperationType t, OperationType u, List<Clause> ww, List<Clause> uReadsT, List<Clause> tReadsU) {

  static Conflicts between(OperationType t, OperationType u) {
    return new Conflicts(t, u, clauses(t.writes(), u.writes()), clauses(t.writes(), u.reads()),
        clauses(t.reads(), u.writes()));
  }

  /** Every satisfiable condition under which a template of {@code as} (operation a) meets one of {@code bs} (b). */
  private static List<Clause> clauses(List<KeyTemplate> as, List<KeyTemplate> bs) {
    List<Clause> out = new ArrayList<>();
    for (KeyTemplate x : as) {
      for (KeyTemplate y : bs) {
        Clause c = x.unify(y, "a", "b");
        if (c != null && !out.contains(c)) {
          out.add(c);
        }
      }
    }
    return out;
  }

  boolean any() {
    return !ww.isEmpty() || !uReadsT.isEmpty() || !tReadsU.isEmpty();
  }

  /** The clauses that do not make the two operations share a server under partitioning parameters pt and pu. */
  static List<Clause> remaining(List<Clause> clauses, String pt, String pu) {
    List<Clause> out = new ArrayList<>();
    for (Clause c : clauses) {
      if (!c.equates(pt, pu)) {
        out.add(c);
      }
    }
    return out;
  }

  /** Whether some conflict of the pair survives parameters pt (of t) and pu (of u). */
  boolean unresolved(String pt, String pu) {
    return !remaining(ww, pt, pu).isEmpty() || !remaining(uReadsT, pt, pu).isEmpty()
        || !remaining(tReadsU, pt, pu).isEmpty();
  }
}
