package org.kvlab.config;

import java.util.Locale;

/**
 * A user's string as an error message quotes it: cut to a readable length, so that a 1 MB cluster name or a 10 MB
 * key in a history gives an error of a line, not of megabytes. The one rule for every message that quotes user
 * input (cluster and experiment files, histories, the command line).
 */
public final class UserText {
  /** How many characters of a user's string a message shows. */
  public static final int SHOWN_MAX = 80;

  private UserText() {}

  /** {@code s} if at most {@link #SHOWN_MAX} characters, else its start and its length: "abc... (1,000,000 characters)". */
  public static String cut(String s) {
    if (s == null) {
      return "null";
    }
    if (s.length() <= SHOWN_MAX) {
      return s;
    }
    int end = Character.isHighSurrogate(s.charAt(SHOWN_MAX - 1)) ? SHOWN_MAX - 1 : SHOWN_MAX;
    return s.substring(0, end) + "... (" + String.format(Locale.ROOT, "%,d", s.length()) + " characters)";
  }

  /** {@link #cut} between single quotes: {@code 'Eventual'}. */
  public static String quoted(String s) {
    return "'" + cut(s) + "'";
  }
}
