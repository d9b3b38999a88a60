package org.kvlab.protocols.nukv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Invariants;
import org.kvlab.store.InMemoryStore;

/**
 * {@link SnapshotSource} (issue 15: a snapshot neither reads every key from the store nor encodes every key on the
 * event loop): its snapshots are byte for byte the encoding of a full read of the store, it reads only keys it has
 * not seen put, encodes only the keys changed since the last snapshot, and copies the others.
 */
class SnapshotSourceTest {
  private final InMemoryStore<Stored> store = new InMemoryStore<>(NuKV.RECORD);
  private SnapshotSource source = new SnapshotSource(store);
  private final TreeSet<String> keys = new TreeSet<>();
  /** The replica's datacenter is 0: per key its newest write made there, as the server's lastLocal keeps it. */
  private final Map<String, long[]> localWrites = new HashMap<>();

  /** A write applied as the server applies it: into the store, then the source told of the version put. */
  private void put(String key, long t, int dc, String value) {
    keys.add(key);
    if (dc == 0) {
      localWrites.put(key, new long[] {t, t});
    }
    Version v = Version.newBuilder().setT(t).setDc(dc).setIdx(t).setValue(ByteString.copyFromUtf8(value)).build();
    store.put(key, Stored.newBuilder().setVersion(v).build());
    source.put(key, v);
  }

  private List<ByteString> take(long[] sv, int chunkKeys) {
    List<ByteString> parts = new ArrayList<>();
    int n = source.take(sv, chunkKeys, localWrites::get, parts::add);
    assertEquals(parts.size(), n);
    return parts;
  }

  /**
   * What the implementation before SnapshotSource listed: every key's newest version, read from the store, in key
   * order, with the key's newest write made in this datacenter (what a forwarder's catch-up must cover).
   */
  private List<Op> fullRead() {
    List<Op> ops = new ArrayList<>();
    for (String k : keys) {
      Op.Builder op = Op.newBuilder().setKey(k).setVersion(store.newest(k).orElseThrow().getVersion());
      long[] local = localWrites.get(k);
      if (local != null) {
        op.setLocalIdx(local[0]).setLocalT(local[1]);
      }
      ops.add(op.build());
    }
    return ops;
  }

  /** A full read encoded as the parts a snapshot lists (sv in the first), each part's bytes. */
  private List<ByteString> fullEncoding(long[] sv, int chunkKeys) {
    List<Op> ops = fullRead();
    List<ByteString> parts = new ArrayList<>();
    int i = 0;
    do {
      SnapshotPart.Builder part = SnapshotPart.newBuilder();
      if (i == 0) {
        for (long x : sv) {
          part.addSv(x);
        }
      }
      part.addAllOps(ops.subList(i, Math.min(ops.size(), i + chunkKeys)));
      parts.add(part.build().toByteString());
      i += chunkKeys;
    } while (i < ops.size());
    return parts;
  }

  private static List<ByteString> bytes(List<ByteString> parts) {
    return parts;
  }

  @Test
  void when_keysChangeBetweenSnapshots_then_eachSnapshotIsByteForByteTheEncodingOfAFullRead() {
    SplittableRandom random = new SplittableRandom(15);
    for (int round = 0; round < 60; round++) {
      int writes = random.nextInt(0, 300);
      for (int i = 0; i < writes; i++) {
        // Timestamps both above and below the key's newest (a forwarded write older than a local one), two
        // datacenters: the newest version in the store is not always the last one put, and a local write older than
        // the key's newest changes only the local write the snapshot carries.
        put("k" + random.nextInt(500), random.nextLong(1, 1_000_000), random.nextInt(2), "v" + round + "/" + i);
      }
      long[] sv = {round, 2L * round};
      int chunkKeys = 1 + random.nextInt(64);
      List<ByteString> parts = take(sv, chunkKeys);
      assertEquals(fullEncoding(sv, chunkKeys), bytes(parts), "round " + round);
      List<Op> ops = new ArrayList<>();
      for (int p = 0; p < parts.size(); p++) {
        SnapshotPart part = parse(parts.get(p));
        assertTrue(part.getOpsCount() <= chunkKeys, "part " + p + " holds " + part.getOpsCount());
        assertTrue(p == parts.size() - 1 || part.getOpsCount() == chunkKeys, "only the last part is short");
        assertEquals(p == 0 ? List.of((long) round, 2L * round) : List.of(), part.getSvList(), "sv in part 0 only");
        ops.addAll(part.getOpsList());
      }
      assertEquals(fullRead(), ops, "round " + round);
      assertEquals(keys.size(), source.size());
    }
  }

  @Test
  void when_noKeyIsHeld_then_theSnapshotIsOnePartWithSvOnly() {
    List<ByteString> parts = take(new long[] {3, 4}, 10);
    assertEquals(1, parts.size());
    assertEquals(SnapshotPart.newBuilder().addSv(3).addSv(4).build().toByteString(), parts.get(0));
    assertEquals(0, source.lastReads());
    assertEquals(0, source.lastEncoded());
  }

  @Test
  void when_someKeysChangeAfterASnapshot_then_theNextEncodesOnlyThoseAndReadsOnlyNewKeys() {
    for (int i = 0; i < 1_000; i++) {
      put("k" + i, 10 + i, 0, "a");
    }
    take(new long[] {1}, 100);
    assertEquals(1_000, source.lastReads(), "keys first seen are read from the store");
    assertEquals(1_000, source.lastEncoded());
    Set<String> changed = new HashSet<>();
    for (int i = 0; i < 1_000; i += 7) {
      put("k" + i, 5_000 + i, 1, "b"); // newer, from another datacenter: the local write stays
      changed.add("k" + i);
    }
    put("k3", 1, 1, "older"); // an older version: its newest is unchanged
    put("k5", 2, 0, "older local"); // an older local write: the newest is unchanged, the local write the snapshot
    changed.add("k3"); //             carries is this one
    changed.add("k5");
    put("new", 1, 0, "c");
    changed.add("new");
    List<ByteString> second = take(new long[] {2}, 100);
    assertEquals(fullEncoding(new long[] {2}, 100), bytes(second));
    assertEquals(changed.size(), source.lastEncoded(), "only the keys changed since the last snapshot are encoded");
    assertEquals(1 + 1, source.lastReads(), "the new key, and one changed key checked against the store");

    List<ByteString> third = take(new long[] {3}, 100);
    assertEquals(fullEncoding(new long[] {3}, 100), bytes(third));
    assertEquals(0, source.lastReads(), "nothing changed since the last snapshot: no store read");
    assertEquals(0, source.lastEncoded(), "nothing changed since the last snapshot: every entry copied");
    take(new long[] {4}, 37); // other part boundaries: entries are copied from wherever they lie
    assertEquals(fullEncoding(new long[] {4}, 37), bytes(take(new long[] {4}, 37)));
    assertEquals(0, source.lastEncoded());
  }

  /**
   * A restart: the store holds versions the new source never saw put (JE keeps what the replica wrote before it
   * stopped), and the replay puts older ones again. Such keys are read from the store, not taken from the puts.
   */
  @Test
  void when_theStoreHoldsNewerVersionsThanTheSourceSawPut_then_theSnapshotListsTheStores() {
    for (int i = 0; i < 50; i++) {
      put("k" + i, 100 + i, 0, "before the restart");
    }
    source = new SnapshotSource(store); // restarted: a new source over the same store
    for (int i = 0; i < 50; i += 2) {
      put("k" + i, 1 + i, 1, "replayed, older"); // localWrites unchanged (datacenter 1)
    }
    keys.clear();
    for (int i = 0; i < 50; i += 2) {
      keys.add("k" + i); // the keys the new source saw
    }
    List<ByteString> parts = take(new long[] {7}, 8);
    assertEquals(fullEncoding(new long[] {7}, 8), bytes(parts));
    assertEquals(25, source.lastReads());
    for (Op op : parse(parts.get(0)).getOpsList()) {
      assertEquals("before the restart", op.getVersion().getValue().toStringUtf8(), op.getKey());
    }
  }

  /**
   * A snapshot that fails half-way (MicroRaft's consumer throws) leaves the source as it was for the keys not yet
   * handed over: the next snapshot is still the full read's encoding.
   */
  @Test
  void when_aSnapshotFailsHalfWay_then_theNextOneIsStillAFullRead() {
    for (int i = 0; i < 300; i++) {
      put("k" + i, 10 + i, 0, "a");
    }
    take(new long[] {1}, 50);
    for (int i = 0; i < 300; i += 3) {
      put("k" + i, 1_000 + i, 1, "b");
    }
    int[] handed = {0};
    Consumer<ByteString> failing = o -> {
      if (++handed[0] == 3) {
        throw new IllegalStateException("the third part is refused");
      }
    };
    assertThrows(IllegalStateException.class, () -> source.take(new long[] {2}, 50, localWrites::get, failing));
    for (int i = 1; i < 300; i += 5) {
      put("k" + i, 2_000 + i, 0, "c");
    }
    assertEquals(fullEncoding(new long[] {3}, 50), bytes(take(new long[] {3}, 50)));
  }

  /** The apply path's version is checked against the store on one changed key a snapshot: a missed put is caught. */
  @Test
  void when_theStoreGotAVersionTheSourceWasNotTold_then_theSnapshotFailsOnTheInvariant() {
    put("a", 1, 0, "x");
    take(new long[] {1}, 10);
    put("a", 5, 0, "y");
    store.put("a", Stored.newBuilder().setVersion(Version.newBuilder().setT(9).setDc(1).setIdx(9)
        .setValue(ByteString.copyFromUtf8("not told"))).build());
    Invariants.InvariantViolation e = assertThrows(Invariants.InvariantViolation.class,
        () -> take(new long[] {2}, 10));
    assertTrue(e.getMessage().contains("key a was last put at (5, 0)"), e.getMessage());
  }

  private static SnapshotPart parse(ByteString part) {
    try {
      return SnapshotPart.parseFrom(part);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError("a snapshot part does not parse", e);
    }
  }
}
