package org.kvlab.partitioning;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A trace with a known good placement: {@code groups} groups of {@code keysPerGroup} keys; each transaction touches
 * 2–3 keys of one group, except a share {@code cross} that spans two groups. Placing each group in its own partition
 * makes only those multi-partition.
 */
final class PlantedTrace {
  private PlantedTrace() {}

  static String key(int group, int i) {
    return "g" + group + "-" + i;
  }

  static List<List<String>> of(int groups, int keysPerGroup, int transactions, double cross, long seed) {
    Random r = new Random(seed);
    List<List<String>> out = new ArrayList<>();
    for (int t = 0; t < transactions; t++) {
      int g = r.nextInt(groups);
      List<String> keys = new ArrayList<>();
      keys.add(key(g, r.nextInt(keysPerGroup)));
      keys.add(key(g, r.nextInt(keysPerGroup)));
      if (r.nextBoolean()) {
        keys.add(key(g, r.nextInt(keysPerGroup)));
      }
      if (r.nextDouble() < cross) {
        keys.set(0, key((g + 1 + r.nextInt(groups - 1)) % groups, r.nextInt(keysPerGroup)));
      }
      out.add(keys);
    }
    return out;
  }
}
