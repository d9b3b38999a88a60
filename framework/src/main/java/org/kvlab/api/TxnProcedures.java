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
 *   <li>{@code append(e, k...)}: for every key {@code k} named after the element, the list read (whole numbers
 *       separated by one blank; absent = empty) with the whole number {@code e} appended; the procedure's other keys
 *       are only read. The list-append workload: every read returns a key's whole list, so histories reveal each
 *       key's order of writes (the {@code serializable} checker's list-append model). {@code e} must be unique per
 *       key for the checker to tell appends apart.
 *   <li>{@code transfer(amount, from, to)}: the integer at {@code from} (absent = 0) minus {@code amount}, the one at
 *       {@code to} plus it: the bank workload, whose total stays constant.
 * </ul>
 * Protocols, checkers (which replay transactions) and clients share this one definition.
 */
public final class TxnProcedures {
  private TxnProcedures() {}

  public static final String APPEND = "append";
  public static final String TRANSFER = "transfer";
  public static final List<String> NAMES = List.of("add", APPEND, TRANSFER);

  static void validate(String name, List<String> keys, List<String> args) {
    if (!NAMES.contains(name)) {
      throw new IllegalArgumentException("unknown transaction procedure '" + name + "'; known: " + NAMES);
    }
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("procedure '" + name + "' needs at least one key");
    }
    if (name.equals(APPEND) || name.equals(TRANSFER)) {
      validateListed(name, keys, args);
      return;
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
    if (name.equals(APPEND)) {
      String e = args.get(0);
      for (String k : appendKeys(args)) {
        Optional<ByteString> v = read.get(k);
        if (v != null) {
          out.put(k, v.isEmpty() || v.get().isEmpty() ? ByteString.copyFromUtf8(e)
              : v.get().concat(ByteString.copyFromUtf8(" " + e)));
        }
      }
      return out;
    }
    if (name.equals(TRANSFER)) {
      long amount = Long.parseLong(args.get(0));
      Optional<ByteString> from = read.get(args.get(1));
      Optional<ByteString> to = read.get(args.get(2));
      if (from != null) {
        out.put(args.get(1), ByteString.copyFromUtf8(Long.toString(number(from) - amount)));
      }
      if (to != null) {
        out.put(args.get(2), ByteString.copyFromUtf8(Long.toString(number(to) + amount)));
      }
      return out;
    }
    throw new IllegalArgumentException("unknown transaction procedure '" + name + "'; known: " + NAMES);
  }

  /** The keys an {@code append} procedure appends to (its arguments after the element). */
  public static List<String> appendKeys(List<String> args) {
    return args.subList(1, args.size());
  }

  /** The element an {@code append} procedure appends. */
  public static long appendElement(List<String> args) {
    return Long.parseLong(args.get(0));
  }

  /** append(e, k...) and transfer(amount, from, to): a whole number, then keys the procedure declares. */
  private static void validateListed(String name, List<String> keys, List<String> args) {
    boolean append = name.equals(APPEND);
    String form = append ? "append(e, k1, k2, ...): a whole number e, then the keys to append it to"
        : "transfer(amount, from, to): a whole number, then two distinct keys";
    if (append ? args.size() < 2 : args.size() != 3) {
      throw new IllegalArgumentException("procedure " + name + " takes " + form + ", got " + args);
    }
    try {
      Long.parseLong(args.get(0));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("procedure " + name + ": the first argument must be a whole number, got '"
          + args.get(0) + "'. Fix: " + form);
    }
    List<String> named = args.subList(1, args.size());
    if (!keys.containsAll(named) || new java.util.HashSet<>(named).size() != named.size()) {
      throw new IllegalArgumentException("procedure " + name + ": the keys " + named + " must be distinct and among"
          + " the transaction's keys " + keys + ". Fix: " + form);
    }
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
