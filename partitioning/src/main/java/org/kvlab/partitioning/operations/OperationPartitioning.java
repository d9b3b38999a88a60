package org.kvlab.partitioning.operations;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Seed 004's operation partitioning (§3, Alg. 1) over key templates: for every pair of transaction types the conflict
 * condition (DNF over the two operations' parameters); the partitioning parameter per type chosen by exhaustive search
 * to minimise the weight of the conflicts it leaves across servers ({@code cost(P)}: a conflict is resolved for a pair
 * when each of its clauses equates the two operations' partitioning parameters, so conflicting operations route to
 * one server); then each type classified:
 *
 * <ul>
 *   <li>C (commutative) if it conflicts with no type, itself included;
 *   <li>L (local) if, under the chosen parameters, no write-write conflict and no "another operation reads from it"
 *       conflict crosses servers (reading what a global operation wrote is allowed: global writes reach every
 *       server). A type without parameters whose only conflicts are reads of others' writes is local at any server
 *       (the parameter shows as {@code -});
 *   <li>G (global) otherwise.
 * </ul>
 *
 * Interpretations (the seed's gaps): one partitioning parameter per type (the seed's multi-parameter "L/G" types,
 * RUBiS's bid/buy/sell, are out of scope: such a type is G here); equalities are taken literally from matching template
 * segments (no transitive closure); a parameter fixed to one literal on both sides also shares a server.
 */
public final class OperationPartitioning {
  /** Beyond this many combinations of parameters the exhaustive search is refused. */
  public static final long MAX_COMBINATIONS = 5_000_000;

  private OperationPartitioning() {}

  /** One type's outcome: its class, its partitioning parameter (null: none), and why it is global (empty else). */
  public record Assignment(OperationType type, OperationClass cls, String param, List<String> reasons) {}

  /**
   * @param cost the weight of conflicts the chosen parameters leave across servers (Alg. 1's objective)
   * @param combinations how many parameter choices the search tried
   */
  public record Result(List<Assignment> assignments, double cost, long combinations) {
    public Assignment of(String type) {
      return assignments.stream().filter(a -> a.type().name().equals(type)).findFirst()
          .orElseThrow(() -> new IllegalArgumentException("no type " + type));
    }

    /** The weighted share of each class (the seed's Table 1 "frequencies"). */
    public Map<OperationClass, Double> shares() {
      double total = assignments.stream().mapToDouble(a -> a.type().weight()).sum();
      Map<OperationClass, Double> out = new LinkedHashMap<>();
      for (OperationClass c : OperationClass.values()) {
        out.put(c, assignments.stream().filter(a -> a.cls() == c).mapToDouble(a -> a.type().weight()).sum() / total);
      }
      return out;
    }
  }

  public static Result classify(List<OperationType> types) {
    int n = types.size();
    if (n == 0) {
      throw new IllegalArgumentException("no transaction types. Fix: declare at least one under types:");
    }
    Conflicts[][] conflicts = new Conflicts[n][n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        conflicts[i][j] = Conflicts.between(types.get(i), types.get(j));
      }
    }
    long combinations = 1;
    for (OperationType t : types) {
      combinations *= Math.max(1, t.params().size());
      if (combinations > MAX_COMBINATIONS) {
        throw new IllegalArgumentException("more than " + MAX_COMBINATIONS + " combinations of partitioning"
            + " parameters. Fix: list only the parameters that can partition each type (params in order, the"
            + " candidates first) or split the application");
      }
    }
    String[] best = null;
    double bestCost = Double.MAX_VALUE;
    int[] choice = new int[n];
    for (long k = 0; k < combinations; k++) {
      String[] p = new String[n];
      for (int i = 0; i < n; i++) {
        List<String> ps = types.get(i).params();
        p[i] = ps.isEmpty() ? null : ps.get(choice[i]);
      }
      double cost = cost(types, conflicts, p);
      if (cost < bestCost) {
        bestCost = cost;
        best = p;
      }
      for (int i = n - 1; i >= 0; i--) { // next combination, the last type's parameter fastest
        if (++choice[i] < Math.max(1, types.get(i).params().size())) {
          break;
        }
        choice[i] = 0;
      }
    }
    List<Assignment> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(assign(types, conflicts, best, i));
    }
    return new Result(out, bestCost, combinations);
  }

  /** Alg. 1's cost: the weights of every pair of types with a conflict the parameters leave across servers. */
  private static double cost(List<OperationType> types, Conflicts[][] c, String[] p) {
    double cost = 0;
    for (int i = 0; i < types.size(); i++) {
      for (int j = i; j < types.size(); j++) {
        if (c[i][j].unresolved(p[i], p[j])) {
          cost += types.get(i).weight() + types.get(j).weight();
        }
      }
    }
    return cost;
  }

  private static Assignment assign(List<OperationType> types, Conflicts[][] c, String[] p, int i) {
    OperationType t = types.get(i);
    boolean any = false;
    List<String> reasons = new ArrayList<>();
    for (int j = 0; j < types.size(); j++) {
      Conflicts k = c[i][j];
      any |= k.any();
      String u = types.get(j).name();
      for (Clause cl : Conflicts.remaining(k.ww(), p[i], p[j])) {
        reasons.add(t.name() + " and " + u + " write one key when " + cl);
      }
      for (Clause cl : Conflicts.remaining(k.uReadsT(), p[i], p[j])) {
        reasons.add(u + " reads a key " + t.name() + " writes when " + cl);
      }
    }
    if (!any) {
      return new Assignment(t, OperationClass.C, null, List.of());
    }
    return new Assignment(t, reasons.isEmpty() ? OperationClass.L : OperationClass.G, p[i], List.copyOf(reasons));
  }
}
