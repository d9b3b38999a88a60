package org.kvlab.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.history.Operation.Outcome;
import org.kvlab.history.Operation.Type;

class HistoryFilesTest {
  @TempDir
  Path dir;

  private static ByteString utf8(String s) {
    return ByteString.copyFromUtf8(s);
  }

  @Test
  void when_aHistoryIsWrittenAndReadBack_then_everyOperationIsEqual() throws IOException {
    Map<String, Optional<ByteString>> rotx = new LinkedHashMap<>();
    rotx.put("x", Optional.of(utf8("a")));
    rotx.put("y", Optional.empty());
    rotx.put("bin", Optional.of(ByteString.copyFrom(new byte[] {(byte) 0xde, (byte) 0xad, 0, (byte) 0xff})));
    History history = new History(List.of(
        new Operation(0, 1, 0, Type.PUT, "x", utf8("a"), null, 10, 25, Outcome.OK, null),
        new Operation(1, 2, 1, Type.GET, "x", null, Map.of("x", Optional.of(utf8("a"))), 30, 40, Outcome.OK, null),
        new Operation(2, 2, 1, Type.GET, "z", null, Map.of("z", Optional.empty()), 41, 42, Outcome.OK, null),
        new Operation(3, 2, 1, Type.ROTX, null, null, rotx, 50, 60, Outcome.OK, null),
        new Operation(4, 1, 0, Type.PUT, "bin", ByteString.copyFrom(new byte[] {(byte) 0xde, (byte) 0xad, 0,
            (byte) 0xff}), null, 70, 900, Outcome.INFO, "timeout after 800µs"),
        new Operation(5, 3, 0, Type.PUT, "ünïcødé \"quoted\"\n", utf8("{\"base64\":\"not really\"} ✓"), null, 80,
            81, Outcome.FAIL, "back-pressure"),
        new Operation(6, 3, 0, Type.GET, "x", null, null, 90, 95, Outcome.INFO, "crash")));
    Path file = dir.resolve("sub/history.jsonl");
    HistoryFiles.write(history, file);
    History back = HistoryFiles.read(file);
    assertEquals(history.operations(), back.operations());
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    assertEquals(7, lines.size(), "one operation per line");
    assertTrue(lines.get(4).contains("{\"base64\":\"3q0A/w==\"}"), lines.get(4));
    assertTrue(lines.get(0).contains("\"value\":\"a\""), lines.get(0));
    assertTrue(lines.get(3).contains("\"y\":null"), lines.get(3));
    assertEquals(List.of("x", "y", "bin"), List.copyOf(back.operations().get(3).reads().keySet()), "order kept");
  }

  @Test
  void when_aLineIsNotAnOperation_then_theErrorNamesFileAndLine() throws IOException {
    Path file = dir.resolve("bad.jsonl");
    Files.writeString(file, HistoryFiles.toJson(new Operation(0, 1, 0, Type.PUT, "x", utf8("a"), null, 1, 2,
        Outcome.OK, null)) + "\n\n{\"id\":1,\"session\":1}\n");
    IOException e = assertThrows(IOException.class, () -> HistoryFiles.read(file));
    assertTrue(e.getMessage().contains("bad.jsonl:3: ") && e.getMessage().contains("missing field"),
        e.getMessage());
  }

  @Test
  void when_anEmptyHistoryIsWritten_then_itReadsBackEmpty() throws IOException {
    Path file = dir.resolve("empty.jsonl");
    HistoryFiles.write(new History(List.of()), file);
    assertEquals(0, HistoryFiles.read(file).size());
  }

  private static final String PUT0 = "{\"id\":0,\"session\":1,\"dc\":0,\"type\":\"PUT\",\"key\":\"x\",\"value\":\"a\","
      + "\"invokeMicros\":10,\"completeMicros\":25,\"outcome\":\"OK\"}";

  /** Writes {@code PUT0} then {@code line} (line 2) and returns the loader's error message. */
  private String errorOf(String line) throws IOException {
    Path file = dir.resolve("h.jsonl");
    Files.writeString(file, PUT0 + "\n" + line + "\n");
    return assertThrows(IOException.class, () -> HistoryFiles.read(file)).getMessage();
  }

  private static String op(String fields) {
    return "{\"id\":1,\"session\":2,\"dc\":0," + fields + ",\"invokeMicros\":30,\"completeMicros\":40}";
  }

  private static void assertMentions(String message, String... parts) {
    assertTrue(message.contains("h.jsonl:2: "), message);
    for (String p : parts) {
      assertTrue(message.contains(p), "expected '" + p + "' in: " + message);
    }
  }

  @Test
  void when_anOkGetsReadsLackItsKey_then_theLoaderNamesTheLine() throws IOException {
    // used to load, then crash Operation.describe() with a NullPointerException
    assertMentions(errorOf(op("\"type\":\"GET\",\"key\":\"x\",\"reads\":{\"y\":\"a\"},\"outcome\":\"OK\"")),
        "must hold exactly that key", "\"reads\":{\"x\":\"a\"}");
    assertMentions(errorOf(op("\"type\":\"GET\",\"key\":\"x\",\"outcome\":\"OK\"")), "an OK GET needs \"reads\"");
  }

  @Test
  void when_numbersAreNotWholeNumbers_then_theErrorSaysSo() throws IOException {
    assertMentions(errorOf(PUT0.replace("\"id\":0", "\"id\":\"abc\"")), "\"id\" must be a whole number",
        "\"abc\"", "e.g. \"id\":12");
    assertMentions(errorOf(PUT0.replace("\"id\":0", "\"id\":1.5")), "\"id\" must be a whole number", "1.5");
    assertMentions(errorOf(PUT0.replace("\"id\":0", "\"id\":1").replace("\"invokeMicros\":10",
        "\"invokeMicros\":10.25")), "\"invokeMicros\" must be a whole number");
    assertMentions(errorOf(PUT0.replace("\"id\":0", "\"id\":1").replace("\"session\":1", "\"session\":-3")),
        "\"session\" must be a whole number from 0");
    assertMentions(errorOf(PUT0.replace("\"id\":0", "\"id\":1").replace("\"dc\":0", "\"dc\":99999999999")),
        "\"dc\" must be a whole number from 0 to 2147483647");
  }

  @Test
  void when_somethingFollowsTheObject_then_itIsRefused() throws IOException {
    assertMentions(errorOf(PUT0.replace("\"id\":0", "\"id\":1") + " trailing"), "not a JSON object", "Expected one");
    assertMentions(errorOf(PUT0.replace("\"id\":0", "\"id\":1") + "{}"), "not a JSON object");
    assertMentions(errorOf("[1,2]"), "expected a JSON object, got array");
  }

  @Test
  void when_keyOrValueIsMissing_then_theErrorShowsTheExpectedForm() throws IOException {
    assertMentions(errorOf(op("\"type\":\"GET\",\"reads\":{\"x\":null},\"outcome\":\"OK\"")),
        "a GET needs a \"key\"", "\"key\":\"x\"");
    assertMentions(errorOf(op("\"type\":\"PUT\",\"value\":\"b\",\"outcome\":\"OK\"")), "a PUT needs a \"key\"");
    assertMentions(errorOf(op("\"type\":\"PUT\",\"key\":\"x\",\"outcome\":\"INFO\"")),
        "a PUT needs the \"value\"", "{\"base64\":");
    assertMentions(errorOf(op("\"type\":\"PUT\",\"key\":7,\"value\":\"b\",\"outcome\":\"OK\"")),
        "\"key\" must be a string");
    assertMentions(errorOf(op("\"type\":\"PUT\",\"key\":\"x\",\"vaule\":\"b\",\"outcome\":\"OK\"")),
        "unknown field \"vaule\"", "id, session, dc, type, key, value, reads");
  }

  @Test
  void when_anEnumIsWrong_then_theValidValuesAreListed() throws IOException {
    assertMentions(errorOf(op("\"type\":\"get\",\"key\":\"x\",\"outcome\":\"INFO\"")),
        "\"type\" must be one of GET, PUT, ROTX, TXN, got \"get\"");
    assertMentions(errorOf(op("\"type\":\"GET\",\"key\":\"x\",\"outcome\":\"TIMEOUT\"")),
        "\"outcome\" must be one of OK, FAIL, INFO, got \"TIMEOUT\"");
  }

  @Test
  void when_anIdIsUsedTwice_then_bothLinesAreNamed() throws IOException {
    assertMentions(errorOf(PUT0.replace("\"session\":1", "\"session\":5")), "id 0 is already used on line 1");
  }

  @Test
  void when_anOperationCompletesBeforeItIsInvoked_then_refused() throws IOException {
    assertMentions(errorOf(PUT0.replace("\"id\":0", "\"id\":1").replace("\"completeMicros\":25",
        "\"completeMicros\":5")), "completeMicros 5 is before invokeMicros 10");
  }

  @Test
  void when_twoOperationsOfOneSessionOverlap_then_refusedWithBothLines() throws IOException {
    // PUT0 is session 1 at 10..25; this one is session 1 at 20..30
    String m = errorOf(PUT0.replace("\"id\":0", "\"id\":1").replace("\"invokeMicros\":10", "\"invokeMicros\":20")
        .replace("\"completeMicros\":25", "\"completeMicros\":30"));
    assertMentions(m, "operation 1 of session 1 is invoked at 20µs", "previous operation 0 (line 1) completed at 25µs");
    // touching is fine: invoked at the instant the previous one completed
    Path file = dir.resolve("touch.jsonl");
    Files.writeString(file, PUT0 + "\n" + PUT0.replace("\"id\":0", "\"id\":1").replace("\"value\":\"a\"",
        "\"value\":\"b\"").replace("\"invokeMicros\":10", "\"invokeMicros\":25").replace("\"completeMicros\":25",
        "\"completeMicros\":30") + "\n");
    assertEquals(2, HistoryFiles.read(file).size());
  }

  @Test
  void when_aLineIsNotUtf8_then_itsNumberIsGiven() throws IOException {
    Path file = dir.resolve("h.jsonl");
    byte[] bad = op("\"type\":\"PUT\",\"key\":\"x\",\"value\":\"\u0000\",\"outcome\":\"OK\"")
        .getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < bad.length; i++) {
      if (bad[i] == 0) {
        bad[i] = (byte) 0xC3; // a lone lead byte: invalid UTF-8
      }
    }
    byte[] first = (PUT0 + "\r\n").getBytes(StandardCharsets.UTF_8);
    byte[] all = new byte[first.length + bad.length + 1];
    System.arraycopy(first, 0, all, 0, first.length);
    System.arraycopy(bad, 0, all, first.length, bad.length);
    all[all.length - 1] = '\n';
    Files.write(file, all);
    String m = assertThrows(IOException.class, () -> HistoryFiles.read(file)).getMessage();
    assertMentions(m, "not valid UTF-8", "base64");
  }

  @Test
  void when_anOkGetHasNoReadsInMemory_then_describeDoesNotCrash() {
    Operation get = new Operation(3, 1, 0, Type.GET, "x", null, Map.of("y", Optional.empty()), 1, 2, Outcome.OK, null);
    assertEquals("#3 s1@dc0 get(x)->? [1..2µs]", get.describe());
  }
}
