package org.kvlab.protocols.nukv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.kvlab.store.InMemoryStore;

/**
 * {@link SnapshotSource} (issue 15: a snapshot no longer reads every key from the store on the event loop): its
 * snapshots hold what a full read of the store gives, it reads only the keys changed since the last one, and it hands
 * out the same Op objects for the others.
 */
class SnapshotSourceTest {
  private final InMemoryStore<Stored> store = new InMemoryStore<>(NuKV.RECORD);
  private final SnapshotSource source = new SnapshotSource(store);
  private final TreeSet<String> keys = new TreeSet<>();
  /** The replica's datacenter is 0: per key its newest write made there, as the server's lastLocal keeps it. */
  private final Map<String, long[]> localWrites = new java.util.HashMap<>();

  private void put(String key, long t, int dc, String value) {
    source.add(key);
    keys.add(key);
    if (dc == 0) {
      localWrites.put(key, new long[] {t, t});
    }
    store.put(key, Stored.newBuilder().setVersion(Version.newBuilder().setT(t).setDc(dc).setIdx(t)
        .setValue(ByteString.copyFromUtf8(value))).build());
  }

  private List<SnapshotPart> take(long[] sv, int chunkKeys) {
    List<SnapshotPart> parts = new ArrayList<>();
    int n = source.take(sv, chunkKeys, localWrites::get, o -> parts.add((SnapshotPart) o));
    assertEquals(parts.size(), n);
    return parts;
  }

  /**
   * What the replaced implementation listed: every key's newest version, read from the store, in key order, with the
   * key's newest write made in this datacenter (what a forwarder's catch-up must cover).
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

  private static List<Op> ops(List<SnapshotPart> parts) {
    List<Op> ops = new ArrayList<>();
    parts.forEach(p -> ops.addAll(p.getOpsList()));
    return ops;
  }

  @Test
  void when_keysChangeBetweenSnapshots_then_eachSnapshotEqualsAFullReadOfTheStoreInChunksWithSvFirst() {
    SplittableRandom random = new SplittableRandom(15);
    for (int round = 0; round < 40; round++) {
      int writes = random.nextInt(0, 300);
      for (int i = 0; i < writes; i++) {
        // Timestamps both above and below the key's newest (a forwarded write older than a local one), two
        // datacenters: the newest version in the store is not always the last one put.
        put("k" + random.nextInt(500), random.nextLong(1, 1_000_000), random.nextInt(2), "v" + round + "/" + i);
      }
      long[] sv = {round, 2L * round};
      int chunkKeys = 1 + random.nextInt(64);
      List<SnapshotPart> parts = take(sv, chunkKeys);
      assertEquals(fullRead(), ops(parts), "round " + round);
      assertEquals(List.of((long) round, 2L * round), parts.get(0).getSvList());
      for (int p = 0; p < parts.size(); p++) {
        assertTrue(parts.get(p).getOpsCount() <= chunkKeys, "part " + p + " holds " + parts.get(p).getOpsCount());
        assertTrue(p == parts.size() - 1 || parts.get(p).getOpsCount() == chunkKeys, "only the last part is short");
        assertTrue(p == 0 || parts.get(p).getSvCount() == 0, "sv is in the first part only");
      }
      assertEquals(keys.size(), source.size());
    }
  }

  @Test
  void when_noKeyIsHeld_then_theSnapshotIsOnePartWithSvOnly() {
    List<SnapshotPart> parts = take(new long[] {3, 4}, 10);
    assertEquals(1, parts.size());
    assertEquals(List.of(3L, 4L), parts.get(0).getSvList());
    assertEquals(0, parts.get(0).getOpsCount());
    assertEquals(0, source.lastReads());
  }

  @Test
  void when_someKeysChangeAfterASnapshot_then_theNextReadsOnlyThoseAndSharesTheOpsOfTheOthers() {
    for (int i = 0; i < 1_000; i++) {
      put("k" + i, 10 + i, 0, "a");
    }
    List<Op> first = ops(take(new long[] {1}, 100));
    assertEquals(1_000, source.lastReads(), "the first snapshot reads every key");
    Set<String> changed = new HashSet<>();
    for (int i = 0; i < 1_000; i += 7) {
      put("k" + i, 5_000 + i, 1, "b"); // newer
      changed.add("k" + i);
    }
    put("k3", 1, 1, "older"); // an older version: the key is read again, its newest is unchanged
    changed.add("k3");
    put("new", 1, 0, "c");
    changed.add("new");
    List<Op> second = ops(take(new long[] {2}, 100));
    assertEquals(changed.size(), source.lastReads(), "only the keys changed since the last snapshot are read");
    assertEquals(fullRead(), second);

    Map<Op, Boolean> firstOps = new IdentityHashMap<>();
    first.forEach(o -> firstOps.put(o, true));
    Map<String, Op> byKey = new java.util.HashMap<>();
    first.forEach(o -> byKey.put(o.getKey(), o));
    for (Op o : second) {
      if (!changed.contains(o.getKey())) {
        assertSame(byKey.get(o.getKey()), o, "an unchanged key's Op is the one the last snapshot holds");
      } else if (!o.getKey().equals("k3")) {
        assertTrue(!firstOps.containsKey(o), "a changed key's Op is new");
      }
    }
    List<Op> third = ops(take(new long[] {3}, 100));
    assertEquals(0, source.lastReads(), "nothing changed since the last snapshot: no store read");
    assertEquals(second.size(), third.size());
    for (int i = 0; i < third.size(); i++) {
      assertSame(second.get(i), third.get(i));
    }
  }
}
