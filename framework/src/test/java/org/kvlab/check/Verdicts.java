package org.kvlab.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.stream.Collectors;

/** Assertions on checker results that print the violations when they fail. */
final class Verdicts {
  private Verdicts() {}

  static void assertValid(Result r) {
    assertTrue(r.valid(), () -> r.checker() + " should accept the history, but found:\n" + show(r));
    assertTrue(r.violations().isEmpty());
  }

  /**
   * Asserts that a violation of {@code kind} names all of {@code ids} (it may name more), and that its explanation
   * mentions each of them as "#id". Returns it.
   */
  static Violation assertViolation(Result r, String kind, long... ids) {
    assertFalse(r.valid(), () -> r.checker() + " should reject the history");
    List<Violation> ofKind = r.violations().stream().filter(v -> v.kind().equals(kind)).toList();
    if (ofKind.isEmpty()) {
      fail(r.checker() + ": expected a violation of kind '" + kind + "', found:\n" + show(r));
    }
    for (Violation v : ofKind) {
      boolean all = true;
      for (long id : ids) {
        all &= v.operations().contains(id) && v.explanation().contains("#" + id + " ");
      }
      if (all) {
        return v;
      }
    }
    return fail(r.checker() + ": no '" + kind + "' violation names all of " + java.util.Arrays.toString(ids)
        + ":\n" + show(r));
  }

  /** Asserts that the only violations are of the given kinds. */
  static void assertOnlyKinds(Result r, String... kinds) {
    List<String> allowed = List.of(kinds);
    for (Violation v : r.violations()) {
      assertTrue(allowed.contains(v.kind()), () -> "unexpected violation kind: " + show(r));
    }
  }

  static void assertCount(Result r, String kind, int count) {
    assertEquals(count, r.violations().stream().filter(v -> v.kind().equals(kind)).count(), () -> show(r));
  }

  static String show(Result r) {
    return r.violations().stream().map(v -> "  [" + v.kind() + "] " + v.explanation() + " " + v.operations())
        .collect(Collectors.joining("\n"));
  }
}
