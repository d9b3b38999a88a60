package org.kvlab.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RepeatLimiterTest {
  private static final long S = 1_000_000_000L;

  @Test
  void when_aRefusalRepeatsEverySecond_then_itIsLoggedOncePerPeriodWithTheCountHeldBack() {
    RepeatLimiter limiter = new RepeatLimiter(60 * S, 16);
    assertEquals(0, limiter.admit("10.0.0.1 PEER wrong secret", 0));
    for (int i = 1; i < 60; i++) {
      assertEquals(-1, limiter.admit("10.0.0.1 PEER wrong secret", i * S), "second " + i);
    }
    assertEquals(59, limiter.admit("10.0.0.1 PEER wrong secret", 60 * S));
    assertEquals(-1, limiter.admit("10.0.0.1 PEER wrong secret", 61 * S));
  }

  @Test
  void when_theKeyDiffers_then_eachIsLoggedAndTheMemoryIsBounded() {
    RepeatLimiter limiter = new RepeatLimiter(60 * S, 2);
    assertEquals(0, limiter.admit("a", 0));
    assertEquals(0, limiter.admit("b", 0));
    assertEquals(-1, limiter.admit("a", S));
    assertEquals(0, limiter.admit("c", S)); // evicts the least recently used: b
    assertEquals(0, limiter.admit("b", 2 * S), "forgotten keys are logged again");
  }
}
