package org.kvlab.sim.explore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvlab.api.TxnRequest;
import org.kvlab.sim.Script;

/** A schedule file's sessions: puts, gets, read-only and read/write transactions written and read back alike. */
class ScheduleSessionsTest {
  @Test
  void transactionsAndReadOnlyTransactions_roundTripThroughTheScheduleText() {
    Script s = Script.at(1).put("k0", "a").txn(TxnRequest.of(List.of("k1", "k0"), Map.of("k2",
        ByteString.copyFromUtf8("v")))).rotx("k0", "k2").get("k2");
    String text = Schedule.describe(s);
    assertEquals("dc1 put k0=a; txn r k0 k1 w k2=v; rotx k0 k2; get k2", text);
    assertEquals(s, Schedule.session(text));
    Script writesOnly = Schedule.session("dc0 txn w k0=x k1=y");
    assertEquals(new Script.Step.Txn(TxnRequest.of(List.of(), Map.of("k0", ByteString.copyFromUtf8("x"), "k1",
        ByteString.copyFromUtf8("y")))), writesOnly.steps().get(0));
  }

  @Test
  void aWriteWithoutItsValue_isRefusedWithTheFix() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Schedule.session("dc0 txn r k0 w k1"));
    assertTrue(e.getMessage().contains("'k1' is not KEY=VALUE") && e.getMessage().contains("Fix:"), e.getMessage());
  }
}
