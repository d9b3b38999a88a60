package org.kvlab.history;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.kvlab.config.UserText;

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
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
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

  /**
   * Reads and validates a history file. Every problem is an {@link IOException} whose message starts with
   * {@code file:line: } and says what was expected: a line that is not one JSON object (or has anything after it),
   * invalid UTF-8, a missing, misspelt or mistyped field, a GET or PUT without a key, a PUT without a value, an OK GET
   * whose {@code reads} lack its key, an id used twice, a completion before the invocation, and two operations of one
   * session that overlap in time (a session runs one operation at a time, in id order).
   */
  public static History read(Path file) throws IOException {
    List<Operation> ops = new ArrayList<>();
    LongIntMap lineOfId = new LongIntMap();
    Map<String, String> keys = new HashMap<>();
    try (InputStream in = Files.newInputStream(file)) {
      LineReader lines = new LineReader(in);
      CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
      ByteBuffer raw;
      int number = 0;
      while ((raw = lines.next()) != null) {
        number++;
        String line;
        try {
          line = utf8.decode(raw).toString();
        } catch (CharacterCodingException e) {
          throw new IOException(file + ":" + number + ": not valid UTF-8 (byte " + (raw.position() + 1)
              + " of the line). Fix: history files are UTF-8 text; write values that are not UTF-8 as"
              + " {\"base64\": \"...\"}", e);
        }
        if (line.isBlank()) {
          continue;
        }
        Operation op;
        try {
          op = parse(line, keys);
        } catch (JsonProcessingException e) {
          throw new IOException(file + ":" + number + ": not a JSON object (" + e.getOriginalMessage() + "). "
              + EXPECTED, e);
        } catch (IllegalArgumentException e) {
          throw new IOException(file + ":" + number + ": " + e.getMessage(), e);
        }
        int prior = lineOfId.putIfAbsent(op.id(), number);
        if (prior != 0) {
          throw new IOException(file + ":" + number + ": id " + op.id() + " is already used on line " + prior
              + ". Fix: every operation has its own id (ids count up in invocation order)");
        }
        ops.add(op);
      }
    }
    checkSessions(file, ops, lineOfId);
    return new History(ops);
  }

  static final String TXN_EXAMPLE = "{\"type\":\"TXN\",\"reads\":{\"x\":\"a\"},\"txn\":{\"reads\":[\"x\"],"
      + "\"writes\":{\"y\":\"b\"},\"ts\":7,\"tid\":3,\"applied\":{\"y\":\"b\"},\"parts\":{\"0\":{\"ts\":7,\"seq\":1,"
      + "\"keys\":[\"x\"]},\"1\":{\"ts\":7,\"seq\":4,\"keys\":[\"y\"]}}},... (docs/checkers.md#history-files)";

  /** A value as JSON: a string if valid UTF-8, else {"base64": ...}. */
  static com.fasterxml.jackson.databind.JsonNode valueNode(ByteString v) {
    return value(v);
  }

  static ByteString valueOf(JsonNode n, String field) {
    return bytes(n, field);
  }

  /** The one-line example of the expected form used in error messages. */
  private static final String EXPECTED = "Expected one operation per line, e.g. {\"id\":0,\"session\":1,\"dc\":0,"
      + "\"type\":\"PUT\",\"key\":\"x\",\"value\":\"a\",\"invokeMicros\":10,\"completeMicros\":25,"
      + "\"outcome\":\"OK\"} (docs/checkers.md#history-files)";

  /** Sessions are sequential: in id order, each operation is invoked at or after the previous one completed. */
  private static void checkSessions(Path file, List<Operation> ops, LongIntMap lineOfId) throws IOException {
    List<Operation> sorted = new ArrayList<>(ops);
    sorted.sort(Comparator.comparingInt(Operation::session).thenComparingLong(Operation::id));
    for (int i = 1; i < sorted.size(); i++) {
      Operation a = sorted.get(i - 1);
      Operation b = sorted.get(i);
      if (a.session() == b.session() && b.invokeMicros() < a.completeMicros()) {
        throw new IOException(file + ":" + lineOfId.get(b.id()) + ": operation " + b.id() + " of session "
            + b.session() + " is invoked at " + b.invokeMicros() + "µs, before the session's previous operation "
            + a.id() + " (line " + lineOfId.get(a.id()) + ") completed at " + a.completeMicros() + "µs. Fix: a session"
            + " runs one operation at a time, so in id order each one is invoked at or after the previous one"
            + " completed; give concurrent clients their own session numbers");
      }
    }
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
    if (op.txn() != null) {
      o.set("txn", TxnJson.toJson(op.txn()));
    }
    try {
      return JSON.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Parses and validates one line written by {@link #toJson}.
   *
   * @throws IllegalArgumentException saying what is wrong and what was expected
   */
  public static Operation fromJson(String line) throws JsonProcessingException {
    return parse(line, new HashMap<>());
  }

  private static final List<String> FIELDS = List.of("id", "session", "dc", "type", "key", "value", "reads",
      "invokeMicros", "completeMicros", "outcome", "error", "txn");

  private static Operation parse(String line, Map<String, String> keys) throws JsonProcessingException {
    JsonNode o = JSON.readTree(line);
    if (o == null || !o.isObject()) {
      throw new IllegalArgumentException("expected a JSON object, got " + (o == null ? "nothing" : o.getNodeType()
          .name().toLowerCase(java.util.Locale.ROOT)) + ". " + EXPECTED);
    }
    for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!FIELDS.contains(f)) {
        throw new IllegalArgumentException("unknown field \"" + UserText.cut(f) + "\"; the fields are " + String.join(", ", FIELDS));
      }
    }
    long id = whole(o, "id", Long.MAX_VALUE);
    int session = (int) whole(o, "session", Integer.MAX_VALUE);
    int dc = (int) whole(o, "dc", Integer.MAX_VALUE);
    Operation.Type type = constant(o, "type", Operation.Type.class);
    long invoke = whole(o, "invokeMicros", Long.MAX_VALUE);
    long complete = whole(o, "completeMicros", Long.MAX_VALUE);
    Operation.Outcome outcome = constant(o, "outcome", Operation.Outcome.class);
    if (complete < invoke) {
      throw new IllegalArgumentException("completeMicros " + complete + " is before invokeMicros " + invoke
          + ". Fix: an operation completes at or after its invocation (both in microseconds)");
    }
    String key = string(o, "key");
    if (key != null) {
      key = keys.computeIfAbsent(key, k -> k);
    }
    if (type == Operation.Type.TXN && key != null) {
      throw new IllegalArgumentException("a TXN has no \"key\" (its keys are in \"txn\"), got \"key\":" + shown(o.get("key"))
          + ". Expected e.g. " + TXN_EXAMPLE);
    }
    if (type == Operation.Type.ROTX && key != null) {
      throw new IllegalArgumentException("a ROTX has no \"key\" (its keys are those of \"reads\"), got \"key\":"
          + shown(o.get("key")) + ". Expected e.g. {\"type\":\"ROTX\",\"reads\":{\"x\":\"a\",\"y\":null},...}");
    }
    if (type != Operation.Type.ROTX && type != Operation.Type.TXN && key == null) {
      throw new IllegalArgumentException("a " + type + " needs a \"key\" (a string), e.g. \"key\":\"x\"");
    }
    JsonNode vn = o.get("value");
    ByteString value = vn == null || vn.isNull() ? null : bytes(vn, "value");
    if (type == Operation.Type.PUT && value == null) {
      throw new IllegalArgumentException("a PUT needs the \"value\" it wrote: a string, or {\"base64\":\"...\"}"
          + " for bytes that are not UTF-8, e.g. \"value\":\"a\"");
    }
    if (type != Operation.Type.PUT && value != null) {
      throw new IllegalArgumentException("only a PUT has a \"value\"; what a " + type + " returned goes in \"reads\"");
    }
    Map<String, Optional<ByteString>> reads = null;
    JsonNode rn = o.get("reads");
    if (rn != null && !rn.isNull()) {
      if (type == Operation.Type.PUT || outcome != Operation.Outcome.OK) {
        throw new IllegalArgumentException("only an OK GET or ROTX has \"reads\" (what it returned); this is a"
            + (outcome == Operation.Outcome.OK ? "" : "n " + outcome) + " " + type);
      }
      if (!rn.isObject()) {
        throw new IllegalArgumentException("\"reads\" must be an object key -> value (null: not found), e.g."
            + " \"reads\":{\"x\":\"a\",\"y\":null}; got " + shown(rn));
      }
      if (type == Operation.Type.GET) {
        if (rn.size() != 1 || !rn.has(key)) {
          throw new IllegalArgumentException("the \"reads\" of an OK GET of \"" + UserText.cut(key) + "\" must hold exactly that"
              + " key, e.g. \"reads\":{" + JSON.writeValueAsString(UserText.cut(key)) + ":\"a\"} (or null if not found);"
              + " got " + shown(rn));
        }
        JsonNode v = rn.get(key);
        reads = Map.of(key, v.isNull() ? Optional.empty() : Optional.of(bytes(v, "reads." + UserText.cut(key))));
      } else {
        Map<String, Optional<ByteString>> m = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = rn.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          m.put(keys.computeIfAbsent(e.getKey(), k -> k),
              e.getValue().isNull() ? Optional.empty() : Optional.of(bytes(e.getValue(), "reads." + UserText.cut(e.getKey()))));
        }
        reads = Collections.unmodifiableMap(m);
      }
    } else if (outcome == Operation.Outcome.OK && type != Operation.Type.PUT) {
      throw new IllegalArgumentException("an OK " + type + " needs \"reads\", what it returned, e.g. \"reads\":"
          + (type == Operation.Type.GET ? "{" + JSON.writeValueAsString(UserText.cut(key)) + ":\"a\"}" : "{\"x\":\"a\",\"y\":null}")
          + " (null: not found)");
    }
    JsonNode en = o.get("error");
    if (en != null && !en.isNull() && !en.isTextual()) {
      throw new IllegalArgumentException("\"error\" must be a string, got " + shown(en));
    }
    JsonNode tn = o.get("txn");
    Operation.Txn txn = null;
    if (type == Operation.Type.TXN) {
      txn = TxnJson.parse(tn, outcome, reads, keys);
    } else if (tn != null && !tn.isNull()) {
      throw new IllegalArgumentException("only a TXN has \"txn\"; this is a " + type);
    }
    return new Operation(id, session, dc, type, key, value, reads, invoke, complete, outcome,
        en == null || en.isNull() ? null : en.asText(), txn);
  }

  /** A JSON value of the user's file as a message quotes it: cut to a readable length ({@link UserText}). */
  static String shown(JsonNode n) {
    return UserText.cut(String.valueOf(n));
  }

  /** A required whole number in {@code 0..max}. */
  private static long whole(JsonNode o, String field, long max) {
    JsonNode n = required(o, field);
    if (!n.isIntegralNumber() || !n.canConvertToLong() || n.asLong() < 0 || n.asLong() > max) {
      throw new IllegalArgumentException("\"" + field + "\" must be a whole number from 0 to " + max + ", got " + shown(n)
          + (n.isTextual() ? " (a string)" : "") + "; e.g. \"" + field + "\":12");
    }
    return n.asLong();
  }

  private static <E extends Enum<E>> E constant(JsonNode o, String field, Class<E> type) {
    JsonNode n = required(o, field);
    List<String> valid = new ArrayList<>();
    for (E e : type.getEnumConstants()) {
      valid.add(e.name());
      if (n.isTextual() && e.name().equals(n.asText())) {
        return e;
      }
    }
    throw new IllegalArgumentException("\"" + field + "\" must be one of " + String.join(", ", valid) + ", got " + shown(n));
  }

  /** An optional string field (null if absent or null). */
  private static String string(JsonNode o, String field) {
    JsonNode n = o.get(field);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isTextual()) {
      throw new IllegalArgumentException("\"" + field + "\" must be a string, got " + shown(n));
    }
    return n.asText();
  }

  private static JsonNode value(ByteString v) {
    if (v.isValidUtf8()) {
      return NODES.textNode(v.toStringUtf8());
    }
    ObjectNode b = NODES.objectNode();
    b.put(BASE64, Base64.getEncoder().encodeToString(v.toByteArray()));
    return b;
  }

  private static ByteString bytes(JsonNode n, String field) {
    if (n.isTextual()) {
      return ByteString.copyFromUtf8(n.asText());
    }
    if (n.isObject() && n.size() == 1 && n.get(BASE64) != null && n.get(BASE64).isTextual()) {
      try {
        return ByteString.copyFrom(Base64.getDecoder().decode(n.get(BASE64).asText()));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("\"" + field + "\": " + shown(n) + " is not valid base64 (" + e.getMessage() + ")");
      }
    }
    throw new IllegalArgumentException("\"" + field + "\" must be a string, or {\"base64\": \"...\"} for bytes that"
        + " are not UTF-8, got " + shown(n));
  }

  private static JsonNode required(JsonNode o, String field) {
    JsonNode n = o.get(field);
    if (n == null || n.isNull()) {
      throw new IllegalArgumentException("missing field \"" + field + "\". " + EXPECTED);
    }
    return n;
  }

  /** Lines of bytes ({@code \n} or {@code \r\n} terminated), without the terminator. */
  private static final class LineReader {
    private final InputStream in;
    private final byte[] chunk = new byte[1 << 16];
    private int pos;
    private int end;
    private byte[] line = new byte[256];

    LineReader(InputStream in) {
      this.in = in;
    }

    ByteBuffer next() throws IOException {
      int len = 0;
      boolean any = false;
      while (true) {
        if (pos == end) {
          end = in.read(chunk, 0, chunk.length);
          pos = 0;
          if (end <= 0) {
            end = 0;
            if (!any) {
              return null;
            }
            break;
          }
        }
        any = true;
        int start = pos;
        while (pos < end && chunk[pos] != '\n') {
          pos++;
        }
        int n = pos - start;
        if (len + n > line.length) {
          line = Arrays.copyOf(line, Math.max(line.length * 2, len + n));
        }
        System.arraycopy(chunk, start, line, len, n);
        len += n;
        if (pos < end) {
          pos++; // the newline
          break;
        }
      }
      if (len > 0 && line[len - 1] == '\r') {
        len--;
      }
      return ByteBuffer.wrap(line, 0, len);
    }
  }

  /** id -> line number (0 = absent), open addressing; a HashMap of boxed longs would cost ~60 bytes per operation. */
  private static final class LongIntMap {
    private long[] keys = new long[1024];
    private int[] values = new int[1024];
    private int size;

    /** The value already there (keeping it), or 0 after storing {@code value}. */
    int putIfAbsent(long key, int value) {
      if (2 * (size + 1) > keys.length) {
        grow();
      }
      int i = slot(key);
      if (values[i] != 0) {
        return values[i];
      }
      keys[i] = key;
      values[i] = value;
      size++;
      return 0;
    }

    int get(long key) {
      return values[slot(key)];
    }

    private int slot(long key) {
      int mask = keys.length - 1;
      int i = (int) (key * 0x9E3779B97F4A7C15L >>> 40) & mask;
      while (values[i] != 0 && keys[i] != key) {
        i = (i + 1) & mask;
      }
      return i;
    }

    private void grow() {
      long[] k = keys;
      int[] v = values;
      keys = new long[k.length * 2];
      values = new int[k.length * 2];
      for (int i = 0; i < k.length; i++) {
        if (v[i] != 0) {
          int j = slot(k[i]);
          keys[j] = k[i];
          values[j] = v[i];
        }
      }
    }
  }
}
