package org.kvlab.history;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Histories as JSON lines: one {@link Operation} per line, fields named as the record's components, e.g.
 *
 * <pre>
 * {"id":0,"session":1,"dc":0,"type":"PUT","key":"x","value":"a","invokeMicros":10,"completeMicros":25,"outcome":"OK"}
 * {"id":1,"session":2,"dc":1,"type":"ROTX","reads":{"x":"a","y":null},"invokeMicros":30,"completeMicros":41,"outcome":"OK"}
 * {"id":2,"session":2,"dc":1,"type":"PUT","key":"y","value":{"base64":"3q2+7w=="},"invokeMicros":50,"completeMicros":90,"outcome":"INFO","error":"timeout"}
 * </pre>
 *
 * A value is a JSON string when it is valid UTF-8, else an object {@code {"base64": "..."}}; a read that found no
 * version is {@code null}. Absent fields ({@code key}, {@code value}, {@code reads}, {@code error}) are null. Blank lines
 * are skipped on reading.
 */
public final class HistoryFiles {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final String BASE64 = "base64";

  private HistoryFiles() {}

  public static void write(History history, Path file) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (Operation op : history.operations()) {
        w.write(toJson(op));
        w.write('\n');
      }
    }
  }

  public static History read(Path file) throws IOException {
    List<Operation> ops = new ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      int number = 0;
      while ((line = r.readLine()) != null) {
        number++;
        if (line.isBlank()) {
          continue;
        }
        try {
          ops.add(fromJson(line));
        } catch (JsonProcessingException | IllegalArgumentException e) {
          throw new IOException(file + ":" + number + ": not an operation (" + e.getMessage() + ")", e);
        }
      }
    }
    return new History(ops);
  }

  /** One line, without the newline. */
  public static String toJson(Operation op) {
    ObjectNode o = NODES.objectNode();
    o.put("id", op.id());
    o.put("session", op.session());
    o.put("dc", op.dc());
    o.put("type", op.type().name());
    if (op.key() != null) {
      o.put("key", op.key());
    }
    if (op.value() != null) {
      o.set("value", value(op.value()));
    }
    if (op.reads() != null) {
      ObjectNode reads = o.putObject("reads");
      for (Map.Entry<String, Optional<ByteString>> e : op.reads().entrySet()) {
        reads.set(e.getKey(), e.getValue() == null || e.getValue().isEmpty() ? NODES.nullNode() : value(e.getValue().get()));
      }
    }
    o.put("invokeMicros", op.invokeMicros());
    o.put("completeMicros", op.completeMicros());
    o.put("outcome", op.outcome().name());
    if (op.error() != null) {
      o.put("error", op.error());
    }
    try {
      return JSON.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Parses one line written by {@link #toJson}. */
  public static Operation fromJson(String line) throws JsonProcessingException {
    JsonNode o = JSON.readTree(line);
    if (o == null || !o.isObject()) {
      throw new IllegalArgumentException("expected a JSON object");
    }
    Map<String, Optional<ByteString>> reads = null;
    JsonNode rn = o.get("reads");
    if (rn != null && !rn.isNull()) {
      if (!rn.isObject()) {
        throw new IllegalArgumentException("reads must be an object");
      }
      Map<String, Optional<ByteString>> m = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = rn.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        m.put(e.getKey(), e.getValue().isNull() ? Optional.empty() : Optional.of(bytes(e.getValue())));
      }
      reads = Collections.unmodifiableMap(m);
    }
    JsonNode vn = o.get("value");
    return new Operation(
        required(o, "id").asLong(),
        required(o, "session").asInt(),
        required(o, "dc").asInt(),
        Operation.Type.valueOf(required(o, "type").asText()),
        text(o, "key"),
        vn == null || vn.isNull() ? null : bytes(vn),
        reads,
        required(o, "invokeMicros").asLong(),
        required(o, "completeMicros").asLong(),
        Operation.Outcome.valueOf(required(o, "outcome").asText()),
        text(o, "error"));
  }

  private static JsonNode value(ByteString v) {
    if (v.isValidUtf8()) {
      return NODES.textNode(v.toStringUtf8());
    }
    ObjectNode b = NODES.objectNode();
    b.put(BASE64, Base64.getEncoder().encodeToString(v.toByteArray()));
    return b;
  }

  private static ByteString bytes(JsonNode n) {
    if (n.isTextual()) {
      return ByteString.copyFromUtf8(n.asText());
    }
    if (n.isObject() && n.size() == 1 && n.get(BASE64) != null && n.get(BASE64).isTextual()) {
      return ByteString.copyFrom(Base64.getDecoder().decode(n.get(BASE64).asText()));
    }
    throw new IllegalArgumentException("a value must be a string or {\"base64\": \"...\"}, got " + n);
  }

  private static JsonNode required(JsonNode o, String field) {
    JsonNode n = o.get(field);
    if (n == null || n.isNull()) {
      throw new IllegalArgumentException("missing field '" + field + "'");
    }
    return n;
  }

  private static String text(JsonNode o, String field) {
    JsonNode n = o.get(field);
    return n == null || n.isNull() ? null : n.asText();
  }
}
