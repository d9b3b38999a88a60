package org.kvlab.api;

/**
 * Always-on invariant assertions (unlike {@code assert}, which is off without -ea).
 *
 * <p>A failed invariant throws {@link InvariantViolation}. The real runtime treats it as fatal for the
 * node (it logs and halts the node); the simulator fails the seed.
 */
public final class Invariants {
  private Invariants() {}

  public static void check(boolean condition, String format, Object... args) {
    if (!condition) {
      throw new InvariantViolation(String.format(format, args));
    }
  }

  // Fixed-arity forms for one to three arguments, long or object: a hot path's check costs no varargs array and no
  // boxed long (Long.valueOf's cache defeats the JIT's escape analysis) while it holds; the arguments are boxed
  // only to format the message of a failure. A GentleRain server spent 15 % of its event loop's samples on one
  // such check (docs/benchmarks/dkvf-anchor.md, 2026-11-25).
  public static void check(boolean condition, String format, Object a) {
    if (!condition) {
      fail(format, a);
    }
  }

  public static void check(boolean condition, String format, long a) {
    if (!condition) {
      fail(format, a);
    }
  }

  public static void check(boolean condition, String format, Object a, Object b) {
    if (!condition) {
      fail(format, a, b);
    }
  }

  public static void check(boolean condition, String format, Object a, long b) {
    if (!condition) {
      fail(format, a, b);
    }
  }

  public static void check(boolean condition, String format, long a, Object b) {
    if (!condition) {
      fail(format, a, b);
    }
  }

  public static void check(boolean condition, String format, long a, long b) {
    if (!condition) {
      fail(format, a, b);
    }
  }

  public static void check(boolean condition, String format, Object a, Object b, Object c) {
    if (!condition) {
      fail(format, a, b, c);
    }
  }

  public static void check(boolean condition, String format, Object a, Object b, long c) {
    if (!condition) {
      fail(format, a, b, c);
    }
  }

  public static void check(boolean condition, String format, Object a, long b, Object c) {
    if (!condition) {
      fail(format, a, b, c);
    }
  }

  public static void check(boolean condition, String format, Object a, long b, long c) {
    if (!condition) {
      fail(format, a, b, c);
    }
  }

  public static void check(boolean condition, String format, long a, Object b, Object c) {
    if (!condition) {
      fail(format, a, b, c);
    }
  }

  public static void check(boolean condition, String format, long a, Object b, long c) {
    if (!condition) {
      fail(format, a, b, c);
    }
  }

  public static void check(boolean condition, String format, long a, long b, Object c) {
    if (!condition) {
      fail(format, a, b, c);
    }
  }

  public static void check(boolean condition, String format, long a, long b, long c) {
    if (!condition) {
      fail(format, a, b, c);
    }
  }

  private static void fail(String format, Object... args) {
    throw new InvariantViolation(String.format(format, args));
  }

  /** Thrown when an invariant asserted in code does not hold. */
  public static final class InvariantViolation extends RuntimeException {
    public InvariantViolation(String message) {
      super(message);
    }
  }
}
