package org.kvlab.store;

import java.util.Arrays;

/**
 * One key of an {@link InMemoryStore} and its versions, sorted oldest first by
 * {@link Arrays#compareUnsigned(byte[], byte[])}.
 *
 * <p>Shaped for how protocols use a store and for the memory it touches (every separate object is a likely cache
 * miss in a store of thousands of keys):
 * <ul>
 *   <li>The key is held in the chain itself when it is short (up to 24 characters below U+0100, e.g. YCSB's
 *       {@code user1234...}: packed into three longs), so finding a key touches the table slot and the chain only.
 *   <li>Up to two versions sit in fields of the chain (a ring of two); more move to two arrays used as a ring, which
 *       grows, shrinks when a quarter full, and is dropped when one version is left. A key written and pruned over
 *       and over (Eventual keeps one version) touches no other object and allocates nothing.
 *   <li>The newest record and the first 8 bytes of its version key are fields: most reads want the newest version,
 *       and a new version, nearly always newer than it, is placed without reading the newest version's key bytes.
 * </ul>
 * A version that is not the newest (a replicated write older than a local one) is placed by binary search and moves
 * the newer ones up by one. Not thread-safe.
 */
final class VersionChain<R> {
  /** Keys up to this length, all characters below U+0100, are packed into the chain's longs. */
  static final int PACKED_CHARS_MAX = 24;
  /** Rings up to this capacity never shrink (a key with a few versions keeps its arrays). */
  private static final int SHRINK_ABOVE = 16;

  /** The key's hash in {@link InMemoryStore}'s table. */
  final int hash;
  private final int length;
  private final long p0;
  private final long p1;
  private final long p2; // the key's characters, 8 per long, big-endian, when chars is null
  private final char[] chars; // the key when it cannot be packed

  private R newest;
  private long newestPrefix; // prefix(version key of newest)
  private int size;
  private int head; // the oldest version's slot
  // Up to two versions inline: slots 0 and 1 (keys == null).
  private byte[] k0;
  private byte[] k1;
  private Object r0;
  private Object r1;
  // More: a ring of a power-of-two capacity.
  private byte[][] keys;
  private Object[] records;

  VersionChain(int hash, String key, byte[] version, R record) {
    this.hash = hash;
    this.length = key.length();
    if (packable(key)) {
      p0 = pack(key, 0);
      p1 = pack(key, 1);
      p2 = pack(key, 2);
      chars = null;
    } else {
      p0 = p1 = p2 = 0;
      chars = key.toCharArray();
    }
    k0 = version;
    r0 = record;
    size = 1;
    newest = record;
    newestPrefix = prefix(version);
  }

  /** Whether {@code key} is held packed: at most {@link #PACKED_CHARS_MAX} characters, all below U+0100. */
  static boolean packable(String key) {
    int n = key.length();
    int seen = 0;
    for (int i = 0; i < n; i++) {
      seen |= key.charAt(i);
    }
    return n <= PACKED_CHARS_MAX && seen <= 0xff;
  }

  /** Characters {@code 8 * word} to {@code 8 * word + 7} of {@code key} (all below U+0100), big-endian. */
  static long pack(String key, int word) {
    long p = 0;
    for (int i = 8 * word, end = Math.min(key.length(), 8 * word + 8); i < end; i++) {
      p |= (long) key.charAt(i) << (56 - 8 * (i - 8 * word));
    }
    return p;
  }

  /**
   * The table hash of the packed key ({@link #pack} words {@code p0}, {@code p1}, {@code p2}, {@code length}
   * characters): three multiply-rotate steps and a fold of the high half into the low one (the table uses the low
   * bits). Computed from the words the lookup packs anyway, instead of {@link String#hashCode}'s character-by-character
   * multiply chain.
   */
  static int packedHash(long p0, long p1, long p2, int length) {
    long x = (p0 ^ length) * 0x9E3779B97F4A7C15L;
    x = (Long.rotateLeft(x, 27) ^ p1) * 0xC2B2AE3D27D4EB4FL;
    x = (Long.rotateLeft(x, 31) ^ p2) * 0x165667B19E3779F9L;
    return (int) (x ^ (x >>> 32));
  }

  /** Whether this is the chain of the packable key packed as {@code p0}, {@code p1}, {@code p2} of {@code length}. */
  boolean isPacked(long p0, long p1, long p2, int length) {
    return chars == null && this.length == length && this.p0 == p0 && this.p1 == p1 && this.p2 == p2;
  }

  /** Whether this is the chain of {@code k}, a key that is not {@link #packable}. */
  boolean isOfUnpacked(String k) {
    if (chars == null || k.length() != length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      if (chars[i] != k.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** The first 8 bytes of a version key, big-endian, zero-padded: unequal prefixes order keys as the bytes do. */
  static long prefix(byte[] version) {
    long p = 0;
    for (int i = 0, n = Math.min(8, version.length); i < n; i++) {
      p |= (version[i] & 0xffL) << (56 - 8 * i);
    }
    return p;
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
    if (keys == null) {
      return ((head + i) & 1) == 0 ? k0 : k1;
    }
    return keys[(head + i) & (keys.length - 1)];
  }

  /** Record {@code i}, 0 the oldest. */
  @SuppressWarnings("unchecked")
  R record(int i) {
    if (records == null) {
      return (R) (((head + i) & 1) == 0 ? r0 : r1);
    }
    return (R) records[(head + i) & (records.length - 1)];
  }

  private void set(int i, byte[] key, Object record) {
    if (keys == null) {
      if (((head + i) & 1) == 0) {
        k0 = key;
        r0 = record;
      } else {
        k1 = key;
        r1 = record;
      }
    } else {
      int s = (head + i) & (keys.length - 1);
      keys[s] = key;
      records[s] = record;
    }
  }

  /**
   * The index of version {@code key} if present, else {@code -(insertion point) - 1} (as
   * {@link Arrays#binarySearch}). Checks the newest version first: a new version is nearly always newer than it.
   */
  int search(byte[] key) {
    if (size == 0) {
      return -1;
    }
    int c = Long.compareUnsigned(prefix(key), newestPrefix);
    if (c == 0) {
      c = Arrays.compareUnsigned(key, key(size - 1));
    }
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

  /** The index of the oldest version whose key is at least {@code key} ({@link #size()} if there is none). */
  int lowerBound(byte[] key) {
    int lo = 0;
    int hi = size;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Arrays.compareUnsigned(key(mid), key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /**
   * Removes versions {@code lo} (inclusive) to {@code hi} (exclusive), 0 the oldest; may remove every version (the
   * chain is then empty: {@link #newest()} is null until a version is inserted again).
   */
  void removeRange(int lo, int hi) {
    int n = hi - lo;
    if (lo == 0 && hi < size) { // the oldest ones, the newest stays (a journal pruned from its start)
      for (int i = 0; i < n; i++) {
        removeOldest();
      }
      return;
    }
    for (int i = hi; i < size; i++) { // the newer ones move down into the gap
      set(i - n, key(i), record(i));
    }
    for (int i = size - n; i < size; i++) {
      set(i, null, null);
    }
    size -= n;
    if (keys != null && size <= 2) {
      resize(0);
    } else if (keys != null && keys.length > SHRINK_ABOVE && size <= keys.length / 4) {
      resize(Integer.highestOneBit(size - 1) << 1);
    }
    newest = size == 0 ? null : record(size - 1);
    newestPrefix = size == 0 ? 0 : prefix(key(size - 1));
  }

  /** Inserts a version at index {@code at} (from {@link #search}), moving the newer ones up by one. */
  void insert(int at, byte[] key, R record) {
    if (keys == null ? size == 2 : size == keys.length) {
      resize(keys == null ? 4 : keys.length * 2);
    }
    for (int i = size; i > at; i--) {
      set(i, key(i - 1), record(i - 1));
    }
    set(at, key, record);
    size++;
    if (at == size - 1) {
      newest = record;
      newestPrefix = prefix(key);
    }
  }

  /** Removes the oldest version; there must be more than one. */
  void removeOldest() {
    set(0, null, null);
    head = (head + 1) & (keys == null ? 1 : keys.length - 1);
    size--;
    if (keys != null) {
      if (size == 1) {
        resize(0); // back to the fields
      } else if (keys.length > SHRINK_ABOVE && size <= keys.length / 4) {
        resize(keys.length / 2);
      }
    }
  }

  /** Moves the versions to a ring of {@code capacity} (0: to the fields; at most two versions). */
  private void resize(int capacity) {
    byte[][] k = new byte[size][];
    Object[] r = new Object[size];
    for (int i = 0; i < size; i++) {
      k[i] = key(i);
      r[i] = record(i);
    }
    k0 = k1 = null;
    r0 = r1 = null;
    head = 0;
    if (capacity == 0) {
      keys = null;
      records = null;
    } else {
      keys = new byte[capacity][];
      records = new Object[capacity];
    }
    for (int i = 0; i < size; i++) {
      set(i, k[i], r[i]);
    }
  }
}
