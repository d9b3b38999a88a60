package org.kvlab.api;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A one-shot multi-key transaction, declared up front (Calvin's deterministic model): the keys it reads, the values
 * it writes, or a named deterministic {@link TxnProcedures procedure} with its arguments over declared keys. There is
 * no interactive step and no abort: the outcome is fixed by the order the protocol gives it.
 *
 * @param reads keys whose values (before this transaction's writes) are returned, sorted, distinct
 * @param writes key → value written, sorted by key
 * @param procedure null for a plain read/write-set transaction, else a name known to {@link TxnProcedures}: it reads
 *     {@code reads} and computes the writes to those keys
 * @param args the procedure's arguments (empty for a plain transaction)
 */
public record TxnRequest(List<String> reads, Map<String, ByteString> writes, String procedure, List<String> args) {

  public TxnRequest {
    reads = List.copyOf(new TreeSet<>(reads));
    writes = Collections.unmodifiableMap(new TreeMap<>(writes));
    args = List.copyOf(args);
    if (procedure != null) {
      TxnProcedures.validate(procedure, reads, args);
      if (!writes.isEmpty()) {
        throw new IllegalArgumentException("a procedure transaction computes its writes; declare its keys as reads"
            + " and give no explicit writes (got " + writes.keySet() + ")");
      }
    }
    if (reads.isEmpty() && writes.isEmpty()) {
      throw new IllegalArgumentException("a transaction needs at least one key to read or write. Fix: e.g."
          + " txn r k1 w k2=v");
    }
  }

  /** A plain transaction: read {@code reads}, write {@code writes}. */
  public static TxnRequest of(List<String> reads, Map<String, ByteString> writes) {
    return new TxnRequest(reads, writes, null, List.of());
  }

  /** A procedure over {@code keys}, e.g. {@code procedure("add", List.of("x","y"), "1")}. */
  public static TxnRequest procedure(String name, List<String> keys, String... args) {
    return new TxnRequest(keys, Map.of(), name, List.of(args));
  }

  /** Every key the transaction touches, sorted. */
  public List<String> keys() {
    TreeSet<String> all = new TreeSet<>(reads);
    all.addAll(writes.keySet());
    return new ArrayList<>(all);
  }

  /** Short human form, e.g. {@code txn r[x] w[y="1"]} or {@code add(1)[x, y]}. */
  public String describe() {
    if (procedure != null) {
      return procedure + args + reads;
    }
    List<String> w = new ArrayList<>();
    writes.forEach((k, v) -> w.add(k + "=" + (v.isValidUtf8() ? "\"" + v.toStringUtf8() + "\"" : v.size() + "B")));
    return "txn r" + reads + " w" + w;
  }
}
