package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.api.RecordType;
import org.kvlab.api.VersionKey;
import org.kvlab.store.Durability;
import org.kvlab.testing.TestRecord;

/**
 * The simulator's store replays prunes by version key after a crash exactly as they happened, in order; and it keeps
 * no pruned version alive (it once logged every write for crash replay, and a long Chirper run on DynaStar, whose
 * timelines are rewritten whole, ran out of heap).
 */
class SimStoreTest {
  private static final RecordType<TestRecord> TYPE = RecordType.of(TestRecord.class, r -> VersionKey.of(r.getUt()));

  private static TestRecord rec(long ut) {
    return TestRecord.newBuilder().setUt(ut).setValue(ByteString.copyFromUtf8("v" + ut)).build();
  }

  private static List<Long> uts(SimStore<TestRecord> s) {
    return s.versions("k").stream().map(TestRecord::getUt).toList();
  }

  @Test
  void when_aStoreCrashesAfterPruneBelow_then_theFlushedPruneIsReplayedAndTheUnflushedOneIsLost() {
    SimStore<TestRecord> s = new SimStore<>(TYPE, Durability.NONE);
    for (long ut = 1; ut <= 6; ut++) {
      s.put("k", rec(ut));
    }
    assertEquals(2, s.pruneRange("k", VersionKey.of(0), VersionKey.of(3)));
    s.flush();
    assertEquals(2, s.pruneRange("k", VersionKey.of(3), VersionKey.of(5)));
    s.put("k", rec(7));
    assertEquals(List.of(7L, 6L, 5L), uts(s));

    s.crash(); // back to the flush: the first prune replayed, the second and the put lost
    assertEquals(List.of(6L, 5L, 4L, 3L), uts(s));
  }

  @Test
  void when_aSyncStoreCrashes_then_everyPruneBelowAndPutInBetweenIsReplayedInOrder() {
    SimStore<TestRecord> s = new SimStore<>(TYPE, Durability.SYNC);
    s.put("k", rec(1));
    s.put("k", rec(2));
    assertEquals(2, s.pruneRange("k", VersionKey.of(Long.MIN_VALUE), VersionKey.of(10))); // every version, the key is gone
    s.put("k", rec(3)); // written again after the prune: must survive its replay
    s.crash();
    assertEquals(List.of(3L), uts(s));
    assertEquals(1, s.keyCount());
  }

  /** Whether the only strong reference to a record, once dropped, lets the collector take it (a few tries). */
  private static boolean collected(java.lang.ref.WeakReference<TestRecord> ref) throws InterruptedException {
    for (int i = 0; i < 20 && ref.get() != null; i++) {
      System.gc();
      Thread.sleep(10);
    }
    return ref.get() == null;
  }

  @Test
  void when_aVersionIsPrunedUnderEitherDurability_then_theStoreHoldsItNoLonger() throws Exception {
    for (Durability d : List.of(Durability.SYNC, Durability.NONE)) {
      SimStore<TestRecord> s = new SimStore<>(TYPE, d);
      TestRecord old = rec(1);
      java.lang.ref.WeakReference<TestRecord> ref = new java.lang.ref.WeakReference<>(old);
      s.put("k", old);
      old = null;
      s.flush();
      s.put("k", rec(2));
      assertEquals(1, s.pruneRange("k", VersionKey.of(0), VersionKey.of(2)));
      s.flush();
      assertEquals(List.of(2L), uts(s));
      org.junit.jupiter.api.Assertions.assertTrue(collected(ref), d + ": the pruned version is still held");
      s.crash();
      assertEquals(List.of(2L), uts(s), d + ": the crash keeps what was flushed");
    }
  }
}
