package org.kvlab.api;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The named deterministic procedures a {@link TxnRequest} may run. Each is key-local: the write to a key depends only
 * on the value read from that same key and the arguments. So every partition can run its share of a transaction
 * alone (Calvin's "independent" transactions, the model the CaMu evaluation uses); procedures whose writes depend on
 * reads at other partitions would need a read exchange between the participants, which no protocol offers yet.
 *
 * <ul>
 *   <li>{@code add(delta)}: for every key, the value read as a decimal integer (absent = 0) plus {@code delta},
 *       written back as decimal text.
 * </ul>
 * Protocols, checkers (which replay transactions) and clients share this one definition.
 */
public final class TxnProcedures {
  private TxnProcedures() {}

  public static final List<String> NAMES = List.of("add");

  static void validate(String name, List<String> keys, List<String> args) {
    if (!NAMES.contains(name)) {
      throw new IllegalArgumentException("unknown transaction procedure '" + name + "'; known: " + NAMES);
    }
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("procedure '" + name + "' needs at least one key");
    }
    if (args.size() != 1) {
      throw new IllegalArgumentException("procedure add takes one argument, the delta (a whole number), got " + args);
    }
    try {
      Long.parseLong(args.get(0));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("procedure add: the delta must be a whole number, got '" + args.get(0) + "'");
    }
  }

  /**
   * The writes of procedure {@code name} given what it read at the keys of one partition.
   *
   * @param read key → value read (empty = absent); only keys of the procedure
   */
  public static Map<String, ByteString> run(String name, List<String> args, Map<String, Optional<ByteString>> read) {
    Map<String, ByteString> out = new TreeMap<>();
    if (name.equals("add")) {
      long delta = Long.parseLong(args.get(0));
      read.forEach((k, v) -> out.put(k, ByteString.copyFromUtf8(Long.toString(number(v) + delta))));
      return out;
    }
    throw new IllegalArgumentException("unknown transaction procedure '" + name + "'; known: " + NAMES);
  }

  private static long number(Optional<ByteString> v) {
    if (v.isEmpty()) {
      return 0;
    }
    try {
      return Long.parseLong(v.get().toStringUtf8().trim());
    } catch (NumberFormatException e) {
      return 0; // a non-numeric value counts as 0: deterministic, so every replica and the checker agree
    }
  }
}
