package org.kvlab.command;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.kvlab.api.TxnProcedures;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;

/**
 * The shared client command ({@link CommandRequest}, {@link CommandReply}) of the full-replication protocols: building
 * it from a GET, PUT or {@link TxnRequest}, running it on a store, and reading its reply into the API's result types.
 * The client side is {@link CommandClient}; docs/spi.md "Shared command messages".
 */
public final class Commands {
  private Commands() {}

  /** The command of a transaction: its reads and writes, or its procedure with its arguments. */
  public static CommandRequest request(TxnRequest request) {
    CommandRequest.Builder b = CommandRequest.newBuilder().addAllReads(request.reads()).putAllWrites(request.writes());
    if (request.procedure() != null) {
      b.setProcedure(request.procedure()).addAllArgs(request.args());
    }
    return b.build();
  }

  /** The command of a GET: it reads {@code key}. */
  public static CommandRequest get(String key) {
    return CommandRequest.newBuilder().addReads(key).build();
  }

  /** The command of a PUT: it writes {@code value} to {@code key}. */
  public static CommandRequest put(String key, ByteString value) {
    return CommandRequest.newBuilder().putWrites(key, value).build();
  }

  /** Every key {@code c} touches (its reads and its written keys), sorted; empty for an empty command. */
  public static List<String> keys(CommandRequest c) {
    TreeSet<String> all = new TreeSet<>(c.getReadsList());
    all.addAll(c.getWritesMap().keySet());
    return new ArrayList<>(all);
  }

  /** A read's entry: {@code found} with the value, or not found with an empty value. */
  public static KeyValue keyValue(String key, Optional<ByteString> value) {
    return KeyValue.newBuilder().setKey(key).setFound(value.isPresent()).setValue(value.orElse(ByteString.EMPTY))
        .build();
  }

  /**
   * Runs {@code c}: reads each of its read keys with {@code read}, all before any write; computes its writes (the
   * given ones, in key order, or what its procedure returns over the values read) and hands each to {@code write}.
   * Returns the reply's reads (in the command's order) and writes (every write computed, whether or not
   * {@code write} applied it); its ts and tid are the protocol's to set.
   */
  public static CommandReply.Builder execute(CommandRequest c, Function<String, Optional<ByteString>> read,
      BiConsumer<String, ByteString> write) {
    CommandReply.Builder r = CommandReply.newBuilder();
    Map<String, Optional<ByteString>> values = new TreeMap<>();
    for (String key : c.getReadsList()) {
      Optional<ByteString> v = read.apply(key);
      values.put(key, v);
      r.addReads(keyValue(key, v));
    }
    Map<String, ByteString> writes = c.getProcedure().isEmpty() ? new TreeMap<>(c.getWritesMap())
        : TxnProcedures.run(c.getProcedure(), c.getArgsList(), values);
    writes.forEach((key, v) -> {
      r.addWrites(keyValue(key, Optional.of(v)));
      write.accept(key, v);
    });
    return r;
  }

  /** The value a GET's reply read (its first read), or empty if the key had none. */
  public static Optional<ByteString> value(CommandReply r) {
    KeyValue kv = r.getReads(0);
    return kv.getFound() ? Optional.of(kv.getValue()) : Optional.empty();
  }

  /** The API's result of a reply: its reads, writes, ts and tid, with {@code parts} (the checkers' ordering facts). */
  public static TxnResult result(CommandReply r, Map<Integer, TxnResult.Part> parts) {
    Map<String, Optional<ByteString>> reads = new TreeMap<>();
    r.getReadsList().forEach(kv -> reads.put(kv.getKey(), kv.getFound() ? Optional.of(kv.getValue())
        : Optional.empty()));
    Map<String, ByteString> writes = new TreeMap<>();
    r.getWritesList().forEach(kv -> writes.put(kv.getKey(), kv.getValue()));
    return new TxnResult(reads, writes, r.getTs(), r.getTid(), parts);
  }

  /**
   * The API's result of a reply whose ts is the command's position in one delivery sequence of every command (one
   * partition, 0): the part the ordering-metadata transaction checker reads, over {@code keys}.
   */
  public static TxnResult sequenced(CommandReply r, List<String> keys) {
    return result(r, Map.of(0, new TxnResult.Part(r.getTs(), r.getTs(), keys)));
  }
}
