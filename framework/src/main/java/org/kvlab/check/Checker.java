package org.kvlab.check;

import org.kvlab.history.History;

/** Checks one consistency property of a history; registered by name for {@code kvlab sim --check}. */
public interface Checker {
  /** Short name used on the command line, e.g. {@code causal}. */
  String name();

  Result check(History history);
}
