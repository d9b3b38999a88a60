package org.kvlab.workload;

import com.google.protobuf.ByteString;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The value format of the workload families' records ({@code org.kvlab.workload.tpcc}, {@code .chirper}): fields
 * {@code name=value} separated by one blank, in name order, e.g. {@code next=12 ytd=3000}; a value holds no blank. An
 * absent record, or an absent field, reads as its default (0 for numbers, empty for text): a store starts empty and
 * every record begins at its defaults, so no load phase is needed. Parsing is total (a malformed field is skipped),
 * as procedures must give every replica the same result on any input.
 */
public final class Fields {
  private final TreeMap<String, String> fields = new TreeMap<>();

  private Fields() {}

  /** The record read ({@code null} or empty = absent: every field at its default). */
  public static Fields of(Optional<ByteString> value) {
    Fields f = new Fields();
    if (value == null || value.isEmpty()) {
      return f;
    }
    for (String part : value.get().toStringUtf8().trim().split(" +")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        f.fields.put(part.substring(0, eq), part.substring(eq + 1));
      }
    }
    return f;
  }

  /** Numeric field {@code name}, or {@code otherwise} if absent or not a whole number. */
  public long number(String name, long otherwise) {
    String v = fields.get(name);
    if (v == null) {
      return otherwise;
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      return otherwise;
    }
  }

  /** Numeric field {@code name}, 0 if absent. */
  public long number(String name) {
    return number(name, 0);
  }

  /** Text field {@code name}, empty if absent. */
  public String text(String name) {
    return fields.getOrDefault(name, "");
  }

  public Fields set(String name, long value) {
    fields.put(name, Long.toString(value));
    return this;
  }

  /** Sets a text field; an empty value removes it. */
  public Fields set(String name, String value) {
    if (value.isEmpty()) {
      fields.remove(name);
    } else {
      fields.put(name, value);
    }
    return this;
  }

  public Fields add(String name, long delta) {
    return set(name, number(name) + delta);
  }

  /** The fields, name to value. */
  public Map<String, String> asMap() {
    return java.util.Collections.unmodifiableMap(fields);
  }

  /** The record as stored. */
  public ByteString bytes() {
    return ByteString.copyFromUtf8(toString());
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder();
    fields.forEach((k, v) -> out.append(out.length() == 0 ? "" : " ").append(k).append('=').append(v));
    return out.toString();
  }
}
