package org.kvlab.api;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The fixed-arity forms of {@link Invariants#check} format their failures exactly like the varargs form. */
class InvariantsTest {
  @Test
  void when_aCheckWithLongAndObjectArgumentsFails_then_theMessageIsFormattedFromThem() {
    long gst = 1_700_000_000_000_123L;
    NodeId self = new NodeId(1, 2);
    var e = assertThrows(Invariants.InvariantViolation.class,
        () -> Invariants.check(false, "C2: GST %s above min VV %s at %s", gst, gst - 1, self));
    assertEquals("C2: GST 1700000000000123 above min VV 1700000000000122 at " + self, e.getMessage());
    assertEquals("a 7 b", assertThrows(Invariants.InvariantViolation.class,
        () -> Invariants.check(false, "a %d %s", 7, "b")).getMessage());
    assertEquals("x=3", assertThrows(Invariants.InvariantViolation.class,
        () -> Invariants.check(false, "x=%s", 3)).getMessage());
    assertEquals("1 2 3 4", assertThrows(Invariants.InvariantViolation.class,
        () -> Invariants.check(false, "%s %s %s %s", 1, 2, 3, 4)).getMessage(), "four arguments: the varargs form");
  }

  @Test
  void when_theConditionHolds_then_nothingIsThrown() {
    assertDoesNotThrow(() -> Invariants.check(true, "%s %s %s", 1L, "b", new Object()));
    assertDoesNotThrow(() -> Invariants.check(true, "%s", (Object) null));
  }
}
