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
  }

  private Checkers() {}

  /** The registered names, in a fixed order: causal, session, convergence, rotx, linearizable. */
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

  /** One new instance of every registered checker. */
  public static List<Checker> all() {
    List<Checker> out = new ArrayList<>();
    REGISTRY.values().forEach(s -> out.add(s.get()));
    return out;
  }
}
