package org.kvlab.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.kvlab.api.VersionKey;
import org.kvlab.testing.TestRecord;

class InMemoryStoreTest extends VersionedStoreContract {
  @Override
  protected VersionedStore<TestRecord> newStore() {
    return new InMemoryStore<>(TYPE);
  }

  @Test
  void when_two_stores_get_the_same_operations_then_they_answer_identically() {
    // Determinism for the simulator: nothing depends on identity hash codes or insertion history.
    InMemoryStore<TestRecord> a = new InMemoryStore<>(TYPE);
    InMemoryStore<TestRecord> b = new InMemoryStore<>(TYPE);
    for (int i = 0; i < 500; i++) {
      a.put("k" + (i % 7), rec(i * 31 % 101, i % 3));
    }
    for (int i = 499; i >= 0; i--) {
      b.put("k" + (i % 7), rec(i * 31 % 101, i % 3));
    }
    for (int k = 0; k < 7; k++) {
      List<TestRecord> va = a.versions("k" + k);
      assertEquals(va, b.versions("k" + k));
      assertEquals(newestFirst(va), va);
    }
    assertEquals(a.keyCount(), b.keyCount());
  }

  @Test
  void when_versions_arrive_out_of_order_and_are_pruned_then_the_chains_answer_as_a_sorted_map_does() {
    // The chains are rings that grow, shrink and insert in the middle; a TreeMap per key is the model. Keys are
    // passed as fresh strings half the time, so the remembered last key is hit and missed.
    InMemoryStore<TestRecord> store = new InMemoryStore<>(TYPE);
    List<TreeMap<Long, TestRecord>> model = new ArrayList<>();
    for (int k = 0; k < 5; k++) {
      model.add(new TreeMap<>());
    }
    Random random = new Random(17);
    long[] clock = new long[5];
    // Keys held packed in the chain (short, below U+0100) and as characters (long, or beyond U+00FF).
    String[] names = {"key-0", "user6284781860667377211", "a key longer than twenty-four characters", "ключ-3", ""};
    for (int step = 0; step < 40_000; step++) {
      int k = random.nextInt(5);
      String key = random.nextBoolean() ? names[k] : new String(names[k].toCharArray());
      TreeMap<Long, TestRecord> versions = model.get(k);
      int op = random.nextInt(11);
      if (op < 5) { // mostly newer versions, some older ones (replicated writes) and some repeats
        long ut = random.nextInt(4) == 0 ? Math.max(0, clock[k] - random.nextInt(50)) : ++clock[k] + random.nextInt(3);
        clock[k] = Math.max(clock[k], ut);
        int sr = random.nextInt(2); // same ut, other replica: version keys with equal first 8 bytes
        TestRecord r = rec(ut, sr);
        store.put(key, r);
        versions.put(ut * 2 + sr, r); // the model's key orders as (ut, sr)
      } else if (op < 7 && !versions.isEmpty()) { // prune below a bound (monotone stability)
        long bound = clock[k] - random.nextInt(random.nextBoolean() ? 5 : 300);
        var stableOnes = versions.headMap(bound * 2 + 1, true);
        int expected = stableOnes.isEmpty() ? 0 : stableOnes.size() - 1;
        if (expected > 0) {
          Long newestStable = stableOnes.lastKey();
          versions.headMap(newestStable, false).clear();
        }
        assertEquals(expected, store.prune(key, r -> r.getUt() <= bound), "removed at step " + step);
      } else if (op < 9) {
        long below = clock[k] - random.nextInt(20);
        var expected = versions.headMap(below * 2 + 1, true).lastEntry();
        assertEquals(Optional.ofNullable(expected == null ? null : expected.getValue()),
            store.newest(key, r -> r.getUt() <= below), "newest at step " + step);
      } else if (op == 9) {
        assertEquals(newestFirst(new ArrayList<>(versions.values())), store.versions(key), "versions at step " + step);
      } else { // remove a range by version key: the oldest few, one in the middle, or all (the key is then gone)
        long from = random.nextInt(3) == 0 ? 0 : Math.max(0, clock[k] - random.nextInt(400));
        long below = random.nextInt(8) == 0 ? clock[k] + 1 : from + random.nextInt(60);
        int fromSr = random.nextInt(2);
        int belowSr = random.nextInt(2);
        int expected = 0;
        if (from * 2 + fromSr < below * 2 + belowSr) {
          var range = versions.subMap(from * 2 + fromSr, true, below * 2 + belowSr, false);
          expected = range.size();
          range.clear();
        }
        assertEquals(expected, store.pruneRange(key, VersionKey.of(from, fromSr), VersionKey.of(below, belowSr)),
            "removed by range at step " + step);
        assertEquals(model.stream().filter(m -> !m.isEmpty()).count(), store.keyCount(), "keys at step " + step);
      }
    }
    for (int k = 0; k < 5; k++) {
      assertEquals(newestFirst(new ArrayList<>(model.get(k).values())), store.versions(names[k]));
    }
    assertEquals(model.stream().filter(m -> !m.isEmpty()).count(), store.keyCount());
    for (String other : List.of("key-1", "user6284781860667377212", "a key longer than twenty-four character", "ключ-4",
        "user628478186066737721", "\u00ff")) {
      assertEquals(List.of(), store.versions(other), other);
    }
  }

  @Test
  void when_many_keys_differ_only_in_length_padding_or_packability_then_each_finds_its_own_versions() {
    // Packed keys are hashed and compared by their packed words and length: a trailing U+0000 packs as nothing, a
    // 24th character is the last packed one, a character above U+00FF or a 25th one makes the key unpacked.
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      keys.add("user" + (i * 2654435761L % 10_000_000_000L));
    }
    for (String base : List.of("", "a", "user1", "abcdefgh", "abcdefghijklmnop", "abcdefghijklmnopqrstuvwx")) {
      keys.add(base);
      keys.add(base + "\u0000");
      keys.add(base + "\u0000\u0000");
      keys.add(base + "y");
      keys.add(base + "\u0100");
      keys.add(base + "\u00ff");
      keys.add(base + "abcdefghijklmnopqrstuvwxyz");
    }
    keys.add("\u0000");
    keys.add("\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000");
    List<String> distinct = new ArrayList<>(new java.util.LinkedHashSet<>(keys));
    InMemoryStore<TestRecord> store = new InMemoryStore<>(TYPE);
    for (int i = 0; i < distinct.size(); i++) {
      store.put(new String(distinct.get(i).toCharArray()), rec(i, 0, "v" + i)); // a fresh string: no identity shortcut
    }
    assertEquals(distinct.size(), store.keyCount());
    for (int i = 0; i < distinct.size(); i++) {
      String key = distinct.get(i);
      assertEquals(Optional.of(rec(i, 0, "v" + i)), store.newest(new String(key.toCharArray())), "key #" + i);
      store.put(key, rec(i + 100_000, 1, "w" + i));
      assertEquals(1, store.prune(key, r -> true));
      assertEquals(List.of(rec(i + 100_000, 1, "w" + i)), store.versions(key), "key #" + i);
    }
    for (String absent : List.of("user", "b", "abcdefghijklmnopqrstuvwxz", "\u0000\u0000\u0000", "abcdefgh\u0001",
        "user1\u0001", "abcdefghijklmnopqrstuvw")) {
      assertEquals(Optional.empty(), store.newest(absent), absent);
    }
  }
}
