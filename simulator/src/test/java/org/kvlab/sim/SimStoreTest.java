package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.api.RecordType;
import org.kvlab.api.VersionKey;
import org.kvlab.store.Durability;
import org.kvlab.testing.TestRecord;

/** The simulator's store replays prunes by version key after a crash exactly as they happened, in order. */
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
}
