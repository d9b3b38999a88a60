package org.kvlab.workload.store;

import com.google.protobuf.ByteString;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The value of a cart and of an order record of the online store: item=units lines separated by one blank, sorted by
 * item ({@code 3=2 7=1}); empty = no line. A line that does not parse is skipped (deterministic, so every replica
 * agrees).
 */
public final class Cart {
  private Cart() {}

  public static TreeMap<String, Long> parse(Optional<ByteString> v) {
    TreeMap<String, Long> out = new TreeMap<>();
    if (v == null || v.isEmpty()) {
      return out;
    }
    for (String line : v.get().toStringUtf8().trim().split(" ")) {
      int eq = line.indexOf('=');
      if (eq <= 0) {
        continue;
      }
      try {
        out.merge(line.substring(0, eq), Long.parseLong(line.substring(eq + 1)), Long::sum);
      } catch (NumberFormatException e) {
        // skipped: not a line of units
      }
    }
    return out;
  }

  public static ByteString format(Map<String, Long> lines) {
    StringBuilder b = new StringBuilder();
    new TreeMap<>(lines).forEach((i, q) -> b.append(b.length() == 0 ? "" : " ").append(i).append('=').append(q));
    return ByteString.copyFromUtf8(b.toString());
  }
}
