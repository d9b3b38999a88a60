package org.kvlab.experiment;

import java.util.regex.Pattern;

/**
 * The cause line of a Java stack trace read line by line (a YCSB client's standard error): the exception's own line
 * ({@code site.ycsb.WorkloadException: Unknown request distribution "abc"}, {@code Exception in thread "main"
 * java.lang.NumberFormatException: For input string: "NaN"}) and, if it has {@code Caused by:} lines, the last of
 * them (the root cause). A later trace replaces an earlier one. The frames ({@code at ...}, {@code ... 3 more}) say
 * where, not what, and are skipped.
 */
final class StackTraceCause {
  /** A throwable's line: a qualified class name ending in Exception, Error or Throwable, then its message if any. */
  private static final Pattern THROWABLE = Pattern.compile(
      "(?:Exception in thread \"[^\"]*\" )?(?:[a-zA-Z_$][\\w$]*\\.)+[\\w$]*(?:Exception|Error|Throwable)(?::.*)?");
  private static final String CAUSED_BY = "Caused by: ";

  private String top;
  private String root;

  /** Takes one line of standard error. */
  void take(String line) {
    String t = line.strip();
    if (t.startsWith(CAUSED_BY) && top != null) {
      root = t.substring(CAUSED_BY.length());
    } else if (!line.startsWith("\t") && !line.startsWith(" ") && THROWABLE.matcher(t).matches()) {
      top = t.startsWith("Exception in thread ") ? t.substring(t.indexOf('"', t.indexOf('"') + 1) + 2) : t;
      root = null;
    }
  }

  /** {@code top} or {@code top (caused by root)}; null if no exception line was seen. */
  String line() {
    if (top == null) {
      return null;
    }
    return root == null ? top : top + " (caused by " + root + ")";
  }

  /** The cause line of a whole text; null if it has no exception line. */
  static String of(String text) {
    StackTraceCause c = new StackTraceCause();
    text.lines().forEach(c::take);
    return c.line();
  }
}
