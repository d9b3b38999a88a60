package org.kvlab.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.kvlab.history.History;
import org.kvlab.history.HistoryFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hand-made good and bad transaction histories, written as history-file lines (so the strict loader reads them). */
class TxnCheckerTest {
  @TempDir
  Path dir;
  private final List<String> lines = new ArrayList<>();
  private int id;
  private long time = 10;

  /** An OK transaction: reads "k=v" (v "nil" = absent), writes "k=v", parts "p:ts:seq:k1+k2". */
  private TxnCheckerTest ok(int session, long ts, long tid, String reads, String writes, String... parts) {
    StringBuilder r = new StringBuilder();
    StringBuilder rk = new StringBuilder();
    for (String kv : split(reads)) {
      String[] a = kv.split("=");
      r.append(r.length() == 0 ? "" : ",").append('"').append(a[0]).append("\":")
          .append(a[1].equals("nil") ? "null" : "\"" + a[1] + "\"");
      rk.append(rk.length() == 0 ? "" : ",").append('"').append(a[0]).append('"');
    }
    String w = writes(writes);
    StringBuilder ps = new StringBuilder();
    for (String p : parts) {
      String[] a = p.split(":");
      StringBuilder keys = new StringBuilder();
      for (String k : a[3].split("\\+")) {
        keys.append(keys.length() == 0 ? "" : ",").append('"').append(k).append('"');
      }
      ps.append(ps.length() == 0 ? "" : ",").append("\"").append(a[0]).append("\":{\"ts\":").append(a[1])
          .append(",\"seq\":").append(a[2]).append(",\"keys\":[").append(keys).append("]}");
    }
    lines.add("{\"id\":" + id++ + ",\"session\":" + session + ",\"dc\":0,\"type\":\"TXN\",\"reads\":{" + r
        + "},\"txn\":{\"reads\":[" + rk + "],\"writes\":{" + w + "},\"ts\":" + ts + ",\"tid\":" + tid
        + ",\"applied\":{" + w + "},\"parts\":{" + ps + "}},\"invokeMicros\":" + time + ",\"completeMicros\":"
        + (time + 5) + ",\"outcome\":\"OK\"}");
    time += 10;
    return this;
  }

  private TxnCheckerTest info(int session, String writes) {
    lines.add("{\"id\":" + id++ + ",\"session\":" + session + ",\"dc\":0,\"type\":\"TXN\",\"txn\":{\"reads\":[],"
        + "\"writes\":{" + writes(writes) + "}},\"invokeMicros\":" + time + ",\"completeMicros\":" + (time + 5)
        + ",\"outcome\":\"INFO\",\"error\":\"timed out\"}");
    time += 10;
    return this;
  }

  private TxnCheckerTest get(int session, String key, String value) {
    lines.add("{\"id\":" + id++ + ",\"session\":" + session + ",\"dc\":0,\"type\":\"GET\",\"key\":\"" + key
        + "\",\"reads\":{\"" + key + "\":" + (value == null ? "null" : "\"" + value + "\"") + "},\"invokeMicros\":"
        + time + ",\"completeMicros\":" + (time + 5) + ",\"outcome\":\"OK\"}");
    time += 10;
    return this;
  }

  private static List<String> split(String s) {
    return s.isEmpty() ? List.of() : List.of(s.split(","));
  }

  private static String writes(String writes) {
    StringBuilder w = new StringBuilder();
    for (String kv : split(writes)) {
      String[] a = kv.split("=");
      w.append(w.length() == 0 ? "" : ",").append('"').append(a[0]).append("\":\"").append(a[1]).append('"');
    }
    return w.toString();
  }

  private Result check() throws Exception {
    Path f = dir.resolve("h" + System.nanoTime() + ".jsonl");
    Files.write(f, lines);
    History h = HistoryFiles.read(f);
    // the file round-trips: writing what was read gives the same operations
    Path g = dir.resolve("again.jsonl");
    HistoryFiles.write(h, g);
    assertEquals(h.operations(), HistoryFiles.read(g).operations());
    return new TxnChecker().check(h);
  }

  private static void assertOnly(Result r, String kind) {
    assertFalse(r.valid(), "expected a violation of " + kind);
    for (Violation v : r.violations()) {
      assertEquals(kind, v.kind(), v.explanation());
    }
  }

  /** Two partitions 0 {x} and 1 {y}; three transactions in (ts, tid) order, a final read of each key. */
  private TxnCheckerTest good() {
    return ok(1, 5, 1, "x=nil", "x=a,y=b", "0:5:1:x", "1:5:1:y")
        .ok(2, 5, 2, "y=b", "y=c", "1:5:2:y")
        .ok(1, 9, 3, "x=a,y=c", "x=d", "0:9:2:x", "1:9:3:y")
        .get(3, "x", "d").get(3, "y", "c");
  }

  @Test
  void when_everyPropertyHolds_then_theHistoryIsValid() throws Exception {
    Result r = good().check();
    assertTrue(r.valid(), r.violations().toString());
    assertTrue(r.note().contains("3 OK transactions") && r.note().contains("2 final reads"), r.note());
  }

  @Test
  void when_partitionsDisagreeOnTheTimestamp_then_timestampDisagreementIsReported() throws Exception {
    Result r = ok(1, 5, 1, "", "x=a,y=b", "0:5:1:x", "1:6:1:y").check();
    assertOnly(r, TxnChecker.TIMESTAMP);
    assertTrue(r.violations().get(0).explanation().contains("{0=5, 1=6}"), r.violations().toString());
  }

  @Test
  void when_aPartitionExecutesALaterTimestampFirst_then_orderAndReplayViolationsAreReported() throws Exception {
    // partition 1 runs ts 9 before ts 5 (what executing before the MEC gate produces)
    Result r = ok(1, 9, 1, "y=nil", "y=a", "1:9:1:y").ok(2, 5, 2, "y=a", "y=b", "1:5:2:y").check();
    assertFalse(r.valid());
    assertTrue(r.violations().stream().anyMatch(v -> v.kind().equals(TxnChecker.ORDER)), r.violations().toString());
    assertTrue(r.violations().stream().anyMatch(v -> v.kind().equals(TxnChecker.REPLAY)), r.violations().toString());
  }

  @Test
  void when_twoPartitionsOrderTwoTransactionsOppositely_then_aCycleIsReported() throws Exception {
    // A before B at partition 0, B before A at partition 1 (with timestamps that differ per partition, so that
    // each partition's own sequence is in (ts, tid) order)
    Result r = ok(1, 5, 1, "", "x=a,y=a", "0:5:1:x", "1:7:2:y").ok(2, 6, 2, "", "x=b,y=b", "0:6:2:x", "1:6:1:y")
        .check();
    assertTrue(r.violations().stream().anyMatch(v -> v.kind().equals(TxnChecker.CYCLE)), r.violations().toString());
    assertTrue(r.violations().stream().noneMatch(v -> v.kind().equals(TxnChecker.ORDER)), r.violations().toString());
  }

  @Test
  void when_aKeyIsNotExecutedAnywhere_then_lostIsReported() throws Exception {
    assertOnly(ok(1, 5, 1, "", "x=a,y=b", "0:5:1:x").check(), TxnChecker.LOST);
  }

  @Test
  void when_twoTransactionsShareAPosition_then_duplicateIsReported() throws Exception {
    Result r = ok(1, 5, 1, "", "x=a", "0:5:1:x").ok(2, 6, 2, "", "x=b", "0:6:1:x").check();
    assertOnly(r, TxnChecker.LOST);
    assertTrue(r.violations().get(0).explanation().contains("position 1 to two"), r.violations().toString());
  }

  @Test
  void when_aPartitionHasMoreExecutionsThanTransactions_then_aPhantomIsReported() throws Exception {
    // positions 1 and 3: one execution (2) belongs to no transaction, and none has an unknown outcome
    assertOnly(ok(1, 5, 1, "", "x=a", "0:5:1:x").ok(2, 6, 2, "", "x=b", "0:6:3:x").check(), TxnChecker.LOST);
  }

  @Test
  void when_aGapIsExplainedByAnUnknownTransaction_then_itIsNotAViolation() throws Exception {
    Result r = ok(1, 5, 1, "", "x=a", "0:5:1:x").info(2, "x=z").ok(1, 8, 3, "x=z", "x=c", "0:8:3:x").check();
    assertTrue(r.valid(), r.violations().toString());
  }

  @Test
  void when_aReadSeesAStaleValue_then_replayIsReported() throws Exception {
    Result r = ok(1, 5, 1, "", "x=a", "0:5:1:x").ok(2, 6, 2, "", "x=b", "0:6:2:x")
        .ok(1, 7, 3, "x=a", "", "0:7:3:x").check();
    assertOnly(r, TxnChecker.REPLAY);
  }

  @Test
  void when_theFinalStateDiffersFromTheReplay_then_replayIsReported() throws Exception {
    Result r = ok(1, 5, 1, "", "x=a", "0:5:1:x").ok(2, 6, 2, "", "x=b", "0:6:2:x").get(3, "x", "a").check();
    assertOnly(r, TxnChecker.REPLAY);
    assertTrue(r.violations().get(0).explanation().startsWith("final read"), r.violations().toString());
  }

  @Test
  void when_aProcedureAppliedTheWrongValue_then_replayIsReported() throws Exception {
    lines.add("{\"id\":0,\"session\":1,\"dc\":0,\"type\":\"TXN\",\"reads\":{\"x\":\"4\"},\"txn\":{\"reads\":[\"x\"],"
        + "\"writes\":{},\"procedure\":\"add\",\"args\":[\"1\"],\"ts\":3,\"tid\":1,\"applied\":{\"x\":\"6\"},"
        + "\"parts\":{\"0\":{\"ts\":3,\"seq\":1,\"keys\":[\"x\"]}}},\"invokeMicros\":1,\"completeMicros\":2,"
        + "\"outcome\":\"OK\"}");
    assertOnly(check(), TxnChecker.REPLAY); // reads 4 where the replay has nil, and 4 + 1 is not 6
  }

  @Test
  void when_noTransactionCompleted_then_theVerdictIsVacuous() throws Exception {
    Result r = get(1, "x", null).check();
    assertTrue(r.valid() && r.vacuous(), r.toString());
  }

  @Test
  void when_aTxnLineIsMalformed_then_theLoaderNamesTheFieldAndTheForm() throws Exception {
    lines.add("{\"id\":0,\"session\":1,\"dc\":0,\"type\":\"TXN\",\"reads\":{},\"txn\":{\"reads\":[],\"writes\":"
        + "{\"x\":\"a\"}},\"invokeMicros\":1,\"completeMicros\":2,\"outcome\":\"OK\"}");
    Path f = dir.resolve("bad.jsonl");
    Files.write(f, lines);
    Exception e = assertThrows(java.io.IOException.class, () -> HistoryFiles.read(f));
    assertTrue(e.getMessage().contains(":1: an OK TXN needs \"txn.ts\"") && e.getMessage().contains("Expected e.g."),
        e.getMessage());
    lines.clear();
    lines.add("{\"id\":0,\"session\":1,\"dc\":0,\"type\":\"TXN\",\"key\":\"x\",\"txn\":{\"reads\":[],\"writes\":"
        + "{\"x\":\"a\"}},\"invokeMicros\":1,\"completeMicros\":2,\"outcome\":\"INFO\"}");
    Files.write(f, lines);
    e = assertThrows(java.io.IOException.class, () -> HistoryFiles.read(f));
    assertTrue(e.getMessage().contains("a TXN has no \"key\""), e.getMessage());
    lines.clear();
    lines.add("{\"id\":0,\"session\":1,\"dc\":0,\"type\":\"GET\",\"key\":\"x\",\"reads\":{\"x\":null},\"txn\":{},"
        + "\"invokeMicros\":1,\"completeMicros\":2,\"outcome\":\"OK\"}");
    Files.write(f, lines);
    e = assertThrows(java.io.IOException.class, () -> HistoryFiles.read(f));
    assertTrue(e.getMessage().contains("only a TXN has \"txn\""), e.getMessage());
  }
}
