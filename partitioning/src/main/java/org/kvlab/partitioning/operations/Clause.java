package org.kvlab.partitioning.operations;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A conjunction of equalities over the parameters of two operations ({@code a.p = b.q}) and of parameters with
 * literals ({@code a.p = "x"}), as one DNF clause of Alg. 1's conflict condition. Parameters are qualified by the
 * operation they belong to ({@code a.} or {@code b.}), so a type's conflict with itself compares two operations.
 * Equalities between parameters are kept as unordered pairs; constants per parameter (two different constants for
 * one parameter make the clause unsatisfiable: {@link #and} returns null).
 */
record Clause(Set<String> equalities, Map<String, String> constants) {
  static final Clause TRUE = new Clause(Set.of(), Map.of());

  static Clause equal(String x, String y) {
    return new Clause(Set.of(pair(x, y)), Map.of());
  }

  static Clause constant(String param, String value) {
    return new Clause(Set.of(), Map.of(param, value));
  }

  /** The unordered pair {@code x = y} as one string. */
  static String pair(String x, String y) {
    return x.compareTo(y) <= 0 ? x + "=" + y : y + "=" + x;
  }

  /** This and {@code o}, or null if unsatisfiable (a parameter equal to two literals). */
  Clause and(Clause o) {
    TreeMap<String, String> consts = new TreeMap<>(constants);
    for (Map.Entry<String, String> e : o.constants.entrySet()) {
      String had = consts.putIfAbsent(e.getKey(), e.getValue());
      if (had != null && !had.equals(e.getValue())) {
        return null;
      }
    }
    TreeSet<String> eq = new TreeSet<>(equalities);
    eq.addAll(o.equalities);
    return new Clause(eq, consts);
  }

  /** Whether the clause says the two operations' partitioning parameters are equal (then they share a server). */
  boolean equates(String aParam, String bParam) {
    if (aParam == null || bParam == null) {
      return false;
    }
    String ca = constants.get("a." + aParam);
    return equalities.contains(pair("a." + aParam, "b." + bParam))
        || (ca != null && ca.equals(constants.get("b." + bParam))); // both fixed to one literal: one server
  }

  @Override
  public String toString() {
    TreeSet<String> atoms = new TreeSet<>(equalities);
    constants.forEach((p, v) -> atoms.add(p + "=\"" + v + "\""));
    return atoms.isEmpty() ? "true" : String.join(" ∧ ", atoms);
  }
}
