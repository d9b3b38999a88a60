package org.kvlab.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;

class CommandsTest {

  private static ByteString utf8(String s) {
    return ByteString.copyFromUtf8(s);
  }

  @Test
  void when_aTransactionBecomesACommand_then_itKeepsItsReadsWritesProcedureAndKeys() {
    CommandRequest plain = Commands.request(TxnRequest.of(List.of("b", "a"), Map.of("c", utf8("1"), "a", utf8("2"))));
    assertEquals(List.of("a", "b"), plain.getReadsList());
    assertEquals(Map.of("c", utf8("1"), "a", utf8("2")), plain.getWritesMap());
    assertTrue(plain.getProcedure().isEmpty() && plain.getArgsCount() == 0);
    assertEquals(List.of("a", "b", "c"), Commands.keys(plain));

    CommandRequest add = Commands.request(TxnRequest.procedure("add", List.of("y", "x"), "5"));
    assertEquals("add", add.getProcedure());
    assertEquals(List.of("5"), add.getArgsList());
    assertEquals(List.of("x", "y"), Commands.keys(add));

    assertEquals(List.of("k"), Commands.keys(Commands.get("k")));
    assertEquals(Map.of("k", utf8("v")), Commands.put("k", utf8("v")).getWritesMap());
    assertEquals(List.of(), Commands.keys(CommandRequest.getDefaultInstance()));
  }

  @Test
  void when_aProcedureRuns_then_itReadsEveryKeyBeforeAnyWrite_andTheReplyHoldsWhatItReadAndWrote() {
    Map<String, ByteString> store = new LinkedHashMap<>(Map.of("x", utf8("10")));
    CommandRequest c = Commands.request(TxnRequest.procedure("add", List.of("x", "y"), "5"));
    CommandReply r = Commands.execute(c, k -> Optional.ofNullable(store.get(k)), store::put).setTs(7).setTid(9)
        .build();
    assertEquals(Map.of("x", utf8("15"), "y", utf8("5")), store); // y read as absent (0), not as x's new value
    assertEquals(List.of(Commands.keyValue("x", Optional.of(utf8("10"))), Commands.keyValue("y", Optional.empty())),
        r.getReadsList());
    assertEquals(List.of(Commands.keyValue("x", Optional.of(utf8("15"))),
        Commands.keyValue("y", Optional.of(utf8("5")))), r.getWritesList());

    TxnResult t = Commands.sequenced(r, List.of("x", "y"));
    assertEquals(Map.of("x", Optional.of(utf8("10")), "y", Optional.empty()), t.reads());
    assertEquals(Map.of("x", utf8("15"), "y", utf8("5")), t.writes());
    assertEquals(7, t.ts());
    assertEquals(9, t.tid());
    assertEquals(Map.of(0, new TxnResult.Part(7, 7, List.of("x", "y"))), t.parts());
    assertEquals(Map.of(), Commands.result(r, Map.of()).parts());
  }

  @Test
  void when_aGetOrPutRuns_then_theGetsValueIsItsFirstRead_andAPutWritesOnlyItsKey() {
    Map<String, ByteString> store = new LinkedHashMap<>();
    CommandReply put = Commands.execute(Commands.put("k", utf8("v")), k -> Optional.ofNullable(store.get(k)),
        store::put).build();
    assertEquals(0, put.getReadsCount());
    assertEquals(Map.of("k", utf8("v")), store);
    CommandReply get = Commands.execute(Commands.get("k"), k -> Optional.ofNullable(store.get(k)), store::put).build();
    assertEquals(Optional.of(utf8("v")), Commands.value(get));
    CommandReply missing = Commands.execute(Commands.get("m"), k -> Optional.ofNullable(store.get(k)), store::put)
        .build();
    assertEquals(Optional.empty(), Commands.value(missing));
    assertEquals(Map.of("k", utf8("v")), store);
  }
}
