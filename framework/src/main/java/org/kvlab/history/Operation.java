package org.kvlab.history;

import com.google.protobuf.ByteString;
import java.util.Map;
import java.util.Optional;

/**
 * One client operation as a checker sees it: only what the client observed (Jepsen/Maelstrom style).
 *
 * @param id unique within the history, in invocation order
 * @param session the session (client) that issued it
 * @param dc the datacenter the session is attached to
 * @param type what it was
 * @param key the key of a GET or PUT (for ROTX: null; see {@code reads})
 * @param value the value a PUT wrote (unique within a history), else null
 * @param reads what a GET or ROTX returned, key → value (empty = no visible version); null for a PUT
 *     or an operation that did not complete OK
 * @param invokeMicros time the client invoked it (virtual time in the simulator, wall time in real runs)
 * @param completeMicros time the client saw the outcome
 * @param outcome OK, FAIL (definitely did not take effect) or INFO (unknown: timeout, crash)
 * @param error the error message for FAIL/INFO, else null
 * @param txn for a TXN: the request, and the result (ordering facts, writes) if it completed OK; else null
 */
public record Operation(
    long id,
    int session,
    int dc,
    Type type,
    String key,
    ByteString value,
    Map<String, Optional<ByteString>> reads,
    long invokeMicros,
    long completeMicros,
    Outcome outcome,
    String error,
    Txn txn) {

  /** An operation that is not a transaction. */
  public Operation(long id, int session, int dc, Type type, String key, ByteString value,
      Map<String, Optional<ByteString>> reads, long invokeMicros, long completeMicros, Outcome outcome, String error) {
    this(id, session, dc, type, key, value, reads, invokeMicros, completeMicros, outcome, error, null);
  }

  /**
   * A multi-key transaction as the client saw it.
   *
   * @param request what was asked (keys, writes or procedure)
   * @param result what it returned, with its timestamp, id and per-partition delivery positions; null unless OK
   */
  public record Txn(org.kvlab.api.TxnRequest request, org.kvlab.api.TxnResult result) {}

  public enum Type { GET, PUT, ROTX, TXN }

  public enum Outcome { OK, FAIL, INFO }

  public boolean ok() {
    return outcome == Outcome.OK;
  }

  public boolean isWrite() {
    return type == Type.PUT;
  }

  /** The value a GET returned (empty = not found); only for completed GETs. */
  public Optional<ByteString> readValue() {
    return reads.get(key);
  }

  /** Short human form used in violation reports, e.g. {@code #12 s3@dc0 put(x)="a" [100..250µs]}. */
  public String describe() {
    String body = switch (type) {
      case PUT -> "put(" + key + ")=" + show(value);
      case GET -> "get(" + key + ")" + (reads == null ? "" : "->" + show(reads.get(key)));
      case ROTX -> "rotx" + (reads == null ? "" : reads.entrySet().stream()
          .map(e -> e.getKey() + "=" + show(e.getValue())).toList());
      case TXN -> (txn == null ? "txn?" : txn.request().describe())
          + (txn == null || txn.result() == null || txn.result().parts().isEmpty() ? ""
          : "@ts" + txn.result().ts() + "/tid" + txn.result().tid())
          + (reads == null || reads.isEmpty() ? "" : "->" + reads.entrySet().stream()
          .map(e -> e.getKey() + "=" + show(e.getValue())).toList());
    };
    return "#" + id + " s" + session + "@dc" + dc + " " + body + (outcome == Outcome.OK ? "" : " " + outcome)
        + " [" + invokeMicros + ".." + completeMicros + "µs]";
  }

  /** nil for not found; "?" if the read is missing (an ill-formed in-memory history; files are validated). */
  private static String show(Optional<ByteString> read) {
    return read == null ? "?" : read.map(Operation::show).orElse("nil");
  }

  static String show(ByteString v) {
    return v == null ? "?" : v.isValidUtf8() ? "\"" + v.toStringUtf8() + "\"" : v.size() + "B";
  }
}
