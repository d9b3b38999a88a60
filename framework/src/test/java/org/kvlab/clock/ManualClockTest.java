package org.kvlab.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.kvlab.api.Clock;
import org.junit.jupiter.api.Test;

class ManualClockTest {
  @Test
  void when_created_then_readsStartValue() {
    assertEquals(0, new ManualClock().millis());
    assertEquals(1_700_000_000_000L, new ManualClock(1_700_000_000_000L).millis());
  }

  @Test
  void when_advanced_then_readingMovesByDeltaAndIsReturned() {
    ManualClock clock = new ManualClock(100);
    assertEquals(105, clock.advance(5));
    assertEquals(105, clock.millis());
    assertEquals(105, clock.millis(), "reading does not move by itself");
  }

  @Test
  void when_setOrAdvancedBackward_then_readingGoesBackward() {
    ManualClock clock = new ManualClock(1_000);
    clock.set(900);
    assertEquals(900, clock.millis());
    assertEquals(850, clock.advance(-50));
    assertEquals(850, clock.millis());
  }

  @Test
  void when_usedAsApiClock_then_readsTheSameValue() {
    ManualClock manual = new ManualClock(42);
    Clock clock = manual;
    manual.advance(8);
    assertEquals(50, clock.millis());
  }
}
