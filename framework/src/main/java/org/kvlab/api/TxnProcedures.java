package org.kvlab.api;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The registry of the named deterministic {@link TxnProcedure procedures} a {@link TxnRequest} may run, shared by
 * protocols, clients and the checkers that replay transactions.
 *
 * <p>Shipped with kvlab, key-local (see {@link TxnProcedure#keyLocal()}):
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
 * and the procedures of the workloads in {@code org.kvlab.workload} (listed by {@link #BUILT_IN}), plus any a jar
 * provides through {@link ServiceLoader}. A name given twice is an error at start.
 */
public final class TxnProcedures {
  private TxnProcedures() {}

  public static final String APPEND = "append";
  public static final String TRANSFER = "transfer";

  /** Every procedure kvlab ships, in one place (workload families add their list here). */
  private static final List<List<TxnProcedure>> BUILT_IN = List.of(ClassicProcedures.all(),
      org.kvlab.workload.store.StoreProcedures.all(), org.kvlab.workload.micro.MicroProcedures.all(),
      org.kvlab.workload.chirper.ChirperProcedures.all(), org.kvlab.workload.tpcc.TpccProcedures.all());

  private static final Map<String, TxnProcedure> REGISTRY = load();

  /** The names of every known procedure, in registration order. */
  public static final List<String> NAMES = List.copyOf(REGISTRY.keySet());

  private static Map<String, TxnProcedure> load() {
    Map<String, TxnProcedure> all = new LinkedHashMap<>();
    List<TxnProcedure> found = new ArrayList<>();
    BUILT_IN.forEach(found::addAll);
    ServiceLoader.load(TxnProcedure.class, TxnProcedures.class.getClassLoader()).forEach(found::add);
    for (TxnProcedure p : found) {
      TxnProcedure before = all.putIfAbsent(p.name(), p);
      if (before != null && before.getClass() != p.getClass()) {
        throw new IllegalStateException("two transaction procedures are named '" + p.name() + "': "
            + before.getClass().getName() + " and " + p.getClass().getName() + ". Fix: rename one");
      }
    }
    return Collections.unmodifiableMap(all);
  }

  /**
   * The procedure called {@code name}.
   *
   * @throws IllegalArgumentException if none is known by that name
   */
  public static TxnProcedure get(String name) {
    TxnProcedure p = REGISTRY.get(name);
    if (p == null) {
      throw new IllegalArgumentException("unknown transaction procedure '" + name + "'; known: " + NAMES);
    }
    return p;
  }

  /** Whether procedure {@code name} may run split by partition (see {@link TxnProcedure#keyLocal()}). */
  public static boolean isKeyLocal(String name) {
    return get(name).keyLocal();
  }

  static void validate(String name, List<String> keys, List<String> args) {
    TxnProcedure p = get(name);
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("procedure '" + name + "' needs at least one key");
    }
    p.validate(keys, args);
  }

  /**
   * The writes of procedure {@code name} given what it read: a key-local procedure's share at one partition, any
   * other procedure given every declared key.
   *
   * @param read key → value read (empty = absent); only keys of the procedure
   */
  public static Map<String, ByteString> run(String name, List<String> args, Map<String, Optional<ByteString>> read) {
    return get(name).run(args, read);
  }

  /**
   * The refusal a protocol that runs each partition's share of a transaction alone gives a procedure that needs
   * every key at one place, or null when {@code request} is fine there ({@code partitions}: how many distinct
   * partitions its keys live at).
   */
  public static String splitRefusal(TxnRequest request, int partitions, String protocol) {
    if (request.procedure() == null || partitions <= 1 || isKeyLocal(request.procedure())) {
      return null;
    }
    return "procedure '" + request.procedure() + "' reads keys at " + partitions + " partitions and writes from what"
        + " it read at others; " + protocol + " runs each partition's share alone. Fix: place its keys at one"
        + " partition, or run it on a protocol that executes a command where all its keys are (dynastar,"
        + " conveyorbelt, m2paxos, epaxos)";
  }

  /** The keys an {@code append} procedure appends to (its arguments after the element). */
  public static List<String> appendKeys(List<String> args) {
    return args.subList(1, args.size());
  }

  /** The element an {@code append} procedure appends. */
  public static long appendElement(List<String> args) {
    return Long.parseLong(args.get(0));
  }

  /** A value read as a decimal integer: absent, empty or not a number = 0 (deterministic, so all replicas agree). */
  public static long number(Optional<ByteString> v) {
    if (v == null || v.isEmpty()) {
      return 0;
    }
    try {
      return Long.parseLong(v.get().toStringUtf8().trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** A whole number as the decimal text procedures write. */
  public static ByteString text(long n) {
    return ByteString.copyFromUtf8(Long.toString(n));
  }

  /**
   * Checks that argument {@code what} of procedure {@code name} is a whole number.
   *
   * @throws IllegalArgumentException naming the procedure, the argument and the form {@code form}
   */
  public static void wholeNumber(String name, String what, String value, String form) {
    try {
      Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("procedure " + name + ": " + what + " must be a whole number, got '" + value
          + "'. Fix: " + form);
    }
  }
}
