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

  /** Thrown when an invariant asserted in code does not hold. */
  public static final class InvariantViolation extends RuntimeException {
    public InvariantViolation(String message) {
      super(message);
    }
  }
}
