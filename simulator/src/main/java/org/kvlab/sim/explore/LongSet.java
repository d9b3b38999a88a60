package org.kvlab.sim.explore;

/**
 * A set of longs (the visited fingerprints) without boxing: open addressing, linear probing, doubled at half full.
 * Zero is kept aside, as the empty slot's value.
 */
final class LongSet {
  private long[] slots = new long[1 << 12];
  private int size;
  private boolean zero;

  /** Adds {@code v}; true if it was not in the set. */
  boolean add(long v) {
    if (v == 0) {
      boolean added = !zero;
      zero = true;
      size += added ? 1 : 0;
      return added;
    }
    if (2 * (size + 1) > slots.length) {
      grow();
    }
    if (!put(slots, v)) {
      return false;
    }
    size++;
    return true;
  }

  int size() {
    return size;
  }

  /** The elements, in no particular order. */
  long[] toArray() {
    long[] out = new long[size];
    int n = 0;
    if (zero) {
      out[n++] = 0;
    }
    for (long s : slots) {
      if (s != 0) {
        out[n++] = s;
      }
    }
    return out;
  }

  private static boolean put(long[] table, long v) {
    int mask = table.length - 1;
    int i = spread(v) & mask;
    for (; table[i] != 0; i = (i + 1) & mask) {
      if (table[i] == v) {
        return false;
      }
    }
    table[i] = v;
    return true;
  }

  private void grow() {
    long[] bigger = new long[slots.length * 2];
    for (long s : slots) {
      if (s != 0) {
        put(bigger, s);
      }
    }
    slots = bigger;
  }

  private static int spread(long v) {
    return (int) (v ^ (v >>> 32)) * 0x9E3779B9;
  }
}
