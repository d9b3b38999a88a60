package org.kvlab.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Where a key lives: the partition function every client and server of a cluster must agree on. */
class TopologyTest {
  /** The documented function: FNV-1a 64 over the key's UTF-8 bytes, folded, modulo the partition count. */
  private static int reference(String key, int partitions) {
    long h = 0xcbf29ce484222325L;
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      h ^= (b & 0xff);
      h *= 0x100000001b3L;
    }
    return (int) Math.floorMod(h ^ (h >>> 32), (long) partitions);
  }

  @Test
  void when_keysAreAsciiOrNot_then_thePartitionIsTheHashOfTheirUtf8Bytes() {
    List<String> keys = new ArrayList<>(List.of("", "a", "user0", "user9999", "key with spaces", "\u007f", "\u0080",
        "caf\u00e9", "\u65e5\u672c", "mixed-\u00fc-\ud83d\ude00-end", "\ud83d\ude00"));
    SplittableRandom r = new SplittableRandom(3);
    for (int i = 0; i < 2000; i++) {
      StringBuilder b = new StringBuilder();
      int n = r.nextInt(24);
      for (int j = 0; j < n; j++) {
        // mostly ASCII, sometimes a Latin-1, BMP or (as a surrogate pair) supplementary character
        int kind = r.nextInt(10);
        b.appendCodePoint(kind < 7 ? r.nextInt(0x80) : kind < 8 ? 0x80 + r.nextInt(0x780)
            : kind < 9 ? 0x800 + r.nextInt(0xd000) : 0x10000 + r.nextInt(0x1000));
      }
      keys.add(b.toString());
    }
    for (int partitions : new int[] {1, 2, 3, 8, 1000}) {
      Topology t = new Topology(2, partitions);
      for (String k : keys) {
        assertEquals(reference(k, partitions), t.partitionOf(k), "key '" + k + "', " + partitions + " partitions");
      }
    }
  }

  @Test
  void when_theFunctionIsReimplemented_then_knownKeysStayWhereTheyWere() {
    // Stored data and running clients depend on these: a change of the function moves keys between partitions.
    Topology t = new Topology(1, 3);
    Topology wide = new Topology(1, 1000);
    assertEquals(0, t.partitionOf("user0"));
    assertEquals(1, t.partitionOf("user1"));
    assertEquals(0, t.partitionOf("user42"));
    assertEquals(2, t.partitionOf("caf\u00e9"));
    assertEquals(967, wide.partitionOf("user0"));
    assertEquals(824, wide.partitionOf("user1"));
    assertEquals(130, wide.partitionOf("user42"));
    assertEquals(315, wide.partitionOf("caf\u00e9"));
    int[] counts = new int[3];
    for (int i = 0; i < 30_000; i++) {
      counts[t.partitionOf("user" + i)]++;
    }
    for (int c : counts) {
      assertEquals(10_000, c, 600, "the keys spread evenly: " + java.util.Arrays.toString(counts));
    }
  }
}
