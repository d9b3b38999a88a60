package org.kvlab.ycsb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.RandomByteIterator;

class FieldCodecTest {
  @Test
  void when_fieldsAreEncoded_then_theyDecodeToTheSameBytes() {
    byte[] all = new byte[256];
    for (int i = 0; i < 256; i++) {
      all[i] = (byte) i;
    }
    byte[] big = new byte[70_000]; // a three-byte varint length
    big[69_999] = 9;
    Map<String, byte[]> fields = new LinkedHashMap<>();
    fields.put("field0", all);
    fields.put("", new byte[0]);
    fields.put("\u00fcnicode", big);
    Map<String, ByteIterator> in = new LinkedHashMap<>();
    fields.forEach((k, v) -> in.put(k, new ByteArrayByteIterator(v)));
    ByteString encoded = FieldCodec.encode(in);
    assertEquals(FieldCodec.FORMAT, encoded.byteAt(0));

    Map<String, ByteIterator> out = new HashMap<>();
    FieldCodec.decode(encoded, null, out);
    assertEquals(fields.keySet(), out.keySet());
    fields.forEach((k, v) -> assertArrayEquals(v, out.get(k).toArray(), k));

    Map<String, ByteIterator> some = new HashMap<>();
    FieldCodec.decode(encoded, Set.of("field0", "missing"), some);
    assertEquals(Set.of("field0"), some.keySet());
  }

  @Test
  void when_oneDefaultYcsbFieldIsEncoded_then_theFramingIsTenBytes() {
    ByteString encoded = FieldCodec.encode(Map.of("field0", new RandomByteIterator(64)));
    assertEquals(64 + 10, encoded.size());
  }

  @Test
  void when_aValueIsNotARecord_then_decodeSaysWhy() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> FieldCodec.decode(ByteString.copyFromUtf8("alice"), null, new HashMap<>()));
    assertTrue(e.getMessage().contains("not a YCSB record written by the kvlab binding"), e.getMessage());
    ByteString truncated = FieldCodec.encode(Map.of("f", new ByteArrayByteIterator(new byte[10]))).substring(0, 8);
    e = assertThrows(IllegalArgumentException.class, () -> FieldCodec.decode(truncated, null, new HashMap<>()));
    assertTrue(e.getMessage().contains("corrupt"), e.getMessage());
  }
}
