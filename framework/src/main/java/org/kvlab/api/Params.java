package org.kvlab.api;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.kvlab.config.UserText;

/**
 * A protocol's parameters from the cluster file (top-level {@code params}), with typed accessors that
 * fail with a {@link ParameterException} naming the parameter, the bad value and the expected form.
 * Durations are written like {@code 10ms}, {@code 2s}, {@code 1m} (a bare number means milliseconds).
 */
public final class Params {
  private final Map<String, String> values;

  public Params(Map<String, String> values) {
    this.values = new TreeMap<>(values);
  }

  public static Params empty() {
    return new Params(Map.of());
  }

  public Map<String, String> asMap() {
    return java.util.Collections.unmodifiableMap(values);
  }

  public boolean has(String name) {
    return values.containsKey(name);
  }

  public String string(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  public long longValue(String name, long fallback) {
    String v = values.get(name);
    if (v == null) {
      return fallback;
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new ParameterException(name, UserText.quoted(v) + " is not a whole number", "write a whole number, e.g. " + fallback);
    }
  }

  public int intValue(String name, int fallback) {
    long v = longValue(name, fallback);
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw new ParameterException(name, UserText.quoted(values.get(name)) + " is out of range", "write a number from "
          + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE);
    }
    return (int) v;
  }

  public boolean bool(String name, boolean fallback) {
    String v = values.get(name);
    if (v == null) {
      return fallback;
    }
    if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(v);
    }
    throw new ParameterException(name, UserText.quoted(v) + " is not true or false", "write true or false",
        java.util.List.of("true", "false"));
  }

  public Duration duration(String name, Duration fallback) {
    String v = values.get(name);
    if (v == null) {
      return fallback;
    }
    try {
      return parseDuration(v, "protocol parameter '" + name + "'");
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new ParameterException(name, UserText.quoted(v) + " is not a duration",
          "write e.g. 10ms, 2s or 1m (units us, ms, s, m, h; a bare number is milliseconds)");
    }
  }

  /** Parses {@code 250us}, {@code 10ms}, {@code 2s}, {@code 1m}, {@code 1h}, or a bare number of milliseconds. */
  public static Duration parseDuration(String text, String what) {
    String t = text.trim().toLowerCase(java.util.Locale.ROOT);
    try {
      if (t.endsWith("us")) {
        return Duration.ofNanos(Long.parseLong(t.substring(0, t.length() - 2).trim()) * 1000);
      } else if (t.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2).trim()));
      } else if (t.endsWith("s")) {
        return Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 1).trim()) * 1000));
      } else if (t.endsWith("m")) {
        return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1).trim()) * 60);
      } else if (t.endsWith("h")) {
        return Duration.ofHours(Long.parseLong(t.substring(0, t.length() - 1).trim()));
      }
      return Duration.ofMillis(Long.parseLong(t));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " = " + UserText.quoted(text) + " is not a duration: write e.g. 10ms, 2s or 1m");
    }
  }

  @Override
  public String toString() {
    return values.toString();
  }
}
