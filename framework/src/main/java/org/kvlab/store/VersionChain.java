package org.kvlab.store;

import java.util.Arrays;

/**
 * The versions of one key in an {@link InMemoryStore}: version keys and records in two arrays used as a ring,
 * sorted oldest first by {@link Arrays#compareUnsigned(byte[], byte[])}, with the newest record also in a field.
 *
 * <p>Shaped for how protocols use a store: a new version is nearly always the newest (appended at the end),
 * pruning removes the oldest (advances the start), and most reads want the newest (one field). So a key written
 * and pruned over and over (Eventual keeps one version) allocates nothing, where a tree map allocated an entry per
 * version and rebalanced on every put and prune. A version that is not the newest (a replicated write older than
 * a local one) is placed by binary search and moves the newer ones up by one. Not thread-safe.
 */
final class VersionChain<R> {
  /** The key's hash ({@link InMemoryStore}'s table) and characters: a lookup compares these, one object away. */
  final int hash;
  private final char[] key;
  private static final int INITIAL_CAPACITY = 2;
  /** Rings up to this capacity never shrink (a key with a few versions keeps its arrays). */
  private static final int SHRINK_ABOVE = 16;
  private byte[][] keys;
  private Object[] records;
  private int head; // index of the oldest version
  private int size;
  private R newest;

  VersionChain(int hash, String key, byte[] version, R record) {
    this.hash = hash;
    this.key = key.toCharArray();
    keys = new byte[INITIAL_CAPACITY][];
    records = new Object[INITIAL_CAPACITY];
    keys[0] = version;
    records[0] = record;
    size = 1;
    newest = record;
  }

  /** Whether this is the chain of {@code k}. */
  boolean isOf(String k) {
    char[] own = key;
    if (own.length != k.length()) {
      return false;
    }
    for (int i = 0; i < own.length; i++) {
      if (own[i] != k.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  int size() {
    return size;
  }

  /** The newest record. */
  R newest() {
    return newest;
  }

  /** Version key {@code i}, 0 the oldest. */
  byte[] key(int i) {
    return keys[slot(i)];
  }

  /** Record {@code i}, 0 the oldest. */
  @SuppressWarnings("unchecked")
  R record(int i) {
    return (R) records[slot(i)];
  }

  private int slot(int i) {
    return (head + i) & (keys.length - 1); // the capacity is a power of two
  }

  /**
   * The index of version {@code key} if present, else {@code -(insertion point) - 1} (as
   * {@link Arrays#binarySearch}). Checks the newest version first: a new version is nearly always newer than it.
   */
  int search(byte[] key) {
    int c = Arrays.compareUnsigned(key, key(size - 1));
    if (c >= 0) {
      return c == 0 ? size - 1 : -size - 1;
    }
    int lo = 0;
    int hi = size - 2;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int m = Arrays.compareUnsigned(key(mid), key);
      if (m < 0) {
        lo = mid + 1;
      } else if (m > 0) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -lo - 1;
  }

  /** Inserts a version at index {@code at} (from {@link #search}), moving the newer ones up by one. */
  void insert(int at, byte[] key, R record) {
    if (size == keys.length) {
      grow();
    }
    for (int i = size; i > at; i--) {
      int to = slot(i);
      int from = slot(i - 1);
      keys[to] = keys[from];
      records[to] = records[from];
    }
    int s = slot(at);
    keys[s] = key;
    records[s] = record;
    size++;
    if (at == size - 1) {
      newest = record;
    }
  }

  /** Removes the oldest version; there must be more than one. A ring a quarter full is halved. */
  void removeOldest() {
    keys[head] = null;
    records[head] = null;
    head = (head + 1) & (keys.length - 1);
    size--;
    if (keys.length > SHRINK_ABOVE && size <= keys.length / 4) {
      resize(keys.length / 2);
    }
  }

  private void grow() {
    resize(keys.length * 2);
  }

  private void resize(int capacity) {
    byte[][] k = new byte[capacity][];
    Object[] r = new Object[capacity];
    for (int i = 0; i < size; i++) {
      k[i] = keys[slot(i)];
      r[i] = records[slot(i)];
    }
    keys = k;
    records = r;
    head = 0;
  }
}
