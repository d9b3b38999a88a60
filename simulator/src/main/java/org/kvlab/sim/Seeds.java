package org.kvlab.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Seeds as {@code kvlab sim --seeds} and the designer's Simulate tab take them: {@code 7}, {@code 1..200}, {@code 3,17,42}. */
public final class Seeds {
  private Seeds() {}

  /**
   * The seeds {@code text} names, in order.
   *
   * @throws IllegalArgumentException naming the accepted forms, for anything else (or a range of over a million)
   */
  public static List<Long> parse(String text) {
    try {
      if (text.contains("..")) {
        String[] parts = text.split("\\.\\.");
        long from = Long.parseLong(parts[0].trim());
        long to = Long.parseLong(parts[1].trim());
        if (parts.length != 2 || to < from || to - from > 1_000_000) {
          throw new NumberFormatException();
        }
        List<Long> out = new ArrayList<>();
        for (long s = from; s <= to; s++) {
          out.add(s);
        }
        return out;
      }
      return Arrays.stream(text.split(",")).map(String::trim).map(Long::parseLong).toList();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("write a range like 1..200, a list like 3,17,42, or one seed");
    }
  }
}
