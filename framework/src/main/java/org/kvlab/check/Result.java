package org.kvlab.check;

import java.util.List;

/**
 * What a checker found.
 *
 * @param checker the checker's name
 * @param valid true if no violation was found
 * @param violations each violation names the operations involved and why
 */
public record Result(String checker, boolean valid, List<Violation> violations) {
  public static Result ok(String checker) {
    return new Result(checker, true, List.of());
  }

  public static Result of(String checker, List<Violation> violations) {
    return new Result(checker, violations.isEmpty(), List.copyOf(violations));
  }
}
