package org.kvlab.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Invariants.InvariantViolation;
import org.kvlab.api.RecordType;
import org.kvlab.api.VersionKey;
import org.kvlab.testing.TestRecord;

/** The {@link VersionedStore} contract; subclasses run it against each implementation. */
abstract class VersionedStoreContract {
  static final RecordType<TestRecord> TYPE =
      RecordType.of(TestRecord.class, r -> VersionKey.of(r.getUt(), r.getSr()));

  /** Version order of test records: (ut, sr) ascending, i.e. oldest first. */
  static final Comparator<TestRecord> OLDEST_FIRST =
      Comparator.comparingLong(TestRecord::getUt).thenComparingInt(TestRecord::getSr);

  protected VersionedStore<TestRecord> store;

  /** A new, empty store. */
  protected abstract VersionedStore<TestRecord> newStore();

  @BeforeEach
  void openStore() {
    store = newStore();
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  static TestRecord rec(long ut, int sr, String value) {
    return TestRecord.newBuilder().setUt(ut).setSr(sr).setValue(ByteString.copyFromUtf8(value)).build();
  }

  static TestRecord rec(long ut, int sr) {
    return rec(ut, sr, ut + "/" + sr);
  }

  static List<TestRecord> newestFirst(List<TestRecord> records) {
    List<TestRecord> out = new ArrayList<>(records);
    out.sort(OLDEST_FIRST.reversed());
    return out;
  }

  @Test
  void when_store_is_empty_then_reads_find_nothing() {
    assertEquals(Optional.empty(), store.newest("k"));
    assertEquals(List.of(), store.versions("k"));
    assertEquals(0, store.prune("k", r -> true));
    assertEquals(0, store.keyCount());
  }

  @Test
  void when_versions_put_in_any_order_then_versions_are_newest_first_by_signed_ut() {
    long[] uts = {0, 1, -1, 42, -42, 1L << 40, -(1L << 40), Long.MAX_VALUE, Long.MIN_VALUE,
        Long.MAX_VALUE - 1, Long.MIN_VALUE + 1, 255, 256, -255, -256, Integer.MAX_VALUE, Integer.MIN_VALUE};
    List<TestRecord> all = new ArrayList<>();
    for (long ut : uts) {
      all.add(rec(ut, 0));
    }
    List<TestRecord> shuffled = new ArrayList<>(all);
    Collections.shuffle(shuffled, new Random(7));
    shuffled.forEach(r -> store.put("k", r));

    List<TestRecord> expected = newestFirst(all);
    assertEquals(expected, store.versions("k"));
    assertEquals(Long.MAX_VALUE, store.newest("k").orElseThrow().getUt());
    assertEquals(Long.MIN_VALUE, store.versions("k").get(uts.length - 1).getUt());
  }

  @Test
  void when_same_ut_then_sr_breaks_the_tie_and_no_version_is_dropped() {
    List<TestRecord> all = List.of(rec(5, 2, "x"), rec(5, 0, "y"), rec(5, -3, "z"), rec(5, Integer.MAX_VALUE, "w"),
        rec(5, Integer.MIN_VALUE, "v"), rec(4, 100, "old"), rec(6, -100, "new"));
    all.forEach(r -> store.put("k", r));

    assertEquals(all.size(), store.versions("k").size());
    assertEquals(newestFirst(all), store.versions("k"));
    assertEquals(rec(6, -100, "new"), store.newest("k").orElseThrow());
    assertEquals(rec(5, Integer.MAX_VALUE, "w"), store.newest("k", r -> r.getUt() == 5).orElseThrow());
  }

  @Test
  void when_two_versions_share_ut_with_different_sr_then_both_are_kept() {
    store.put("k", rec(10, 1, "from replica 1"));
    store.put("k", rec(10, 2, "from replica 2"));

    assertEquals(List.of(rec(10, 2, "from replica 2"), rec(10, 1, "from replica 1")), store.versions("k"));
  }

  @Test
  void when_newest_has_a_predicate_then_the_newest_matching_version_is_returned() {
    for (int ut = 1; ut <= 10; ut++) {
      store.put("k", rec(ut, 0));
    }
    assertEquals(10, store.newest("k").orElseThrow().getUt());
    assertEquals(9, store.newest("k", r -> r.getUt() % 3 == 0).orElseThrow().getUt());
    assertEquals(1, store.newest("k", r -> r.getUt() < 2).orElseThrow().getUt());
    assertEquals(Optional.empty(), store.newest("k", r -> r.getUt() > 10));
    assertEquals(Optional.empty(), store.newest("other", r -> true));
  }

  @Test
  void when_newest_filters_then_it_scans_newest_first_and_stops_at_the_first_match() {
    for (int ut = 1; ut <= 10; ut++) {
      store.put("k", rec(ut, 0));
    }
    List<Long> seen = new ArrayList<>();
    store.newest("k", r -> {
      seen.add(r.getUt());
      return r.getUt() == 7;
    });
    assertEquals(List.of(10L, 9L, 8L, 7L), seen);
  }

  @Test
  void when_identical_record_is_put_again_then_it_is_a_no_op() {
    store.put("k", rec(1, 1, "v"));
    store.put("k", rec(2, 1, "w"));
    store.put("k", rec(1, 1, "v"));
    store.put("k", rec(1, 1, "v"));

    assertEquals(List.of(rec(2, 1, "w"), rec(1, 1, "v")), store.versions("k"));
    assertEquals(1, store.keyCount());
  }

  @Test
  void when_a_different_record_is_put_under_an_existing_version_key_then_invariant_violation() {
    store.put("key-1", rec(7, 3, "original"));

    InvariantViolation e = assertThrows(InvariantViolation.class, () -> store.put("key-1", rec(7, 3, "impostor")));

    String hex = HexFormat.of().formatHex(VersionKey.of(7, 3));
    assertTrue(e.getMessage().contains("key-1"), e.getMessage());
    assertTrue(e.getMessage().contains(hex), e.getMessage());
    assertEquals(List.of(rec(7, 3, "original")), store.versions("key-1"));
  }

  @Test
  void when_keys_are_prefixes_of_one_another_then_their_versions_do_not_bleed() {
    List<String> keys = List.of("", "a", "ab", "a\u0000", "a\u0000b", "b", "\u0000", "aa", "abc");
    for (int i = 0; i < keys.size(); i++) {
      for (int v = 0; v < 3; v++) {
        store.put(keys.get(i), rec(v, i, keys.get(i) + "#" + v));
      }
    }
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.get(i);
      List<TestRecord> versions = store.versions(key);
      assertEquals(List.of(rec(2, i, key + "#2"), rec(1, i, key + "#1"), rec(0, i, key + "#0")), versions,
          "versions of " + Stores.show(key));
      assertEquals(rec(2, i, key + "#2"), store.newest(key).orElseThrow());
    }
    assertEquals(keys.size(), store.keyCount());
    assertEquals(List.of(), store.versions("abcd"));
    assertEquals(List.of(), store.versions("a\u0001"));

    assertEquals(2, store.prune("a", r -> true));
    assertEquals(3, store.versions("ab").size());
    assertEquals(3, store.versions("a\u0000").size());
    assertEquals(3, store.versions("").size());
  }

  @Test
  void when_key_is_empty_then_it_is_an_ordinary_key() {
    store.put("", rec(1, 0, "empty"));
    store.put("", rec(2, 0, "empty2"));

    assertEquals(rec(2, 0, "empty2"), store.newest("").orElseThrow());
    assertEquals(2, store.versions("").size());
    assertEquals(Optional.empty(), store.newest("x"));
    assertEquals(1, store.keyCount());
  }

  @Test
  void when_keys_are_unicode_then_each_is_stored_under_its_own_versions() {
    List<String> keys = List.of("clé", "cle\u0301", "ключ", "鍵", "🔑", "🔑🔑", "\uffff", "\u007f", "\u0080", "ß", "ss");
    for (int i = 0; i < keys.size(); i++) {
      store.put(keys.get(i), rec(1, i, keys.get(i)));
    }
    for (int i = 0; i < keys.size(); i++) {
      assertEquals(List.of(rec(1, i, keys.get(i))), store.versions(keys.get(i)));
    }
    assertEquals(keys.size(), store.keyCount());
  }

  @Test
  void when_key_has_an_unpaired_surrogate_then_it_is_rejected() {
    assertThrows(IllegalArgumentException.class, () -> store.put("a\ud800", rec(1, 0)));
    assertThrows(IllegalArgumentException.class, () -> store.put("\udc00b", rec(1, 0)));
    assertThrows(IllegalArgumentException.class, () -> store.newest("\ud800"));
    assertEquals(0, store.keyCount());
  }

  @Test
  void when_record_has_default_values_then_it_round_trips() {
    TestRecord empty = TestRecord.getDefaultInstance();
    store.put("k", empty);
    store.put("k", empty);

    assertEquals(List.of(empty), store.versions("k"));
    assertTrue(store.newest("k").isPresent());
  }

  @Test
  void when_value_is_large_then_it_round_trips() {
    byte[] big = new byte[1 << 20];
    new Random(3).nextBytes(big);
    TestRecord r = TestRecord.newBuilder().setUt(1).setValue(ByteString.copyFrom(big)).build();
    store.put("big", r);

    assertEquals(r, store.newest("big").orElseThrow());
  }

  @Test
  void when_prune_then_versions_strictly_older_than_the_newest_stable_one_are_removed() {
    for (int ut = 1; ut <= 10; ut++) {
      store.put("k", rec(ut, 0, ut <= 6 ? "stable" : "pending"));
    }
    store.put("other", rec(1, 0, "stable"));
    store.put("other", rec(2, 0, "stable"));

    int removed = store.prune("k", r -> r.getValue().toStringUtf8().equals("stable"));

    assertEquals(5, removed);
    List<Long> uts = store.versions("k").stream().map(TestRecord::getUt).toList();
    assertEquals(List.of(10L, 9L, 8L, 7L, 6L), uts);
    assertEquals(2, store.versions("other").size());
    assertEquals(0, store.prune("k", r -> r.getValue().toStringUtf8().equals("stable")));
  }

  @Test
  void when_prune_finds_no_stable_version_then_nothing_is_removed() {
    for (int ut = 1; ut <= 5; ut++) {
      store.put("k", rec(ut, 0));
    }
    assertEquals(0, store.prune("k", r -> false));
    assertEquals(5, store.versions("k").size());
    assertEquals(0, store.prune("missing", r -> true));
  }

  @Test
  void when_newest_version_is_stable_then_prune_keeps_only_it() {
    for (int ut = -5; ut <= 5; ut++) {
      store.put("k", rec(ut, 1));
    }
    assertEquals(10, store.prune("k", r -> true));
    assertEquals(List.of(rec(5, 1)), store.versions("k"));
    assertEquals(1, store.keyCount());
  }

  @Test
  void when_prune_runs_then_it_scans_from_the_oldest_and_stops_at_the_first_unstable_version() {
    for (int ut = 1; ut <= 5; ut++) {
      store.put("k", rec(ut, 0));
    }
    List<Long> seen = new ArrayList<>();
    assertEquals(2, store.prune("k", r -> {
      seen.add(r.getUt());
      return r.getUt() <= 3;
    }));
    assertEquals(List.of(2L, 3L, 4L), seen, "the unstable versions above the first one are not looked at");
    assertEquals(List.of(5L, 4L, 3L), store.versions("k").stream().map(TestRecord::getUt).toList());
  }

  @Test
  void when_stability_is_not_monotone_then_prune_keeps_more_and_never_the_newest_stable_one() {
    for (int ut = 1; ut <= 6; ut++) {
      store.put("k", rec(ut, 0));
    }
    // 1, 2 stable; 3 not; 4, 5 stable; 6 not: removes 1 (2 is stable), stops at 3.
    assertEquals(1, store.prune("k", r -> r.getUt() != 3 && r.getUt() != 6));
    assertEquals(List.of(6L, 5L, 4L, 3L, 2L), store.versions("k").stream().map(TestRecord::getUt).toList());
  }

  @Test
  void when_pruneRange_then_exactly_the_versions_in_the_range_are_removed_without_a_predicate() {
    for (int ut = 1; ut <= 10; ut++) {
      store.put("k", rec(ut, 0));
    }
    store.put("k\u0000", rec(1, 0)); // a key the JE prefix of "k" must not reach
    store.put("j", rec(1, 0));
    byte[] none = new byte[0]; // below every version key

    assertEquals(2, store.pruneRange("k", VersionKey.of(3, 0), VersionKey.of(5, 0)), "3 and 4");
    assertEquals(List.of(10L, 9L, 8L, 7L, 6L, 5L, 2L, 1L), uts("k"));
    assertEquals(2, store.pruneRange("k", none, VersionKey.of(5, 0)), "1 and 2");
    assertEquals(0, store.pruneRange("k", none, VersionKey.of(5, 0)), "nothing left below the bound");
    assertEquals(1, store.pruneRange("k", VersionKey.of(5, 0), VersionKey.of(5, 1)), "(5, 0) is below (5, 1)");
    assertEquals(0, store.pruneRange("k", VersionKey.of(9, 0), VersionKey.of(7, 0)), "an empty range");
    assertEquals(List.of(10L, 9L, 8L, 7L, 6L), uts("k"));
    assertEquals(0, store.pruneRange("missing", none, VersionKey.of(100)));
    assertEquals(List.of(rec(1, 0)), store.versions("k\u0000"));
    assertEquals(List.of(rec(1, 0)), store.versions("j"));
    assertEquals(3, store.keyCount());
  }

  private List<Long> uts(String key) {
    return store.versions(key).stream().map(TestRecord::getUt).toList();
  }

  /** The journal's way: the oldest few at a time, each prune starting where the last one ended. */
  @Test
  void when_pruneRange_walks_up_a_long_chain_a_few_at_a_time_then_it_removes_each_version_once() {
    int n = 5_000;
    for (int i = 0; i < n; i++) {
      store.put("journal", rec(i, 0));
    }
    int removed = 0;
    for (long from = 0; from < n - 4; from += 4) {
      removed += store.pruneRange("journal", VersionKey.of(from, 0), VersionKey.of(from + 4, 0));
    }
    assertEquals(n - 4, removed);
    assertEquals(List.of(4999L, 4998L, 4997L, 4996L), uts("journal"));
  }

  @Test
  void when_pruneRange_covers_the_newest_version_then_the_key_is_gone_and_can_be_written_again() {
    store.put("k", rec(1, 0));
    store.put("k", rec(2, 0));

    assertEquals(2, store.pruneRange("k", new byte[0], VersionKey.of(3, 0)));
    assertEquals(List.of(), store.versions("k"));
    assertEquals(Optional.empty(), store.newest("k"));
    assertEquals(0, store.keyCount());
    store.put("k", rec(1, 0));
    assertEquals(List.of(rec(1, 0)), store.versions("k"));
  }

  @Test
  void when_a_pruned_version_is_put_again_then_it_is_stored_again() {
    store.put("k", rec(1, 0));
    store.put("k", rec(2, 0));
    store.prune("k", r -> true);
    store.put("k", rec(1, 0));

    assertEquals(List.of(rec(2, 0), rec(1, 0)), store.versions("k"));
  }

  @Test
  void when_one_key_has_10k_versions_then_order_newest_and_prune_hold() {
    int n = 10_000;
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      order.add(i);
    }
    Collections.shuffle(order, new Random(11));
    for (int i : order) {
      store.put("hot", rec(i - n / 2, i % 3));
    }

    List<TestRecord> versions = store.versions("hot");
    assertEquals(n, versions.size());
    for (int i = 1; i < n; i++) {
      assertTrue(OLDEST_FIRST.compare(versions.get(i - 1), versions.get(i)) > 0, "not newest first at " + i);
    }
    assertEquals(n - 1 - n / 2, store.newest("hot").orElseThrow().getUt());
    assertEquals(-n / 2, store.newest("hot", r -> r.getUt() < -n / 2 + 1).orElseThrow().getUt());
    assertEquals(n / 2, store.prune("hot", r -> r.getUt() <= 0));
    assertEquals(n - n / 2, store.versions("hot").size());
    assertEquals(1, store.keyCount());
  }

  @Test
  void when_many_keys_are_stored_then_keyCount_counts_distinct_keys() {
    int keys = 3_000;
    for (int i = 0; i < keys; i++) {
      for (int v = 0; v <= i % 4; v++) {
        store.put("user" + i, rec(v, 0));
      }
    }
    assertEquals(keys, store.keyCount());
    for (int i = 0; i < keys; i += 97) {
      assertEquals(i % 4 + 1, store.versions("user" + i).size());
      assertEquals(i % 4, store.newest("user" + i).orElseThrow().getUt());
    }
    store.prune("user3", r -> true);
    assertEquals(keys, store.keyCount());
  }

  @Test
  void when_sync_runs_on_another_thread_during_puts_then_nothing_breaks() throws Exception {
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread syncer = new Thread(() -> {
      try {
        while (!done.get()) {
          store.sync();
        }
      } catch (Throwable t) {
        failure.set(t);
      }
    }, "test-group-commit");
    syncer.start();
    try {
      for (int i = 0; i < 5_000; i++) {
        store.put("k" + (i % 50), rec(i, 0));
      }
    } finally {
      done.set(true);
      syncer.join(10_000);
    }
    assertEquals(null, failure.get());
    assertFalse(syncer.isAlive());
    store.sync();
    assertEquals(50, store.keyCount());
    assertEquals(100, store.versions("k7").size());
  }

  @Test
  void when_closed_then_close_and_sync_are_no_ops_and_other_calls_fail() {
    store.put("k", rec(1, 0));
    store.close();
    store.close();
    store.sync();

    assertThrows(IllegalStateException.class, () -> store.put("k", rec(2, 0)));
    assertThrows(IllegalStateException.class, () -> store.newest("k"));
    assertThrows(IllegalStateException.class, () -> store.keyCount());
  }
}
