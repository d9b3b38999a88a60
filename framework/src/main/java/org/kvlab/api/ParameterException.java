package org.kvlab.api;

import java.util.List;

/**
 * A protocol parameter (the cluster file's {@code params}) has a value the protocol cannot run with. Thrown by
 * {@link Protocol#checkParameters} and by {@link Params}' typed accessors; it names the parameter, so the cluster-file
 * loader and {@code kvlab bench} can point at the file, line and column of that parameter's value, and, when the
 * parameter takes one of a fixed set of values ({@link #choices()}), suggest the nearest one.
 *
 * <pre>{@code
 * String mode = params.string("mode", "camu");
 * if (!List.of("pb", "tom", "camu").contains(mode)) {
 *   throw ParameterException.notOneOf("mode", mode, List.of("pb", "tom", "camu"));
 * }
 * }</pre>
 */
public final class ParameterException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String parameter;
  private final String problem;
  private final String fix;
  private final List<String> choices;

  /**
   * @param parameter the parameter's name, as in the cluster file
   * @param problem what is wrong with its value, e.g. {@code "'0ms' must be more than 0"}
   * @param fix how to correct it, e.g. {@code "write e.g. 10ms"}
   */
  public ParameterException(String parameter, String problem, String fix) {
    this(parameter, problem, fix, List.of());
  }

  /** @param choices every value the parameter accepts, when there are few (for "did you mean"); empty otherwise */
  public ParameterException(String parameter, String problem, String fix, List<String> choices) {
    super("protocol parameter '" + parameter + "': " + problem + (fix == null || fix.isEmpty() ? "" : ". Fix: " + fix));
    this.parameter = parameter;
    this.problem = problem;
    this.fix = fix == null ? "" : fix;
    this.choices = List.copyOf(choices);
  }

  /** {@code value} is none of {@code choices}: "'foo' is not one of pb, tom, camu. Fix: use pb, tom or camu". */
  public static ParameterException notOneOf(String parameter, String value, List<String> choices) {
    return new ParameterException(parameter, "'" + value + "' is not one of " + String.join(", ", choices),
        "use " + orList(choices), choices);
  }

  /**
   * The duration parameter {@code name} ({@code fallback} if not given), refused unless it is more than 0 (periods,
   * timeouts) or, with {@code zeroAllowed}, 0 or more (lags, margins).
   */
  public static java.time.Duration requireDuration(Params params, String name, java.time.Duration fallback,
      boolean zeroAllowed) {
    java.time.Duration d = params.duration(name, fallback);
    if (d.isNegative() || (!zeroAllowed && d.isZero())) {
      throw new ParameterException(name, "'" + params.string(name, "") + "' must be " + (zeroAllowed ? "0 or more"
          : "more than 0"), "write e.g. " + (fallback.isZero() ? "10ms" : shown(fallback) + " (its default)"));
    }
    return d;
  }

  private static String shown(java.time.Duration d) {
    long ms = d.toMillis();
    return ms >= 1000 && ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
  }

  /** "a", "a or b", "a, b or c". */
  public static String orList(List<String> values) {
    if (values.size() <= 1) {
      return String.join("", values);
    }
    return String.join(", ", values.subList(0, values.size() - 1)) + " or " + values.get(values.size() - 1);
  }

  /** The parameter's name. */
  public String parameter() {
    return parameter;
  }

  /** What is wrong, without the parameter's name. */
  public String problem() {
    return problem;
  }

  /** How to correct it ("" if the problem says it). */
  public String fix() {
    return fix;
  }

  /** The values the parameter accepts, when they are a small fixed set; empty otherwise. */
  public List<String> choices() {
    return choices;
  }
}
