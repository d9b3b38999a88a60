package org.kvlab.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The SPI's helpers for waiting on other servers: Acks (all / quorum) and Pending (per-request state). */
class AcksAndPendingTest {
  private static final NodeId A = NodeId.of(0, 0);
  private static final NodeId B = NodeId.of(1, 0);
  private static final NodeId C = NodeId.of(2, 0);

  @Test
  void when_everyExpectedAckArrives_then_theActionRunsOnceAndDuplicatesOrStrangersDoNotCount() {
    AtomicInteger runs = new AtomicInteger();
    Acks<NodeId> acks = Acks.all(List.of(A, B), runs::incrementAndGet);
    assertFalse(acks.ack(A));
    assertFalse(acks.ack(A), "a duplicate must not count twice");
    assertFalse(acks.ack(C), "an unexpected ack must not count");
    assertEquals(0, runs.get());
    assertEquals(Set.of(B), acks.missing());
    assertTrue(acks.ack(B));
    assertFalse(acks.ack(B));
    assertEquals(1, runs.get());
    assertTrue(acks.done());
  }

  @Test
  void when_aQuorumAcks_then_theActionRunsAndLaterAcksAreIgnored() {
    AtomicInteger runs = new AtomicInteger();
    Acks<NodeId> acks = Acks.quorum(List.of(A, B, C), 2, runs::incrementAndGet);
    acks.ack(C);
    assertEquals(0, runs.get());
    assertTrue(acks.ack(A));
    assertFalse(acks.ack(B));
    assertEquals(1, runs.get());
    assertEquals(Set.of(C, A), acks.received());
  }

  @Test
  void when_nothingIsExpected_then_theActionRunsAtOnce_andAnImpossibleQuorumIsRefused() {
    AtomicInteger runs = new AtomicInteger();
    assertTrue(Acks.all(List.<NodeId>of(), runs::incrementAndGet).done());
    assertEquals(1, runs.get());
    assertThrows(Invariants.InvariantViolation.class, () -> Acks.quorum(List.of(A, B), 3, runs::incrementAndGet));
  }

  @Test
  void when_statesAreAddedAndRemoved_then_idsAreSequentialAndAnUnknownIdGivesNull() {
    Pending<String> pending = new Pending<>(null); // no timeouts: no context needed
    long first = pending.add("put k1");
    long second = pending.add("put k2");
    assertEquals(1, first);
    assertEquals(2, second);
    assertEquals(List.of("put k1", "put k2"), List.copyOf(pending.values()));
    assertEquals("put k1", pending.remove(first));
    assertNull(pending.remove(first), "a second answer for the same id finds nothing");
    assertNull(pending.get(99));
    assertEquals(1, pending.size());
  }
}
