package org.kvlab.check;

import java.util.List;

/**
 * What a checker found.
 *
 * @param checker the checker's name
 * @param valid true if no violation was found
 * @param violations each violation names the operations involved and why
 * @param note what the verdict rests on, e.g. "compared 6 final reads of 3 keys in 2 datacenters"; null if nothing to
 *     say
 * @param vacuous true if the history held nothing this checker could judge (e.g. no read after the last write for
 *     convergence): "valid" then means only "nothing found", and front ends must not print it as a plain "ok"
 */
public record Result(String checker, boolean valid, List<Violation> violations, String note, boolean vacuous) {
  public Result(String checker, boolean valid, List<Violation> violations) {
    this(checker, valid, violations, null, false);
  }

  public static Result ok(String checker) {
    return new Result(checker, true, List.of());
  }

  public static Result of(String checker, List<Violation> violations) {
    return new Result(checker, violations.isEmpty(), List.copyOf(violations));
  }

  /** The same verdict with a note on what it rests on. */
  public Result withNote(String note) {
    return new Result(checker, valid, violations, note, vacuous);
  }

  /** The same (violation-free) verdict, marked as having had nothing to judge, with why and what to do. */
  public Result vacuous(String why) {
    return new Result(checker, valid, violations, why, true);
  }
}
