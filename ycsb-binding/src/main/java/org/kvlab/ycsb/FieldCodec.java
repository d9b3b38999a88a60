package org.kvlab.ycsb;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;

/**
 * How a YCSB record (field name -> bytes) is stored as one kvlab value. Self-describing and compact:
 *
 * <pre>
 *   value  = 0xB1 count field*        (0xB1: format 1; count: varint, number of fields)
 *   field  = varint(len(name)) name varint(len(bytes)) bytes     (name: UTF-8)
 * </pre>
 *
 * A YCSB default record (one field {@code field0} of 64 bytes) costs 10 bytes of framing. Decoding does
 * not copy field bytes: every returned {@link ByteIterator} reads from one copy of the value.
 */
public final class FieldCodec {
  /** First byte of every encoded value: "format 1". */
  public static final byte FORMAT = (byte) 0xB1;

  private FieldCodec() {}

  /** Encodes {@code fields}; each iterator is consumed. */
  public static ByteString encode(Map<String, ByteIterator> fields) {
    int n = fields.size();
    byte[][] names = new byte[n][];
    byte[][] values = new byte[n][];
    int size = 1 + varintSize(n);
    int i = 0;
    for (Map.Entry<String, ByteIterator> e : fields.entrySet()) {
      byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
      byte[] value = e.getValue().toArray();
      names[i] = name;
      values[i] = value;
      size += varintSize(name.length) + name.length + varintSize(value.length) + value.length;
      i++;
    }
    byte[] out = new byte[size];
    out[0] = FORMAT;
    int pos = writeVarint(out, 1, n);
    for (int f = 0; f < n; f++) {
      pos = writeVarint(out, pos, names[f].length);
      System.arraycopy(names[f], 0, out, pos, names[f].length);
      pos += names[f].length;
      pos = writeVarint(out, pos, values[f].length);
      System.arraycopy(values[f], 0, out, pos, values[f].length);
      pos += values[f].length;
    }
    return UnsafeByteOperations.unsafeWrap(out); // out is never written again
  }

  /**
   * Decodes {@code value} into {@code result}: every field, or only those named in {@code wanted} when it
   * is not null. Throws {@link IllegalArgumentException} if {@code value} is not in this encoding (for
   * example a value written by {@code kvlab shell}).
   */
  public static void decode(ByteString value, Set<String> wanted, Map<String, ByteIterator> result) {
    byte[] b = value.toByteArray();
    if (b.length == 0 || b[0] != FORMAT) {
      throw new IllegalArgumentException("the value is not a YCSB record written by the kvlab binding (it starts "
          + "with " + (b.length == 0 ? "nothing" : String.format("0x%02x", b[0] & 0xff)) + ", not 0xb1): was the key "
          + "written by another tool? Load the data with the binding (YCSB -load) first");
    }
    int[] pos = {1};
    long count = readVarint(b, pos);
    for (long f = 0; f < count; f++) {
      int nameLength = length(b, pos);
      int nameAt = pos[0];
      pos[0] += nameLength;
      int valueLength = length(b, pos);
      int valueAt = pos[0];
      pos[0] += valueLength;
      String name = new String(b, nameAt, nameLength, StandardCharsets.UTF_8);
      if (wanted == null || wanted.contains(name)) {
        result.put(name, new ByteArrayByteIterator(b, valueAt, valueLength));
      }
    }
    if (pos[0] != b.length) {
      throw corrupt(b);
    }
  }

  private static int length(byte[] b, int[] pos) {
    long n = readVarint(b, pos);
    if (n < 0 || n > b.length - pos[0]) {
      throw corrupt(b);
    }
    return (int) n;
  }

  private static IllegalArgumentException corrupt(byte[] b) {
    return new IllegalArgumentException("corrupt YCSB record of " + b.length + " bytes (a field runs past the end or "
        + "bytes follow the last field)");
  }

  static int varintSize(int v) {
    int size = 1;
    while ((v & ~0x7F) != 0) {
      v >>>= 7;
      size++;
    }
    return size;
  }

  private static int writeVarint(byte[] out, int pos, int v) {
    while ((v & ~0x7F) != 0) {
      out[pos++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out[pos++] = (byte) v;
    return pos;
  }

  private static long readVarint(byte[] b, int[] pos) {
    long result = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (pos[0] >= b.length) {
        throw corrupt(b);
      }
      byte x = b[pos[0]++];
      result |= (long) (x & 0x7F) << shift;
      if (x >= 0) {
        return result;
      }
    }
    throw corrupt(b);
  }
}
