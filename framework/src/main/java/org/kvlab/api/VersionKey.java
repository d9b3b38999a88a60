package org.kvlab.api;

/**
 * Builds the byte string that orders the versions of one key: stores sort versions by these bytes
 * (unsigned, lexicographic) and treat the largest as the newest. Two different versions must get
 * different keys; storing a record whose version key exists with different content is an invariant
 * violation, never a silent drop (the Berkeley DB duplicate-comparator trap DKVF fell into).
 *
 * <pre>{@code VersionKey.of(record.getUt(), record.getSr())  // last-writer-wins: timestamp, then replica }</pre>
 */
public final class VersionKey {
  private VersionKey() {}

  /** {@link #of(long...)} of one part, without the varargs array. */
  public static byte[] of(long part) {
    byte[] out = new byte[8];
    put(out, 0, part);
    return out;
  }

  /**
   * {@link #of(long...)} of two parts, without the varargs array (a record type's version key function runs on every
   * put, and the array is not always optimized away).
   */
  public static byte[] of(long first, long second) {
    byte[] out = new byte[16];
    put(out, 0, first);
    put(out, 1, second);
    return out;
  }

  private static void put(byte[] out, int index, long part) {
    long v = part ^ Long.MIN_VALUE;
    for (int b = 7; b >= 0; b--) {
      out[index * 8 + b] = (byte) v;
      v >>>= 8;
    }
  }

  /** Encodes each part as 8 big-endian bytes with the sign bit flipped, so signed order is kept. */
  public static byte[] of(long... parts) {
    byte[] out = new byte[parts.length * 8];
    for (int i = 0; i < parts.length; i++) {
      put(out, i, parts[i]);
    }
    return out;
  }

  /** Decodes part {@code index} of a key made by {@link #of(long...)}. */
  public static long part(byte[] key, int index) {
    long v = 0;
    for (int b = 0; b < 8; b++) {
      v = (v << 8) | (key[index * 8 + b] & 0xff);
    }
    return v ^ Long.MIN_VALUE;
  }
}
