package org.kvlab.check.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.kvlab.api.TxnProcedures;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;
import org.kvlab.check.Result;
import org.kvlab.history.History;
import org.kvlab.history.Operation;

/** A transfer of 2 from a to b, then a read of both accounts: it must sum to 0. */
class BankCheckerTest {
  private static Operation ok(long id, TxnRequest q, Map<String, Optional<ByteString>> reads) {
    return new Operation(id, (int) id, 0, Operation.Type.TXN, null, null, reads, 10 * id, 10 * id + 5,
        Operation.Outcome.OK, null, new Operation.Txn(q, new TxnResult(reads, Map.of(), 0, 0, Map.of())));
  }

  private static Result bank(String a, String b) {
    List<Operation> ops = new ArrayList<>();
    Map<String, Optional<ByteString>> empty = new TreeMap<>(Map.of("a", Optional.empty(), "b", Optional.empty()));
    ops.add(ok(1, TxnRequest.procedure(TxnProcedures.TRANSFER, List.of("a", "b"), "2", "a", "b"), empty));
    ops.add(ok(2, TxnRequest.of(List.of("a", "b"), Map.of()), new TreeMap<>(Map.of(
        "a", Optional.of(ByteString.copyFromUtf8(a)), "b", Optional.of(ByteString.copyFromUtf8(b))))));
    return new BankChecker().check(new History(ops));
  }

  @Test
  void when_aReadAllSeesBothSidesOfATransfer_then_theTotalHolds() {
    Result r = bank("-2", "2");
    assertTrue(r.valid() && !r.vacuous(), r.toString());
    assertEquals("checked 1 reads of all 2 accounts, against 1 transfers", r.note());
  }

  @Test
  void when_aReadAllSeesHalfATransfer_then_theTotalChanged() {
    Result r = bank("-2", "0");
    assertFalse(r.valid());
    assertEquals(BankChecker.TOTAL, r.violations().get(0).kind());
    assertTrue(r.violations().get(0).explanation().contains("read balances summing to -2"), r.toString());
    assertEquals(List.of(2L), r.violations().get(0).operations());
  }

  @Test
  void when_aTransferComputesItsWrites_then_moneyMovesBetweenTheTwoAccounts() {
    Map<String, ByteString> w = TxnProcedures.run(TxnProcedures.TRANSFER, List.of("3", "a", "b"), new TreeMap<>(
        Map.of("a", Optional.of(ByteString.copyFromUtf8("5")), "b", Optional.empty())));
    assertEquals(Map.of("a", ByteString.copyFromUtf8("2"), "b", ByteString.copyFromUtf8("3")), w);
  }
}
