package org.kvlab.api;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A named deterministic transaction procedure over a transaction's declared keys: given what it read, the writes it
 * makes. Every replica, every participant and every checker that replays a transaction runs the same code, so a
 * procedure takes nothing but its arguments and its reads (no clock, no randomness, no I/O).
 *
 * <p>Two kinds. A <b>key-local</b> procedure's write to a key depends only on the value read at that same key and the
 * arguments ({@code add}, {@code append}, {@code transfer}): a partition runs its share alone, given the reads of its
 * own keys (Calvin's independent transactions; CaMu). Any other procedure (an order that empties a cart and takes its
 * items from the stock, TPC-C's New-Order) needs the reads of <b>all</b> its keys at one place: protocols that
 * execute a command where every key is present (full replication: M²Paxos, EPaxos, the Conveyor Belt; DynaStar after
 * borrowing) run it; protocols that split a transaction by partition refuse it when its keys span partitions.
 *
 * <p>The procedures kvlab ships are listed in {@link TxnProcedures}; a jar may add its own through
 * {@link java.util.ServiceLoader} ({@code META-INF/services/org.kvlab.api.TxnProcedure}).
 */
public interface TxnProcedure {
  /** The name transactions call it by, e.g. {@code add}; unique. */
  String name();

  /** Whether each key's write depends only on that key's read and the arguments (see the class comment). */
  boolean keyLocal();

  /**
   * Checks the arguments against the declared keys ({@code keys} sorted, distinct, non-empty) before the
   * transaction is sent.
   *
   * @throws IllegalArgumentException naming what is wrong and the form expected
   */
  void validate(List<String> keys, List<String> args);

  /**
   * The writes given the reads: key → value read (empty = absent). A key-local procedure may be given a subset of
   * the keys (one partition's); any other procedure is given every declared key. Writes only to declared keys.
   */
  Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read);
}
