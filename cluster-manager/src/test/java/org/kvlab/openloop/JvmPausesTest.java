package org.kvlab.openloop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading the servers' JVM logs and this JVM's own collections for an open-loop run's measured window. */
class JvmPausesTest {
  @TempDir
  Path dir;

  /** Lines as JDK 17 writes them with -Xlog:gc,safepoint:...:timemillis,uptime,tags (copied from a run, times changed). */
  static final List<String> LOG = List.of(
      "[0.010s][1000000000000ms][gc       ] Using Serial",
      "[1.010s][1000000001000ms][gc       ] GC(0) Pause Young (Allocation Failure) 273M->15M(989M) 20.000ms",
      "[1.010s][1000000001000ms][safepoint] Safepoint \"GenCollectForAllocation\", Time since last: 999000000 ns,"
          + " Reaching safepoint: 50000 ns, Cleanup: 6129 ns, At safepoint: 20100000 ns, Total: 20150000 ns",
      "[2.010s][1000000002000ms][safepoint] Safepoint \"Cleanup\", Time since last: 999000000 ns,"
          + " Reaching safepoint: 10000 ns, At safepoint: 20000 ns, Total: 30000 ns",
      "[3.010s][1000000003000ms][gc       ] GC(1) Pause Young (Allocation Failure) 289M->17M(989M) 12.000ms",
      "[3.010s][1000000003000ms][safepoint] Safepoint \"GenCollectForAllocation\", Time since last: 1999000000 ns,"
          + " Reaching safepoint: 40000 ns, At safepoint: 12000000 ns, Total: 12040000 ns",
      "[9.010s][1000000009000ms][gc       ] GC(2) Pause Young (Allocation Failure) 290M->16M(989M) 30.000ms",
      "[9.010s][1000000009000ms][safepoint] Safepoint \"GenCollectForAllocation\", Time since last: 1999000000 ns,"
          + " Reaching safepoint: 40000 ns, At safepoint: 30000000 ns, Total: 30040000 ns");

  @Test
  void when_aWindowIsGiven_then_onlyItsPausesCountAndAllocationIsEstimatedFromTheHeapBetweenCollections() {
    // The window holds the Cleanup safepoint and GC(1) (at 2 s and 3 s), not GC(0) nor GC(2).
    JvmPauses.Pauses p = JvmPauses.parse(LOG, 1000000001500L, 1000000008000L, 1000);
    assertEquals(2, p.count());
    assertEquals(12.07, p.totalMillis(), 1e-9);
    assertEquals(12.04, p.maxMillis(), 1e-9);
    // GC(1): 289 MB before it, 15 MB after GC(0) 2 s earlier: 137 MB/s; at 1,000 requests/s, 137 MB per request.
    assertEquals((289 - 15) * 1048576.0 / 2 / 1000, p.bytesPerRequest(), 1e-6);
    assertTrue(p.detail().startsWith("GenCollectForAllocation 1 x, 12.0 ms"), p.detail());
    assertTrue(p.detail().contains("Cleanup 1 x, 0.0 ms"), p.detail());
  }

  @Test
  void when_noCollectionFallsInTheWindow_then_theAllocationIsUnknownNotZero() {
    JvmPauses.Pauses p = JvmPauses.parse(LOG, 1000000001500L, 1000000002500L, 1000);
    assertEquals(1, p.count());
    assertTrue(Double.isNaN(p.bytesPerRequest()));
  }

  @Test
  void when_serversLogToADirectory_then_theirPausesAreAddedUp() throws Exception {
    assertNull(JvmPauses.servers(dir, 0, Long.MAX_VALUE, 1000), "no log, no figures");
    Files.write(dir.resolve("gc-server-101.log"), LOG);
    Files.write(dir.resolve("gc-server-102.log"), LOG);
    JvmPauses.Pauses both = JvmPauses.servers(dir, 0, Long.MAX_VALUE, 1000);
    assertEquals(8, both.count());
    assertEquals(2 * (20.15 + 0.03 + 12.04 + 30.04), both.totalMillis(), 1e-9);
    assertEquals(30.04, both.maxMillis(), 1e-9);
  }

  @Test
  void when_theResultsPathCannotBeAJvmOption_then_noLogOptionIsMade() {
    assertNull(JvmPauses.serverLogOptions(Path.of("/tmp/with space/x")));
    assertNull(JvmPauses.serverLogOptions(Path.of("/tmp/a:b")));
    String o = JvmPauses.serverLogOptions(Path.of("/tmp/results/x"));
    assertEquals("-Xlog:async -Xlog:gc,safepoint:file=/tmp/results/x/gc-server-%p.log:timemillis,uptime,tags", o);
  }

  @Test
  void when_thisJvmAllocates_then_theSampleCountsItPerRequest() {
    JvmPauses.Sample before = JvmPauses.Sample.now();
    byte[][] keep = new byte[100][];
    for (int i = 0; i < keep.length; i++) {
      keep[i] = new byte[10_000];
    }
    JvmPauses.Pauses p = JvmPauses.Sample.now().since(before, 100, Double.NaN);
    assertTrue(p.bytesPerRequest() >= 10_000, "at least the arrays: " + p.bytesPerRequest() + " " + keep.length);
  }
}
