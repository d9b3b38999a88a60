package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

class SimRandomTest {
  /** Every method the simulator, the workloads and the protocols draw with, interleaved: the same values as Random. */
  @Test
  void when_theSameSeed_then_theSameSequenceAsRandom() {
    for (long seed : new long[] {0, 1, 42, -7, Long.MAX_VALUE, Long.MIN_VALUE, 0x5DEECE66DL}) {
      Random expected = new Random(seed);
      Random actual = new SimRandom(seed);
      for (int i = 0; i < 2000; i++) {
        String at = "seed " + seed + ", draw " + i;
        switch (i % 9) {
          case 0 -> assertEquals(expected.nextInt(), actual.nextInt(), at);
          case 1 -> assertEquals(expected.nextInt(1 + i), actual.nextInt(1 + i), at);
          case 2 -> assertEquals(expected.nextLong(), actual.nextLong(), at);
          case 3 -> assertEquals(expected.nextLong(1 + i * 1_000_003L), actual.nextLong(1 + i * 1_000_003L), at);
          case 4 -> assertEquals(expected.nextDouble(), actual.nextDouble(), at);
          case 5 -> assertEquals(expected.nextBoolean(), actual.nextBoolean(), at);
          case 6 -> assertEquals(expected.nextGaussian(), actual.nextGaussian(), at);
          case 7 -> assertEquals(expected.nextFloat(), actual.nextFloat(), at);
          default -> {
            byte[] a = new byte[i % 13];
            byte[] b = new byte[i % 13];
            expected.nextBytes(a);
            actual.nextBytes(b);
            assertEquals(java.util.Arrays.toString(a), java.util.Arrays.toString(b), at);
          }
        }
      }
      expected.setSeed(seed + 1);
      actual.setSeed(seed + 1);
      assertEquals(expected.nextLong(), actual.nextLong(), "after setSeed, seed " + seed);
    }
  }
}
