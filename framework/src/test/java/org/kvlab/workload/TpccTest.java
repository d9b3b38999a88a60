package org.kvlab.workload;

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
import org.kvlab.check.Checkers;
import org.kvlab.check.Result;
import org.kvlab.workload.tpcc.Tpcc;
import org.kvlab.workload.tpcc.TpccInvariants;
import org.kvlab.workload.tpcc.TpccKeys;
import org.kvlab.workload.tpcc.TpccProcedures;

/**
 * Goal: TPC-C-lite draws TPC-C's mix at warehouse–district granularity, its procedures are deterministic and refuse
 * malformed calls with the fix, its key groups follow §5.3, and its consistency conditions hold on a correct run and
 * catch planted violations. Method: generators with fixed seeds, a serial reference run ({@link SerialRun}).
 */
class TpccTest {
  @Test
  void when_manyTransactionsAreDrawn_then_theMixIs45_43_4_4_4_andEachWorksForItsHomeWarehouse() {
    Tpcc w = Tpcc.of(3);
    TxnFamily.Generator g = w.generator();
    Random r = new Random(7);
    Map<String, Integer> count = new TreeMap<>();
    int n = 40_000;
    int remotePayments = 0;
    int payments = 0;
    for (int i = 0; i < n; i++) {
      TxnRequest q = g.next(r, 4, 0, i); // session 4: home warehouse 4 mod 3 + 1 = 2
      count.merge(q.procedure(), 1, Integer::sum);
      assertTrue(q.keys().stream().anyMatch(k -> k.startsWith("d:2:") || k.startsWith("c:2:")), q.describe());
      if (q.procedure().equals(TpccProcedures.PAYMENT)) {
        payments++;
        remotePayments += q.keys().stream().anyMatch(k -> k.startsWith("c:") && !k.startsWith("c:2:")) ? 1 : 0;
      }
    }
    double[] want = {0.45, 0.43, 0.04, 0.04, 0.04};
    String[] names = {TpccProcedures.NEW_ORDER, TpccProcedures.PAYMENT, TpccProcedures.DELIVERY,
        TpccProcedures.ORDER_STATUS, TpccProcedures.STOCK_LEVEL};
    for (int i = 0; i < names.length; i++) {
      double share = count.getOrDefault(names[i], 0) / (double) n;
      assertEquals(want[i], share, 0.01, names[i] + ": " + count);
    }
    assertEquals(0.15, remotePayments / (double) payments, 0.02, "TPC-C: 15% of payments for a remote customer");
  }

  @Test
  void when_aNewOrderRuns_then_itTakesTheDistrictsNextIdAndIsDeterministic() {
    TxnRequest q = new TxnRequest(List.of("w:1", "d:1:3", "c:1:3:7", "o:1:3:7", "s:1:5", "s:2:9"), Map.of(),
        TpccProcedures.NEW_ORDER, List.of("1", "3", "7", "5:1:4", "9:2:2"));
    Map<String, Optional<ByteString>> read = new TreeMap<>();
    q.keys().forEach(k -> read.put(k, Optional.empty()));
    read.put("d:1:3", Optional.of(ByteString.copyFromUtf8("next=12 ytd=40")));
    read.put("s:1:5", Optional.of(ByteString.copyFromUtf8("quantity=12")));
    Map<String, ByteString> once = TxnProcedures.run(q.procedure(), q.args(), read);
    assertEquals(once, TxnProcedures.run(q.procedure(), q.args(), read), "same reads, same writes");
    long amount = 4 * TpccKeys.price(5) + 2 * TpccKeys.price(9);
    assertEquals("lines=2 next=13 ordered=" + amount + " pending=12:" + amount + " ytd=40",
        once.get("d:1:3").toStringUtf8());
    assertEquals("amount=" + amount + " id=12 lines=2", once.get("o:1:3:7").toStringUtf8());
    assertEquals("last=12 orders=1", once.get("c:1:3:7").toStringUtf8());
    assertEquals("orders=1 quantity=99 remote=0 ytd=4", once.get("s:1:5").toStringUtf8(), "12 - 4 < 10: refilled +91");
    assertEquals("orders=1 quantity=48 remote=1 ytd=2", once.get("s:2:9").toStringUtf8());
    assertFalse(once.containsKey("w:1"), "the warehouse is only read (its tax)");
    assertFalse(TxnProcedures.isKeyLocal(TpccProcedures.NEW_ORDER));
    assertTrue(TxnProcedures.isKeyLocal(TpccProcedures.PAYMENT));
  }

  @Test
  void when_aCallIsMalformed_then_itIsRefusedWithTheForm() {
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> new TxnRequest(
        List.of("w:1", "d:1:3", "c:1:3:7"), Map.of(), TpccProcedures.NEW_ORDER, List.of("1", "3", "7", "5:1:4")));
    assertTrue(missing.getMessage().contains("s:1:5") && missing.getMessage().contains("Fix:"), missing.getMessage());
    IllegalArgumentException quantity = assertThrows(IllegalArgumentException.class, () -> new TxnRequest(
        List.of("w:1", "d:1:3", "c:1:3:7", "o:1:3:7", "s:1:5"), Map.of(), TpccProcedures.NEW_ORDER,
        List.of("1", "3", "7", "5:1:40")));
    assertTrue(quantity.getMessage().contains("quantity from 1 to 10") && quantity.getMessage().contains("Fix:"),
        quantity.getMessage());
    IllegalArgumentException payment = assertThrows(IllegalArgumentException.class, () -> TxnRequest.procedure(
        TpccProcedures.PAYMENT, List.of("w:1", "d:1:1", "c:1:1:1"), "1", "1", "1", "1", "1", "lots"));
    assertTrue(payment.getMessage().contains("whole number") && payment.getMessage().contains("Fix:"),
        payment.getMessage());
  }

  @Test
  void when_keysAreGrouped_then_aWarehouseHoldsItsStockAndADistrictItsCustomersAndOrders() {
    Tpcc w = Tpcc.of(2);
    assertEquals("w2", w.group("w:2"));
    assertEquals("w2", w.group("s:2:77"));
    assertEquals("d2.5", w.group("d:2:5"));
    assertEquals("d2.5", w.group("c:2:5:9"));
    assertEquals("d2.5", w.group("o:2:5:9"));
    assertEquals(null, w.group("k7"));
  }

  @Test
  void when_aCorrectRunIsChecked_then_everyConditionHolds_andEachPlantedViolationIsCaught() {
    SerialRun run = new SerialRun().run(Tpcc.of(2), 3000, 6, 11, 1000);
    Result ok = Checkers.byName(WorkloadChecker.NAME).check(run.history());
    assertTrue(ok.valid() && !ok.vacuous(), ok.toString());
    assertTrue(ok.note().contains("tpcc (3000 transactions)"), ok.note());
    assertTrue(run.store.get("d:1:1").toStringUtf8().contains("pending="), "some orders are still pending");
    Map<String, String> planted = Map.of(
        "w:1", TpccInvariants.WAREHOUSE_YTD,
        "d:1:1", TpccInvariants.ORDER_COUNT,
        "s:2:3", TpccInvariants.STOCK);
    for (var p : planted.entrySet()) {
      Result bad = new WorkloadChecker().check(run.history(m -> {
        String v = m.get(p.getKey()).toStringUtf8();
        m.put(p.getKey(), ByteString.copyFromUtf8(p.getKey().startsWith("d") ? v.replaceFirst("next=(\\d+)", "next=1$1")
            : p.getKey().startsWith("s") ? v.replaceFirst("quantity=(\\d+)", "quantity=1$1")
            : v.replaceFirst("ytd=(\\d+)", "ytd=1$1")));
        return m;
      }));
      assertFalse(bad.valid(), p + ": " + bad);
      assertTrue(bad.violations().stream().anyMatch(v -> v.kind().equals(p.getValue())), p + ": " + bad);
    }
    Result lostPayment = new WorkloadChecker().check(run.history(m -> {
      String c = m.keySet().stream().filter(k -> k.startsWith("c:") && m.get(k).toStringUtf8().contains("ytdPayment"))
          .findFirst().orElseThrow();
      m.put(c, ByteString.copyFromUtf8(m.get(c).toStringUtf8().replaceAll("ytdPayment=\\d+", "ytdPayment=0")));
      return m;
    }));
    assertTrue(lostPayment.violations().stream().anyMatch(v -> v.kind().equals(TpccInvariants.PAYMENTS)),
        lostPayment.toString());
  }
}
