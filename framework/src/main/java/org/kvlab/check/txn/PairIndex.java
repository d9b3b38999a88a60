package org.kvlab.check.txn;

import java.util.Arrays;

/**
 * A map from (int, long) pairs to non-negative ints without boxing (open addressing, linear probing): the
 * transaction checker's per-key indexes (key and element to the transaction that appended it, key and version to its
 * first reader) hold one entry per micro-operation, millions for a large history.
 */
final class PairIndex {
  private int[] as;
  private long[] bs;
  private int[] values; // -1 = empty slot
  private int size;

  PairIndex(int expected) {
    int cap = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
    as = new int[cap];
    bs = new long[cap];
    values = new int[cap];
    Arrays.fill(values, -1);
  }

  /** The value of (a, b), or -1 if absent. */
  int get(int a, long b) {
    int mask = values.length - 1;
    for (int i = slot(a, b, mask); ; i = (i + 1) & mask) {
      if (values[i] < 0) {
        return -1;
      }
      if (as[i] == a && bs[i] == b) {
        return values[i];
      }
    }
  }

  /** Puts (a, b) → v unless present; returns the value already there, or -1 if it was absent (and is now v). */
  int putIfAbsent(int a, long b, int v) {
    if (v < 0) {
      throw new IllegalArgumentException("values are 0 or more, got " + v);
    }
    if ((size + 1) * 2 > values.length) {
      grow();
    }
    int mask = values.length - 1;
    for (int i = slot(a, b, mask); ; i = (i + 1) & mask) {
      if (values[i] < 0) {
        as[i] = a;
        bs[i] = b;
        values[i] = v;
        size++;
        return -1;
      }
      if (as[i] == a && bs[i] == b) {
        return values[i];
      }
    }
  }

  int size() {
    return size;
  }

  private static int slot(int a, long b, int mask) {
    long h = (b * 0x9E3779B97F4A7C15L) ^ (a * 0xC2B2AE3D27D4EB4FL);
    h ^= h >>> 31;
    return (int) h & mask;
  }

  private void grow() {
    int[] oa = as;
    long[] ob = bs;
    int[] ov = values;
    as = new int[oa.length * 2];
    bs = new long[ob.length * 2];
    values = new int[ov.length * 2];
    Arrays.fill(values, -1);
    size = 0;
    for (int i = 0; i < ov.length; i++) {
      if (ov[i] >= 0) {
        putIfAbsent(oa[i], ob[i], ov[i]);
      }
    }
  }
}
