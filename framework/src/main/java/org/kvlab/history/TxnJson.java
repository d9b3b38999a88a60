package org.kvlab.history;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;
import org.kvlab.config.UserText;

/** The {@code "txn"} object of a TXN line in a history file (strict: every problem names the field and the form). */
final class TxnJson {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final List<String> FIELDS = List.of("reads", "writes", "procedure", "args", "ts", "tid", "applied",
      "parts");
  private static final List<String> RESULT_FIELDS = List.of("ts", "tid", "applied", "parts");

  private TxnJson() {}

  static ObjectNode toJson(Operation.Txn t) {
    ObjectNode o = NODES.objectNode();
    TxnRequest q = t.request();
    q.reads().forEach(o.putArray("reads")::add);
    ObjectNode w = o.putObject("writes");
    q.writes().forEach((k, v) -> w.set(k, HistoryFiles.valueNode(v)));
    if (q.procedure() != null) {
      o.put("procedure", q.procedure());
      q.args().forEach(o.putArray("args")::add);
    }
    TxnResult r = t.result();
    if (r != null) {
      o.put("ts", r.ts());
      o.put("tid", r.tid());
      ObjectNode a = o.putObject("applied");
      r.writes().forEach((k, v) -> a.set(k, HistoryFiles.valueNode(v)));
      ObjectNode parts = o.putObject("parts");
      new TreeMap<>(r.parts()).forEach((p, part) -> {
        ObjectNode po = parts.putObject(Integer.toString(p));
        po.put("ts", part.ts());
        po.put("seq", part.seq());
        part.keys().forEach(po.putArray("keys")::add);
      });
    }
    return o;
  }

  static Operation.Txn parse(JsonNode t, Operation.Outcome outcome, Map<String, Optional<ByteString>> reads,
      Map<String, String> intern) {
    if (t == null || t.isNull() || !t.isObject()) {
      throw new IllegalArgumentException("a TXN needs a \"txn\" object (its request, and its result if OK), e.g. "
          + HistoryFiles.TXN_EXAMPLE + "; got " + HistoryFiles.shown(t));
    }
    for (Iterator<String> it = t.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!FIELDS.contains(f)) {
        throw new IllegalArgumentException("unknown field \"txn." + UserText.cut(f) + "\"; the fields are " + String.join(", ", FIELDS));
      }
    }
    List<String> readKeys = strings(t.get("reads"), "txn.reads", intern);
    Map<String, ByteString> writes = values(t.get("writes"), "txn.writes", intern);
    JsonNode pn = t.get("procedure");
    String procedure = null;
    if (pn != null && !pn.isNull()) {
      if (!pn.isTextual()) {
        throw new IllegalArgumentException("\"txn.procedure\" must be a string (e.g. \"add\"), got " + HistoryFiles.shown(pn));
      }
      procedure = pn.asText();
    }
    List<String> args = t.has("args") ? strings(t.get("args"), "txn.args", intern) : List.of();
    if (procedure == null && !args.isEmpty()) {
      throw new IllegalArgumentException("\"txn.args\" are the arguments of a procedure; this TXN names none."
          + " Fix: add \"procedure\" or drop \"args\"");
    }
    TxnRequest request;
    try {
      request = new TxnRequest(readKeys, writes, procedure, args);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("\"txn\": " + e.getMessage());
    }
    boolean ok = outcome == Operation.Outcome.OK;
    for (String f : RESULT_FIELDS) {
      if (ok && !t.has(f)) {
        throw new IllegalArgumentException("an OK TXN needs \"txn." + f + "\" (ts, tid, applied and parts are its"
            + " result). Expected e.g. " + HistoryFiles.TXN_EXAMPLE);
      }
      if (!ok && t.has(f)) {
        throw new IllegalArgumentException("only an OK TXN has \"txn." + f + "\"; this one is " + outcome
            + " (its result is unknown)");
      }
    }
    if (!ok) {
      return new Operation.Txn(request, null);
    }
    if (reads == null || !reads.keySet().equals(new java.util.TreeSet<>(request.reads()))) {
      throw new IllegalArgumentException("the \"reads\" of an OK TXN must hold exactly its read keys "
          + UserText.cut(request.reads().toString()) + " (null: not found); got "
          + (reads == null ? "none" : UserText.cut(reads.keySet().toString())));
    }
    long ts = whole(t.get("ts"), "txn.ts");
    long tid = whole(t.get("tid"), "txn.tid");
    Map<String, ByteString> applied = values(t.get("applied"), "txn.applied", intern);
    JsonNode parts = t.get("parts");
    if (!parts.isObject()) { // {} = a protocol without ordering metadata (only the black-box checkers judge it)
      throw new IllegalArgumentException("\"txn.parts\" must be an object partition -> {\"ts\":..,\"seq\":..,"
          + "\"keys\":[..]}, got " + HistoryFiles.shown(parts));
    }
    Map<Integer, TxnResult.Part> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = parts.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      int p;
      try {
        p = Integer.parseInt(e.getKey());
      } catch (NumberFormatException x) {
        throw new IllegalArgumentException("\"txn.parts\" keys are partition numbers, got \"" + UserText.cut(e.getKey()) + "\"");
      }
      if (p < 0) {
        throw new IllegalArgumentException("\"txn.parts\" keys are partition numbers (0 or more), got " + p);
      }
      JsonNode po = e.getValue();
      String f = "txn.parts." + p;
      if (!po.isObject()) {
        throw new IllegalArgumentException("\"" + f + "\" must be {\"ts\":..,\"seq\":..,\"keys\":[..]}, got " + HistoryFiles.shown(po));
      }
      for (Iterator<String> fi = po.fieldNames(); fi.hasNext(); ) {
        String n = fi.next();
        if (!List.of("ts", "seq", "keys").contains(n)) {
          throw new IllegalArgumentException("unknown field \"" + f + "." + UserText.cut(n) + "\"; the fields are ts, seq, keys");
        }
      }
      long seq = whole(po.get("seq"), f + ".seq");
      if (seq < 1) {
        throw new IllegalArgumentException("\"" + f + ".seq\" counts from 1, got " + seq);
      }
      out.put(p, new TxnResult.Part(whole(po.get("ts"), f + ".ts"), seq, strings(po.get("keys"), f + ".keys", intern)));
    }
    return new Operation.Txn(request, new TxnResult(reads, applied, ts, tid, out));
  }

  private static long whole(JsonNode n, String field) {
    if (n == null || !n.isIntegralNumber() || !n.canConvertToLong() || n.asLong() < 0) {
      throw new IllegalArgumentException("\"" + field + "\" must be a whole number (0 or more), got " + HistoryFiles.shown(n));
    }
    return n.asLong();
  }

  private static List<String> strings(JsonNode n, String field, Map<String, String> intern) {
    if (n == null || !n.isArray()) {
      throw new IllegalArgumentException("\"" + field + "\" must be an array of strings, e.g. [\"x\",\"y\"]; got " + HistoryFiles.shown(n));
    }
    List<String> out = new ArrayList<>();
    for (JsonNode e : n) {
      if (!e.isTextual()) {
        throw new IllegalArgumentException("\"" + field + "\" must hold only strings, got " + HistoryFiles.shown(e));
      }
      out.add(intern.computeIfAbsent(e.asText(), k -> k));
    }
    return out;
  }

  private static Map<String, ByteString> values(JsonNode n, String field, Map<String, String> intern) {
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("\"" + field + "\" must be an object key -> value, e.g. {\"y\":\"b\"}; got " + HistoryFiles.shown(n));
    }
    Map<String, ByteString> out = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getValue().isNull()) {
        throw new IllegalArgumentException("\"" + field + "." + UserText.cut(e.getKey()) + "\" must be a value (a string or"
            + " {\"base64\":...}), not null");
      }
      out.put(intern.computeIfAbsent(e.getKey(), k -> k), HistoryFiles.valueOf(e.getValue(), field + "." + UserText.cut(e.getKey())));
    }
    return out;
  }
}
