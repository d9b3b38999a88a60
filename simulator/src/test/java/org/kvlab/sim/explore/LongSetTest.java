package org.kvlab.sim.explore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The explorer's visited set agrees with a TreeSet of the same longs: zero, negatives, repeats, many growths. */
class LongSetTest {
  @Test
  void agreesWithATreeSet_throughGrowth_withZeroAndRepeats() {
    LongSet set = new LongSet();
    TreeSet<Long> reference = new TreeSet<>();
    Random random = new Random(3);
    for (int i = 0; i < 50_000; i++) {
      long v = i % 7 == 0 ? random.nextInt(100) - 50 : random.nextLong(); // small values repeat, zero among them
      assertEquals(reference.add(v), set.add(v), "adding " + v);
    }
    assertTrue(reference.contains(0L), "zero was added");
    assertFalse(set.add(0), "zero is in the set");
    assertEquals(reference.size(), set.size());
    long[] all = set.toArray();
    Arrays.sort(all);
    assertArrayEquals(reference.stream().mapToLong(Long::longValue).toArray(), all);
  }
}
