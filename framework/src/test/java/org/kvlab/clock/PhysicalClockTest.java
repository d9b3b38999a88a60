package org.kvlab.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PhysicalClockTest {
  /** Slack for NTP adjustments of the system clock between two reads; no assertion on speed. */
  private static final long TOLERANCE_MILLIS = 1_000;

  private static void assertReadsSystemPlus(PhysicalClock clock, long skew) {
    long before = System.currentTimeMillis();
    long reading = clock.millis();
    long after = System.currentTimeMillis();
    assertTrue(
        reading >= before + skew - TOLERANCE_MILLIS && reading <= after + skew + TOLERANCE_MILLIS,
        () -> "reading " + reading + " not within [" + (before + skew) + ", " + (after + skew) + "] ± tolerance");
  }

  @Test
  void when_skewIsPositive_then_readingIsSystemTimePlusSkew() {
    PhysicalClock clock = new PhysicalClock(250_000);
    assertEquals(250_000, clock.skewMillis());
    assertReadsSystemPlus(clock, 250_000);
  }

  @Test
  void when_skewIsNegative_then_readingIsSystemTimeMinusSkew() {
    PhysicalClock clock = new PhysicalClock(-3_600_000);
    assertEquals(-3_600_000, clock.skewMillis());
    assertReadsSystemPlus(clock, -3_600_000);
  }

  @Test
  void when_system_then_noSkewAndSameInstance() {
    PhysicalClock clock = PhysicalClock.system();
    assertEquals(0, clock.skewMillis());
    assertSame(clock, PhysicalClock.system());
    assertReadsSystemPlus(clock, 0);
  }

  @Test
  void when_twoClocksHaveDifferentSkews_then_readingsDifferBySkewDifference() {
    PhysicalClock ahead = new PhysicalClock(5_000_000);
    PhysicalClock behind = new PhysicalClock(-2_000_000);
    long a = ahead.millis();
    long b = behind.millis();
    long observed = a - b;
    assertTrue(
        Math.abs(observed - 7_000_000) <= TOLERANCE_MILLIS,
        () -> "difference " + observed + " should be ≈ 7000000");
  }

  @Test
  void when_drivingAnHlc_then_hlcLIsAtLeastSkewedPhysicalTime() {
    PhysicalClock clock = new PhysicalClock(10_000_000);
    HybridLogicalClock hlc = new HybridLogicalClock(clock);
    long before = System.currentTimeMillis();
    long ts = hlc.now();
    assertTrue(HybridLogicalClock.l(ts) >= before + 10_000_000 - TOLERANCE_MILLIS);
  }
}
