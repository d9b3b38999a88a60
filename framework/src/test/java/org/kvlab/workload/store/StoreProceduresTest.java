package org.kvlab.workload.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.kvlab.api.TxnProcedures;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;
import org.kvlab.check.Result;
import org.kvlab.history.History;
import org.kvlab.history.Operation;

class StoreProceduresTest {
  private static Optional<ByteString> v(String s) {
    return Optional.of(ByteString.copyFromUtf8(s));
  }

  @Test
  void when_theStoreIsUsed_then_addsNeedStockAndOrdersTakeAllOrNothing() {
    assertEquals(Map.of("cart:1", ByteString.copyFromUtf8("7=2")), TxnProcedures.run(StoreProcedures.ADD,
        List.of("1", "7", "2"), Map.of("cart:1", Optional.empty(), "stock:7", Optional.empty())));
    assertEquals(Map.of(), TxnProcedures.run(StoreProcedures.ADD, List.of("1", "7", "2"),
        Map.of("cart:1", Optional.empty(), "stock:7", v("1"))), "2 units asked, 1 left: the cart is unchanged");
    Map<String, ByteString> filled = TxnProcedures.run(StoreProcedures.ORDER, List.of("1", "9"),
        Map.of("cart:1", v("7=2 8=1"), "order:1:9", Optional.empty(), "stock:7", v("5"), "stock:8",
            Optional.empty()));
    assertEquals("3", filled.get("stock:7").toStringUtf8());
    assertEquals(Long.toString(StoreProcedures.INITIAL_STOCK - 1), filled.get("stock:8").toStringUtf8());
    assertEquals("7=2 8=1", filled.get("order:1:9").toStringUtf8());
    assertEquals("", filled.get("cart:1").toStringUtf8());
    Map<String, ByteString> refused = TxnProcedures.run(StoreProcedures.ORDER, List.of("1", "9"),
        Map.of("cart:1", v("7=2 8=1"), "order:1:9", Optional.empty(), "stock:7", v("1"), "stock:8", v("4")));
    assertEquals(new TreeMap<>(Map.of("order:1:9", ByteString.copyFromUtf8(StoreProcedures.REFUSED), "cart:1",
        ByteString.EMPTY)), new TreeMap<>(refused), "one line short: nothing taken");
  }

  @Test
  void when_storeArgumentsAreWrong_then_theErrorNamesTheForm() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TxnRequest.procedure(StoreProcedures.ADD, List.of("cart:1", "stock:2"), "1", "3", "2"));
    assertTrue(e.getMessage().contains("Fix: addToCart(c, i, q)"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> TxnRequest.procedure(StoreProcedures.CREATE, List.of("x"), "1"));
  }

  @Test
  void when_theWorkloadIsDrawn_then_everyTypeAppearsWithValidArguments() {
    Random r = new Random(3);
    Map<String, Integer> seen = new TreeMap<>();
    for (int i = 0; i < 400; i++) {
      TxnRequest q = StoreWorkload.next(r, 2, 5, i);
      seen.merge(q.procedure(), 1, Integer::sum);
    }
    assertEquals(List.of(StoreProcedures.ORDER, StoreProcedures.ADD, StoreProcedures.BROWSE, StoreProcedures.CREATE)
        .stream().sorted().toList(), List.copyOf(seen.keySet()));
    assertTrue(seen.get(StoreProcedures.ADD) > seen.get(StoreProcedures.ORDER), seen.toString());
  }

  private static Operation order(long id, Map<String, Optional<ByteString>> reads, Map<String, ByteString> writes) {
    TxnRequest q = TxnRequest.procedure(StoreProcedures.ORDER, List.of("cart:1", "order:1:" + id, "stock:0"), "1",
        Long.toString(id));
    return new Operation(id, 1, 0, Operation.Type.TXN, null, null, reads, 10 * id, 10 * id + 5, Operation.Outcome.OK,
        null, new Operation.Txn(q, new TxnResult(reads, writes, id, id, Map.of())));
  }

  private static Operation get(long id, int dc, String key, String value) {
    return new Operation(id, 2, dc, Operation.Type.GET, key, null, Map.of(key, value == null ? Optional.empty()
        : v(value)), 1000 + id, 1001 + id, Operation.Outcome.OK, null);
  }

  private static Result check(List<Operation> ops) {
    return new StoreChecker().check(new History(ops));
  }

  @Test
  void when_finalStateIsConservedAndAgreed_then_theCheckerPasses_else_itNamesTheInvariant() {
    Operation o = order(1, Map.of("cart:1", v("0=3"), "stock:0", Optional.empty()),
        Map.of("stock:0", ByteString.copyFromUtf8("17"), "order:1:1", ByteString.copyFromUtf8("0=3")));
    Result ok = check(List.of(o, get(2, 0, "stock:0", "17"), get(3, 0, "order:1:1", "0=3"), get(4, 1, "stock:0", "17"),
        get(5, 1, "order:1:1", "0=3")));
    assertTrue(ok.valid() && !ok.vacuous(), ok.toString());
    Result diverged = check(List.of(o, get(2, 0, "stock:0", "17"), get(3, 0, "order:1:1", "0=3"),
        get(4, 1, "stock:0", "20"), get(5, 1, "order:1:1", null)));
    assertFalse(diverged.valid());
    assertEquals(StoreChecker.DIVERGENT, diverged.violations().get(0).kind());
    Result lost = check(List.of(o, get(2, 0, "stock:0", "17"), get(3, 0, "order:1:1", null)));
    assertEquals(StoreChecker.NOT_CONSERVED, lost.violations().get(0).kind());
    Result negative = check(List.of(order(1, Map.of("cart:1", v("0=3"), "stock:0", v("-2")), Map.of())));
    assertEquals(StoreChecker.NEGATIVE, negative.violations().get(0).kind());
  }
}
