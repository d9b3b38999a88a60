package org.kvlab.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.kvlab.clock.HybridLogicalClock.c;
import static org.kvlab.clock.HybridLogicalClock.l;
import static org.kvlab.clock.HybridLogicalClock.of;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Invariants.InvariantViolation;

/** Unit tests of Alg 2.1 (seed 003 §2.5): each branch, packing, overflow. */
class HybridLogicalClockTest {
  private static final long T0 = 1_700_000_000_000L;

  private final ManualClock pt = new ManualClock(T0);
  private final HybridLogicalClock hlc = new HybridLogicalClock(pt);

  // ---- send / local event (left column) ----

  @Test
  void when_physicalClockAdvances_then_lTracksPhysicalAndCIsZero() {
    assertEquals(of(T0, 0), hlc.now());
    pt.advance(1);
    assertEquals(of(T0 + 1, 0), hlc.now());
    pt.advance(250);
    assertEquals(of(T0 + 251, 0), hlc.now());
  }

  @Test
  void when_physicalClockStandsStill_then_cCountsEventsInTheSameMillisecond() {
    for (int i = 0; i < 10; i++) {
      assertEquals(of(T0, i), hlc.now());
    }
    pt.advance(1);
    assertEquals(of(T0 + 1, 0), hlc.now(), "c resets once the physical clock moves past l");
  }

  @Test
  void when_physicalClockGoesBackward_then_lHoldsAndTimestampsStillIncrease() {
    pt.advance(100);
    long t1 = hlc.now();
    pt.set(T0 + 40); // NTP steps the clock back 60 ms
    long t2 = hlc.now();
    long t3 = hlc.now();
    assertEquals(of(T0 + 100, 1), t2);
    assertEquals(of(T0 + 100, 2), t3);
    assertTrue(t1 < t2 && t2 < t3);
    pt.set(T0 + 101);
    assertEquals(of(T0 + 101, 0), hlc.now(), "once physical time passes l again, c resets");
  }

  @Test
  void when_physicalReadingIsNegative_then_lStaysAtLeastZeroAndTimestampsIncrease() {
    HybridLogicalClock h = new HybridLogicalClock(new ManualClock(-500));
    assertEquals(of(0, 1), h.now(), "initial ⟨0,0⟩ dominates a negative reading");
    assertEquals(of(0, 2), h.now());
  }

  // ---- receive event (right column), one test per branch ----

  @Test
  void when_receivedLIsAheadOfLocalAndPhysical_then_lJumpsToItAndCIsReceivedCPlusOne() {
    hlc.now();
    long received = of(T0 + 5_000, 7);
    long ts = hlc.update(received);
    assertEquals(of(T0 + 5_000, 8), ts);
    assertTrue(ts > received);
    assertEquals(of(T0 + 5_000, 9), hlc.now(), "physical clock still behind: local rule increments c");
  }

  @Test
  void when_localLEqualsReceivedLAndPhysicalBehind_then_cIsMaxOfBothPlusOne() {
    pt.set(T0 + 10);
    hlc.now(); // ⟨T0+10, 0⟩
    hlc.now(); // ⟨T0+10, 1⟩
    pt.set(T0);
    assertEquals(of(T0 + 10, 6), hlc.update(of(T0 + 10, 5)), "received c larger");
    assertEquals(of(T0 + 10, 7), hlc.update(of(T0 + 10, 2)), "local c larger");
  }

  @Test
  void when_localLIsAheadOfReceivedAndPhysical_then_cIsLocalCPlusOne() {
    pt.set(T0 + 10);
    hlc.now();
    pt.set(T0 + 3);
    assertEquals(of(T0 + 10, 1), hlc.update(of(T0 + 9, 60_000)));
  }

  @Test
  void when_physicalIsAheadOfLocalAndReceived_then_lIsPhysicalAndCIsZero() {
    hlc.now();
    hlc.now();
    pt.advance(20);
    assertEquals(of(T0 + 20, 0), hlc.update(of(T0 + 19, 40)));
  }

  @Test
  void when_randomMixOfEvents_then_eachResultExceedsPreviousAndReceivedAndLAtLeastPhysical() {
    Random rnd = new Random(7);
    long prev = hlc.current();
    for (int i = 0; i < 10_000; i++) {
      pt.set(T0 + rnd.nextInt(200)); // jumps back and forth
      long ts;
      if (rnd.nextBoolean()) {
        long received = of(T0 + rnd.nextInt(200), rnd.nextInt(100));
        ts = hlc.update(received);
        assertTrue(ts > received, "receive result exceeds the message timestamp");
      } else {
        ts = hlc.now();
      }
      assertTrue(ts > prev, "monotone");
      assertTrue(l(ts) >= pt.millis(), "l >= pt");
      assertEquals(ts, hlc.current());
      prev = ts;
    }
  }

  @Test
  void when_updateIsCalledWithZero_then_itBehavesLikeALocalEvent() {
    HybridLogicalClock other = new HybridLogicalClock(pt);
    for (int i = 0; i < 5; i++) {
      assertEquals(other.now(), hlc.update(0));
    }
  }

  // ---- updateForPut (CausalSpartanX Alg 5.2 lines 23–29) ----

  @Test
  void when_putDependencyIsAheadOfPhysicalClock_then_hlcJumpsWithoutWaiting() {
    long dt = of(T0 + 60_000, 3); // client read a version from a DC whose clock is a minute ahead
    long ut = hlc.updateForPut(dt);
    assertEquals(of(T0 + 60_000, 4), ut);
    assertTrue(ut > dt);
    assertEquals(T0, pt.millis(), "physical clock is read-only");
  }

  @Test
  void when_updateForPutAndUpdateSeeTheSameInputs_then_theyIssueTheSameTimestamps() {
    ManualClock pt2 = new ManualClock(T0);
    HybridLogicalClock viaPut = new HybridLogicalClock(pt2);
    Random rnd = new Random(11);
    for (int i = 0; i < 5_000; i++) {
      long reading = T0 + rnd.nextInt(100);
      pt.set(reading);
      pt2.set(reading);
      long dt = rnd.nextInt(4) == 0 ? 0 : of(T0 + rnd.nextInt(100), rnd.nextInt(50));
      assertEquals(hlc.update(dt), viaPut.updateForPut(dt));
    }
  }

  @Test
  void when_putHasNoDependency_then_timestampFollowsPhysicalClock() {
    pt.advance(3);
    assertEquals(of(T0 + 3, 0), hlc.updateForPut(0));
  }

  // ---- current / initial ----

  @Test
  void when_noEventYet_then_currentIsZero() {
    assertEquals(0, hlc.current());
  }

  @Test
  void when_currentIsRead_then_itReturnsLastIssuedWithoutTicking() {
    long ts = hlc.now();
    assertEquals(ts, hlc.current());
    assertEquals(ts, hlc.current());
    assertEquals(of(T0, 1), hlc.now());
  }

  @Test
  void when_createdWithInitialTimestamp_then_laterTimestampsExceedIt() {
    long initial = of(T0 + 1_000, 17);
    HybridLogicalClock restored = new HybridLogicalClock(pt, initial);
    assertEquals(initial, restored.current());
    assertEquals(of(T0 + 1_000, 18), restored.now());
  }

  // ---- packing ----

  @Test
  void when_packedAndUnpacked_then_partsRoundTrip() {
    Random rnd = new Random(3);
    long[] ls = {0, 1, T0, HybridLogicalClock.L_MAX_MILLIS};
    int[] cs = {0, 1, 4, HybridLogicalClock.C_MAX};
    for (long lv : ls) {
      for (int cv : cs) {
        long ts = of(lv, cv);
        assertTrue(ts >= 0);
        assertEquals(lv, l(ts));
        assertEquals(cv, c(ts));
      }
    }
    for (int i = 0; i < 10_000; i++) {
      long lv = (rnd.nextLong() >>> 17); // [0, 2^47)
      int cv = rnd.nextInt(HybridLogicalClock.C_MAX + 1);
      long ts = of(lv, cv);
      assertEquals(lv, l(ts));
      assertEquals(cv, c(ts));
      assertEquals(ts, of(l(ts), c(ts)));
    }
  }

  @Test
  void when_encodedAsInDkvf_then_lIsMillisShiftedBy16AndCIsLow16Bits() {
    long ts = of(T0, 4);
    assertEquals((T0 << 16) + 4, ts);
    assertEquals(T0 << 16, ts & 0xFFFFFFFFFFFF0000L, "DKVF getL(t)");
    assertEquals(4, ts & 0xFFFFL, "DKVF getC(t)");
  }

  @Test
  void when_comparingPackedTimestamps_then_orderIsLexicographicOnLThenC() {
    Random rnd = new Random(5);
    for (int i = 0; i < 10_000; i++) {
      long l1 = T0 + rnd.nextInt(5);
      long l2 = T0 + rnd.nextInt(5);
      int c1 = rnd.nextInt(HybridLogicalClock.C_MAX + 1);
      int c2 = rnd.nextInt(HybridLogicalClock.C_MAX + 1);
      int lexicographic = l1 != l2 ? Long.compare(l1, l2) : Integer.compare(c1, c2);
      assertEquals(Integer.signum(lexicographic), Integer.signum(Long.compare(of(l1, c1), of(l2, c2))));
    }
  }

  @Test
  void when_formatted_then_showsMillisDotCounter() {
    assertEquals("1700000000123.4", HybridLogicalClock.format(of(1_700_000_000_123L, 4)));
    assertEquals("0.0", HybridLogicalClock.format(0));
  }

  @Test
  void when_packingOutOfRangeParts_then_rejected() {
    assertThrows(IllegalArgumentException.class, () -> of(-1, 0));
    assertThrows(IllegalArgumentException.class, () -> of(HybridLogicalClock.L_MAX_MILLIS + 1, 0));
    assertThrows(IllegalArgumentException.class, () -> of(T0, -1));
    assertThrows(IllegalArgumentException.class, () -> of(T0, HybridLogicalClock.C_MAX + 1));
    assertThrows(IllegalArgumentException.class, () -> l(-1));
    assertThrows(IllegalArgumentException.class, () -> c(-1));
  }

  // ---- overflow and invalid input ----

  @Test
  void when_localCounterWouldExceed16Bits_then_throwsAndClockIsUnchanged() {
    HybridLogicalClock h = new HybridLogicalClock(pt, of(T0, HybridLogicalClock.C_MAX - 1));
    assertEquals(of(T0, HybridLogicalClock.C_MAX), h.now());
    InvariantViolation e = assertThrows(InvariantViolation.class, h::now);
    assertTrue(e.getMessage().contains("overflow"), e.getMessage());
    assertEquals(of(T0, HybridLogicalClock.C_MAX), h.current(), "no silent wrap, no partial update");
    pt.advance(1);
    assertEquals(of(T0 + 1, 0), h.now(), "recovers when the physical clock moves on");
  }

  @Test
  void when_receivedCounterIsMaximal_then_updateThrows() {
    pt.set(T0 - 10);
    long received = of(T0, HybridLogicalClock.C_MAX);
    assertThrows(InvariantViolation.class, () -> hlc.update(received)); // branch l == m.l
    assertEquals(0, hlc.current());
    HybridLogicalClock h = new HybridLogicalClock(pt, of(T0, 3));
    assertThrows(InvariantViolation.class, () -> h.update(received)); // branch l == l' == m.l
    assertThrows(InvariantViolation.class, () -> h.updateForPut(received));
    assertEquals(of(T0, 3), h.current());
  }

  @Test
  void when_stuckClockSeesManyEvents_then_overflowIsReportedAfter65536Timestamps() {
    int issued = 0;
    try {
      while (true) {
        hlc.now();
        issued++;
      }
    } catch (InvariantViolation expected) {
      assertEquals(HybridLogicalClock.C_MAX + 1, issued, "c took every value 0..C_MAX before failing");
    }
  }

  @Test
  void when_receivedTimestampIsNegative_then_invariantViolation() {
    assertThrows(InvariantViolation.class, () -> hlc.update(-5));
    assertThrows(InvariantViolation.class, () -> hlc.updateForPut(Long.MIN_VALUE));
  }

  @Test
  void when_physicalClockExceeds48BitRange_then_invariantViolation() {
    pt.set(HybridLogicalClock.L_MAX_MILLIS + 1);
    assertThrows(InvariantViolation.class, hlc::now);
    pt.set(HybridLogicalClock.L_MAX_MILLIS);
    assertEquals(of(HybridLogicalClock.L_MAX_MILLIS, 0), hlc.now());
  }
}
