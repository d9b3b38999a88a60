package org.kvlab.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class TxnProceduresTest {

  /** A procedure a jar adds through ServiceLoader (registered in this module's test resources). */
  public static final class CopyFirst implements TxnProcedure {
    @Override
    public String name() {
      return "test-copy-first";
    }

    @Override
    public boolean keyLocal() {
      return false;
    }

    @Override
    public void validate(List<String> keys, List<String> args) {
      if (keys.size() < 2) {
        throw new IllegalArgumentException("test-copy-first needs two keys");
      }
    }

    @Override
    public Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read) {
      Map<String, ByteString> out = new TreeMap<>();
      List<String> keys = List.copyOf(new TreeMap<>(read).keySet());
      ByteString first = read.get(keys.get(0)).orElse(ByteString.EMPTY);
      keys.subList(1, keys.size()).forEach(k -> out.put(k, first));
      return out;
    }
  }

  private static Optional<ByteString> v(String s) {
    return Optional.of(ByteString.copyFromUtf8(s));
  }

  @Test
  void the_classicProcedures_areKeyLocal_and_runAsBefore() {
    assertTrue(TxnProcedures.NAMES.containsAll(List.of("add", "append", "transfer")));
    assertTrue(TxnProcedures.isKeyLocal("add") && TxnProcedures.isKeyLocal("append")
        && TxnProcedures.isKeyLocal("transfer"));
    Map<String, Optional<ByteString>> read = new TreeMap<>(Map.of("x", v("5"), "y", Optional.empty()));
    assertEquals(Map.of("x", ByteString.copyFromUtf8("7"), "y", ByteString.copyFromUtf8("2")),
        TxnProcedures.run("add", List.of("2"), read));
    assertEquals(Map.of("x", ByteString.copyFromUtf8("2"), "y", ByteString.copyFromUtf8("3")),
        TxnProcedures.run("transfer", List.of("3", "x", "y"), read));
    assertEquals(Map.of("x", ByteString.copyFromUtf8("5 9")),
        TxnProcedures.run("append", List.of("9", "x"), read));
  }

  @Test
  void a_procedureFromServiceLoader_isKnown_and_validatesItsKeys() {
    assertFalse(TxnProcedures.isKeyLocal("test-copy-first"));
    TxnRequest ok = TxnRequest.procedure("test-copy-first", List.of("a", "b", "c"));
    assertEquals(Map.of("b", ByteString.copyFromUtf8("1"), "c", ByteString.copyFromUtf8("1")),
        TxnProcedures.run(ok.procedure(), ok.args(),
            new TreeMap<>(Map.of("a", v("1"), "b", v("2"), "c", Optional.empty()))));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TxnRequest.procedure("test-copy-first", List.of("a")));
    assertTrue(e.getMessage().contains("needs two keys"), e.getMessage());
  }

  @Test
  void unknown_or_malformed_procedures_areRefused_withTheFix() {
    IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
        () -> TxnRequest.procedure("nope", List.of("a")));
    assertTrue(unknown.getMessage().contains("unknown transaction procedure 'nope'")
        && unknown.getMessage().contains("add"), unknown.getMessage());
    IllegalArgumentException delta = assertThrows(IllegalArgumentException.class,
        () -> TxnRequest.procedure("add", List.of("a"), "x"));
    assertTrue(delta.getMessage().contains("the delta must be a whole number, got 'x'")
        && delta.getMessage().contains("Fix:"), delta.getMessage());
  }

  @Test
  void a_splitProtocol_refuses_onlyNonLocalProcedures_acrossPartitions() {
    TxnRequest copy = TxnRequest.procedure("test-copy-first", List.of("a", "b"));
    String refusal = TxnProcedures.splitRefusal(copy, 2, "CaMu");
    assertTrue(refusal != null && refusal.contains("CaMu") && refusal.contains("Fix:"), refusal);
    assertNull(TxnProcedures.splitRefusal(copy, 1, "CaMu"));
    assertNull(TxnProcedures.splitRefusal(TxnRequest.procedure("add", List.of("a", "b"), "1"), 2, "CaMu"));
    assertNull(TxnProcedures.splitRefusal(TxnRequest.of(List.of("a", "b"), Map.of()), 2, "CaMu"));
  }
}
