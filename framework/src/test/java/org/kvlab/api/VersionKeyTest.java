package org.kvlab.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class VersionKeyTest {
  private static final long[] VALUES = {Long.MIN_VALUE, -65_536, -1, 0, 1, 255, 256, 1L << 40, Long.MAX_VALUE};

  @Test
  void when_one_or_two_parts_are_given_then_the_bytes_are_those_of_the_varargs_form() {
    for (long a : VALUES) {
      assertArrayEquals(VersionKey.of(new long[] {a}), VersionKey.of(a));
      for (long b : VALUES) {
        byte[] two = VersionKey.of(a, b);
        assertArrayEquals(VersionKey.of(new long[] {a, b}), two);
        assertEquals(a, VersionKey.part(two, 0));
        assertEquals(b, VersionKey.part(two, 1));
      }
    }
  }

  @Test
  void when_keys_are_compared_unsigned_then_the_order_is_the_signed_order_of_the_parts() {
    for (long a : VALUES) {
      for (long b : VALUES) {
        int bytes = Integer.signum(Arrays.compareUnsigned(VersionKey.of(a, 7), VersionKey.of(b, 7)));
        assertEquals(Integer.signum(Long.compare(a, b)), bytes, a + " vs " + b);
        assertTrue(Arrays.compareUnsigned(VersionKey.of(a, 1), VersionKey.of(a, 2)) < 0);
      }
    }
  }
}
