package org.kvlab.consensus.multicast;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The checker on hand-made logs: a correct one passes; each property, broken alone, is named. */
class MulticastCheckerTest {
  private static List<String> kinds(MulticastLog log, boolean quiescent) {
    return MulticastChecker.check(log, quiescent).stream().map(MulticastChecker.Violation::kind).toList();
  }

  /** m1 to {0,1}, m2 to {1,2}, m3 to {0,1,2}, multicast by groups 0, 1, 2. */
  private static MulticastLog three() {
    MulticastLog log = new MulticastLog();
    log.multicast(0, 1, List.of(0, 1));
    log.multicast(1, 2, List.of(1, 2));
    log.multicast(2, 3, List.of(0, 1, 2));
    return log;
  }

  private static void deliver(MulticastLog log, int group, long... ids) {
    for (long id : ids) {
      log.delivered(group, id);
    }
  }

  @Test
  void when_everyGroupDeliversInOneTotalOrder_then_nothingIsReported() {
    MulticastLog log = three();
    deliver(log, 0, 1, 3);
    deliver(log, 1, 1, 2, 3);
    deliver(log, 2, 2, 3);
    assertEquals(List.of(), kinds(log, true));
  }

  @Test
  void when_aGroupDeliversTwiceOrWhatNobodySentOrToOthers_then_integrity() {
    MulticastLog twice = three();
    deliver(twice, 0, 1, 1);
    assertEquals(List.of(MulticastChecker.INTEGRITY), kinds(twice, false));
    MulticastLog unsent = three();
    deliver(unsent, 0, 9);
    assertEquals(List.of(MulticastChecker.INTEGRITY), kinds(unsent, false));
    MulticastLog notMine = three();
    deliver(notMine, 0, 2);
    assertEquals(List.of(MulticastChecker.INTEGRITY), kinds(notMine, false));
    MulticastLog sentTwice = three();
    sentTwice.multicast(0, 1, List.of(0));
    assertEquals(List.of(MulticastChecker.INTEGRITY), kinds(sentTwice, false));
  }

  @Test
  void when_aDestinationMissesAMessage_then_agreementOrValidityOnlyOnAQuiescentRun() {
    MulticastLog log = three();
    deliver(log, 0, 1, 3);
    deliver(log, 1, 1, 3); // group 1 misses 2, which group 2 never delivers either: validity; 3 misses at 2
    assertEquals(List.of(MulticastChecker.VALIDITY, MulticastChecker.AGREEMENT), kinds(log, true));
    assertEquals(List.of(), kinds(log, false));
  }

  @Test
  void when_twoGroupsDeliverTheirCommonMessagesInOppositeOrders_then_prefixOrder() {
    MulticastLog log = three();
    deliver(log, 0, 1, 3);
    deliver(log, 1, 3, 1, 2);
    deliver(log, 2, 3, 2);
    assertEquals(List.of(MulticastChecker.PREFIX_ORDER, MulticastChecker.ACYCLIC_ORDER), kinds(log, true));
  }

  @Test
  void when_threeGroupsOrderPairwiseConsistentlyButInACycle_then_acyclicOrder() {
    MulticastLog log = new MulticastLog();
    log.multicast(0, 1, List.of(0, 2));
    log.multicast(1, 2, List.of(0, 1));
    log.multicast(2, 3, List.of(1, 2));
    deliver(log, 0, 1, 2); // 1 < 2
    deliver(log, 1, 2, 3); // 2 < 3
    deliver(log, 2, 3, 1); // 3 < 1: each pair agrees on what it shares, yet 1 < 2 < 3 < 1
    assertEquals(List.of(MulticastChecker.ACYCLIC_ORDER), kinds(log, true));
  }
}
