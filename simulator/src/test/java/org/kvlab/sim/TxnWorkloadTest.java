package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.TxnProcedures;
import org.kvlab.api.TxnRequest;

class TxnWorkloadTest {
  private static final List<List<String>> PARTS = List.of(List.of("k0", "k2", "k4", "k6"), List.of("k1", "k3", "k5",
      "k7"));

  @Test
  void when_listAppendTransactionsAreDrawn_then_lengthsKeysAndElementsFollowTheParameters() {
    TxnWorkload w = TxnWorkload.of("list-append").withLength(2, 3).withReadShare(0.5).withLocality(1.0);
    Random r = new Random(1);
    Set<Integer> lengths = new HashSet<>();
    int appends = 0;
    for (int i = 0; i < 500; i++) {
      TxnRequest q = w.next(r, 3, PARTS, 1000 + i); // session 3: home partition 1
      lengths.add(q.keys().size());
      assertTrue(PARTS.get(1).containsAll(q.keys()), "locality 1: every key from home, got " + q.keys());
      if (q.procedure() != null) {
        assertEquals(TxnProcedures.APPEND, q.procedure());
        assertEquals(1000 + i, TxnProcedures.appendElement(q.args()));
        assertTrue(q.reads().containsAll(TxnProcedures.appendKeys(q.args())), "appends read what they append to");
        appends++;
      } else {
        assertTrue(q.writes().isEmpty(), "a list-append transaction without appends only reads");
      }
    }
    assertEquals(Set.of(2, 3), lengths);
    assertTrue(appends > 300 && appends < 500, appends + " of 500 append (read share 0.5 per key)");
  }

  @Test
  void when_bankTransactionsAreDrawn_then_transfersOrReadsOfAllAccounts() {
    TxnWorkload w = TxnWorkload.of("bank").withReadShare(0.3);
    Random r = new Random(2);
    int readAll = 0;
    for (int i = 0; i < 300; i++) {
      TxnRequest q = w.next(r, 0, PARTS, i);
      if (q.procedure() == null) {
        assertEquals(8, q.reads().size());
        readAll++;
      } else {
        assertEquals(TxnProcedures.TRANSFER, q.procedure());
        assertEquals(2, q.reads().size());
      }
    }
    assertTrue(readAll > 50 && readAll < 140, readAll + " read-alls of 300 at share 0.3");
  }

  @Test
  void when_theKindIsMisspelt_then_theErrorSuggestsTheRightOne() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TxnWorkload.of("list-apend"));
    assertTrue(e.getMessage().contains("unknown transaction workload 'list-apend'") && e.getMessage().contains(
        "list-append"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> TxnWorkload.of("bank").withLength(3, 2));
  }
}
