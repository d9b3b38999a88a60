package org.kvlab.check;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** The checkers known by name, for {@code kvlab sim --check NAME[,NAME...]}. To add one, register it here. */
public final class Checkers {
  private static final Map<String, Supplier<Checker>> REGISTRY = new LinkedHashMap<>();

  static {
    REGISTRY.put(CausalChecker.NAME, CausalChecker::new);
    REGISTRY.put(SessionChecker.NAME, SessionChecker::new);
    REGISTRY.put(ConvergenceChecker.NAME, ConvergenceChecker::new);
    REGISTRY.put(RotxChecker.NAME, RotxChecker::new);
    REGISTRY.put(LinearizabilityChecker.NAME, LinearizabilityChecker::new);
    REGISTRY.put(TxnChecker.NAME, TxnChecker::new);
    REGISTRY.put(org.kvlab.check.txn.SerializabilityChecker.SERIALIZABLE,
        org.kvlab.check.txn.SerializabilityChecker::serializable);
    REGISTRY.put(org.kvlab.check.txn.SerializabilityChecker.STRICT,
        org.kvlab.check.txn.SerializabilityChecker::strictSerializable);
    REGISTRY.put(org.kvlab.check.txn.BankChecker.NAME, org.kvlab.check.txn.BankChecker::new);
    REGISTRY.put(org.kvlab.workload.store.StoreChecker.NAME, org.kvlab.workload.store.StoreChecker::new);
    REGISTRY.put(org.kvlab.workload.WorkloadChecker.NAME, org.kvlab.workload.WorkloadChecker::new);
  }

  private Checkers() {}

  /** The registered names, in a fixed order: causal, session, convergence, rotx, linearizable, txn,
   * serializable, strict-serializable, bank, store, workload. */
  public static List<String> names() {
    return List.copyOf(REGISTRY.keySet());
  }

  /**
   * A new checker with default settings.
   *
   * @throws IllegalArgumentException naming the known checkers if {@code name} is not one of them
   */
  public static Checker byName(String name) {
    Supplier<Checker> s = name == null ? null : REGISTRY.get(name.trim().toLowerCase(java.util.Locale.ROOT));
    if (s == null) {
      throw new IllegalArgumentException("unknown checker '" + name + "'; known: " + String.join(", ", names()));
    }
    return s.get();
  }

  /**
   * Frees what the checkers kept on this thread for {@code history} (the model they share): call it when every
   * checker of a history has run, e.g. after each seed of a sweep. Results are not affected; checking the same
   * history again only rebuilds the model.
   */
  public static void release(org.kvlab.history.History history) {
    HistoryModel.release(history);
  }

  /**
   * {@code r}, vacuous if {@code history} has no operation that ended OK: a checker finds nothing wrong in such a
   * history (nothing took effect for sure, nothing was read), which says nothing about the system, so front ends must
   * not print it as "ok". A violation stays a violation.
   */
  public static Result judged(org.kvlab.history.History history, Result r) {
    org.kvlab.history.History.Outcomes o = history.outcomes();
    if (!r.valid() || o.ok() > 0) {
      return r;
    }
    return r.vacuous("nothing checked: no operation ended OK (" + o + ")");
  }

  /** One new instance of every registered checker. */
  public static List<Checker> all() {
    List<Checker> out = new ArrayList<>();
    REGISTRY.values().forEach(s -> out.add(s.get()));
    return out;
  }

  /**
   * A violation and every checker that reported it.
   *
   * @param checkers names of the checkers that reported an identical violation (same kind, explanation and
   *     operations), in the order of the results
   */
  public record Reported(Violation violation, List<String> checkers) {}

  /**
   * The violations of several results, each identical one once (e.g. the same thin-air read reported by causal,
   * session and rotx), in order of first appearance, naming all checkers that found it.
   */
  public static List<Reported> distinct(List<Result> results) {
    Map<Violation, List<String>> seen = new LinkedHashMap<>();
    for (Result r : results) {
      for (Violation v : r.violations()) {
        List<String> by = seen.computeIfAbsent(v, x -> new ArrayList<>());
        if (!by.contains(r.checker())) {
          by.add(r.checker());
        }
      }
    }
    List<Reported> out = new ArrayList<>();
    seen.forEach((v, by) -> out.add(new Reported(v, List.copyOf(by))));
    return out;
  }

  /**
   * Validates checker names before anything runs: each must be known (case and surrounding blanks are ignored).
   *
   * @return the names in canonical form, without repeats
   * @throws IllegalArgumentException naming every unknown name and the known ones
   */
  public static List<String> validate(List<String> names) {
    List<String> out = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    String suggestions = "";
    for (String n : names == null ? List.<String>of() : names) {
      String c = n == null ? "" : n.trim().toLowerCase(java.util.Locale.ROOT);
      if (!REGISTRY.containsKey(c)) {
        unknown.add("'" + n + "'");
        String near = org.kvlab.config.YamlReader.closest(c, names());
        suggestions += near == null ? "" : "did you mean '" + near + "' for '" + n + "'? ";
      } else if (!out.contains(c)) {
        out.add(c);
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("unknown checker" + (unknown.size() == 1 ? " " : "s ")
          + String.join(", ", unknown) + "; known: " + String.join(", ", names()) + ". Fix: "
          + (unknown.size() == 1 ? suggestions.replace(" for " + unknown.get(0), "") : suggestions)
          + "Write --check NAME[,NAME...] with known names");
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("no checker named; known: " + String.join(", ", names())
          + ". Fix: --check NAME[,NAME...]");
    }
    return out;
  }
}
