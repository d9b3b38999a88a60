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
}
