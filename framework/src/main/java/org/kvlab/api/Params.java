package org.kvlab.api;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * A protocol's parameters from the cluster file (top-level {@code params}), with typed accessors that
 * fail with a message naming the parameter, the bad value and the expected form.
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
      throw new IllegalArgumentException("protocol parameter '" + name + "' = '" + v + "' is not an integer");
    }
  }

  public int intValue(String name, int fallback) {
    return Math.toIntExact(longValue(name, fallback));
  }

  public boolean bool(String name, boolean fallback) {
    String v = values.get(name);
    if (v == null) {
      return fallback;
    }
    if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(v);
    }
    throw new IllegalArgumentException("protocol parameter '" + name + "' = '" + v + "' is not true or false");
  }

  public Duration duration(String name, Duration fallback) {
    String v = values.get(name);
    return v == null ? fallback : parseDuration(v, "protocol parameter '" + name + "'");
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
      throw new IllegalArgumentException(what + " = '" + text + "' is not a duration: write e.g. 10ms, 2s or 1m");
    }
  }

  @Override
  public String toString() {
    return values.toString();
  }
}
