package org.kvlab.check.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.kvlab.check.Result;
import org.kvlab.check.Violation;
import org.kvlab.history.Operation.Outcome;

/**
 * Teeth: for every anomaly a hand-made history that must be caught, and a minimally different twin that must pass.
 * Transactions are written as micro-operations ({@link TxnHistory#builder}); each one at its own time unless said.
 */
class SerializabilityCheckerTest {
  private TxnHistory.Builder b = TxnHistory.builder(TxnHistory.Model.LIST_APPEND);
  private long time = 10;

  /** A transaction of session {@code s} that ran from {@code time} to {@code time + 5}, then time moves on. */
  private TxnHistory.Builder t(long id, int s, Outcome outcome) {
    time += 10;
    return b.txn(id, s, time, time + 5, outcome);
  }

  private TxnHistory.Builder ok(long id) {
    return t(id, (int) id, Outcome.OK);
  }

  private static Set<String> kinds(Result r) {
    Set<String> out = new TreeSet<>();
    for (Violation v : r.violations()) {
      out.add(v.kind());
    }
    return out;
  }

  private static Result serializable(TxnHistory h) {
    return SerializabilityChecker.serializable().check(h);
  }

  private static Result strict(TxnHistory h) {
    return SerializabilityChecker.strictSerializable().check(h);
  }

  private static void caught(Result r, String kind) {
    assertFalse(r.valid(), "must be caught: " + r);
    assertTrue(kinds(r).contains(kind), "expected " + kind + ", got " + r.violations());
  }

  private static void passes(Result r) {
    assertTrue(r.valid(), "must pass: " + r.violations());
  }

  // G0: x says T1 before T2, y says T2 before T1

  private TxnHistory g0(long[] y) {
    ok(1).append("x", 1).append("y", 1);
    ok(2).append("x", 2).append("y", 2);
    ok(3).read("x", 1, 2).read("y", y);
    return b.build();
  }

  @Test
  void when_twoKeysOrderTwoAppendsOppositely_then_G0() {
    Result r = serializable(g0(new long[] {2, 1}));
    caught(r, SerializabilityChecker.G0);
    Violation v = r.violations().stream().filter(x -> x.kind().equals("G0")).findFirst().orElseThrow();
    assertEquals(Set.of(1L, 2L), Set.copyOf(v.operations()));
    assertTrue(v.explanation().contains("#2 -ww-> #1") && v.explanation().contains("on y, #1 appended 1 right after"
        + " #2's 2"), v.explanation());
  }

  @Test
  void when_bothKeysAgree_then_noG0() {
    passes(serializable(g0(new long[] {1, 2})));
  }

  // G1c: each transaction read the other's append

  private TxnHistory g1c(long... t2ReadOfX) {
    ok(1).read("y", 2).append("x", 1);
    ok(2).read("x", t2ReadOfX).append("y", 2);
    ok(3).read("x", 1).read("y", 2);
    return b.build();
  }

  @Test
  void when_eachReadsTheOthersWrite_then_G1c() {
    Result r = serializable(g1c(1));
    caught(r, SerializabilityChecker.G1C);
    assertTrue(r.violations().get(0).explanation().contains("-wr->"), r.violations().get(0).explanation());
  }

  @Test
  void when_onlyOneReadsTheOther_then_noG1c() {
    passes(serializable(g1c()));
  }

  // G-single: T2 sees T1's append to y but not its append to x

  private TxnHistory readSkew(long... t2ReadOfX) {
    ok(1).read("x").read("y").append("x", 1).append("y", 1);
    ok(2).read("x", t2ReadOfX).read("y", 1);
    ok(3).read("x", 1).read("y", 1);
    return b.build();
  }

  @Test
  void when_aReaderSeesHalfOfATransaction_then_GSingle() {
    Result r = serializable(readSkew());
    caught(r, SerializabilityChecker.G_SINGLE);
    String e = r.violations().get(0).explanation();
    assertTrue(e.contains("#2 -rw-> #1: #2 read x=[], and #1 appended the next element, 1")
        && e.contains("#1 -wr-> #2: #2 read y=[1], whose last element #1 appended"), e);
  }

  @Test
  void when_aReaderSeesAllOfATransaction_then_noGSingle() {
    passes(serializable(readSkew(1)));
  }

  // G2-item: write skew, each appends after reading the other's key empty

  private TxnHistory writeSkew(long... t2ReadOfX) {
    ok(1).read("x").read("y").append("x", 1);
    ok(2).read("x", t2ReadOfX).read("y").append("y", 2);
    ok(3).read("x", 1).read("y", 2);
    return b.build();
  }

  @Test
  void when_twoTransactionsMissEachOthersWrite_then_G2item() {
    Result r = serializable(writeSkew());
    caught(r, SerializabilityChecker.G2_ITEM);
    assertEquals(Set.of(SerializabilityChecker.G2_ITEM), kinds(r));
  }

  @Test
  void when_oneSeesTheOthersWrite_then_noG2item() {
    passes(serializable(writeSkew(1)));
  }

  // G1a: a failed transaction's append is read

  private TxnHistory abortedRead(Outcome writer) {
    t(1, 1, writer).append("x", 1);
    ok(2).read("x", 1);
    return b.build();
  }

  @Test
  void when_aFailedAppendIsRead_then_G1a() {
    Result r = serializable(abortedRead(Outcome.FAIL));
    caught(r, SerializabilityChecker.G1A);
    assertEquals(List.of(1L, 2L), r.violations().get(0).operations());
  }

  @Test
  void when_theAppendsOutcomeWasUnknown_then_readingItIsFine() {
    passes(strict(abortedRead(Outcome.INFO)));
  }

  // G1b: a read of a list ending in the first of two appends of one transaction

  private TxnHistory intermediateRead(long... t2Read) {
    ok(1).append("x", 1).append("x", 2);
    ok(2).read("x", t2Read);
    ok(3).read("x", 1, 2);
    return b.build();
  }

  @Test
  void when_aReadEndsBetweenTwoAppendsOfOneTransaction_then_G1b() {
    caught(serializable(intermediateRead(1)), SerializabilityChecker.G1B);
  }

  @Test
  void when_aReadEndsAfterBothAppends_then_noG1b() {
    passes(serializable(intermediateRead(1, 2)));
  }

  // lost update: two transactions read the same list and both append

  private TxnHistory lostUpdate(long... t2Read) {
    ok(1).read("x").append("x", 1);
    ok(2).read("x", t2Read).append("x", 2);
    ok(3).read("x", 1, 2);
    return b.build();
  }

  @Test
  void when_twoAppendersReadTheSameList_then_lostUpdate() {
    Result r = serializable(lostUpdate());
    caught(r, SerializabilityChecker.LOST_UPDATE);
    assertTrue(kinds(r).contains(SerializabilityChecker.G_SINGLE), "also a cycle: " + r.violations());
  }

  @Test
  void when_theSecondAppenderReadTheFirstsAppend_then_noLostUpdate() {
    passes(serializable(lostUpdate(1)));
  }

  // internal inconsistency: a read that misses the transaction's own earlier append

  @Test
  void when_aTransactionMissesItsOwnAppend_then_internal() {
    ok(1).append("x", 1).read("x");
    caught(serializable(b.build()), SerializabilityChecker.INTERNAL);
  }

  @Test
  void when_aTransactionSeesItsOwnAppend_then_notInternal() {
    ok(1).append("x", 1).read("x", 1);
    passes(serializable(b.build()));
  }

  @Test
  void when_aOneShotReadHoldsItsOwnLaterAppend_then_internal() {
    ok(1).read("x", 1).append("x", 1);
    caught(serializable(b.build()), SerializabilityChecker.INTERNAL);
  }

  // incompatible order: two reads of x that are not prefixes of each other

  private TxnHistory incompatible(long... t5Read) {
    ok(1).append("x", 1);
    ok(2).append("x", 2);
    ok(3).append("x", 3);
    ok(4).read("x", 1, 2);
    ok(5).read("x", t5Read);
    return b.build();
  }

  @Test
  void when_twoReadsDivergeAfterACommonPrefix_then_incompatibleOrder() {
    Result r = serializable(incompatible(1, 3));
    caught(r, SerializabilityChecker.INCOMPATIBLE_ORDER);
    assertEquals(List.of(4L, 5L), r.violations().get(0).operations());
  }

  @Test
  void when_oneReadExtendsTheOther_then_compatible() {
    passes(serializable(incompatible(1, 2, 3)));
  }

  // garbage and duplicates

  @Test
  void when_aListHoldsAnElementNobodyAppended_then_garbageRead() {
    ok(1).append("x", 1);
    ok(2).read("x", 1, 9);
    caught(serializable(b.build()), SerializabilityChecker.GARBAGE_READ);
  }

  @Test
  void when_aListHoldsAnElementTwice_then_duplicate() {
    ok(1).append("x", 1);
    ok(2).read("x", 1, 1);
    caught(serializable(b.build()), SerializabilityChecker.DUPLICATE_ELEMENT);
  }

  // strict serializability: real-time order closes a cycle serializability allows

  private TxnHistory stale(long readerInvoked) {
    b = TxnHistory.builder(TxnHistory.Model.LIST_APPEND);
    b.txn(1, 1, 10, 20, Outcome.OK).append("x", 1);
    b.txn(2, 2, readerInvoked, 40, Outcome.OK).read("x");
    b.txn(3, 3, 50, 60, Outcome.OK).read("x", 1);
    return b.build();
  }

  @Test
  void when_aReadInvokedAfterAnAppendCompletedMissesIt_then_notStrictButSerializable() {
    passes(serializable(stale(30)));
    Result r = strict(stale(30));
    caught(r, SerializabilityChecker.G_SINGLE + "-realtime");
    assertTrue(r.violations().get(0).explanation().contains("#1 completed at 20µs, before #2 was invoked at 30µs"),
        r.violations().get(0).explanation());
  }

  @Test
  void when_theReadWasConcurrentWithTheAppend_then_strictPasses() {
    passes(strict(stale(15)));
  }

  @Test
  void when_aSessionMissesItsOwnEarlierAppend_then_notStrict() {
    b.txn(1, 7, 10, 20, Outcome.OK).append("x", 1);
    b.txn(2, 7, 20, 40, Outcome.OK).read("x"); // invoked when #1 completed: only session order says #1 came first
    b.txn(3, 3, 50, 60, Outcome.OK).read("x", 1);
    caught(strict(b.build()), SerializabilityChecker.G_SINGLE + "-process");
  }

  // rw-register

  @Test
  void when_registerReadSkew_then_GSingle() {
    b = TxnHistory.builder(TxnHistory.Model.RW_REGISTER);
    ok(1).readValue("x", null).readValue("y", null).write("x", "a").write("y", "b");
    ok(2).readValue("x", null).readValue("y", "b");
    caught(serializable(b.build()), SerializabilityChecker.G_SINGLE);
  }

  @Test
  void when_registerReadsAreConsistent_then_passes() {
    b = TxnHistory.builder(TxnHistory.Model.RW_REGISTER);
    ok(1).readValue("x", null).readValue("y", null).write("x", "a").write("y", "b");
    ok(2).readValue("x", "a").readValue("y", "b");
    passes(strict(b.build()));
  }

  @Test
  void when_registerLostUpdate_then_caught() {
    b = TxnHistory.builder(TxnHistory.Model.RW_REGISTER);
    ok(1).readValue("x", null).write("x", "a");
    ok(2).readValue("x", null).write("x", "b");
    caught(serializable(b.build()), SerializabilityChecker.LOST_UPDATE);
  }

  @Test
  void when_registerIntermediateAndFailedReads_then_G1bAndG1a() {
    b = TxnHistory.builder(TxnHistory.Model.RW_REGISTER);
    ok(1).write("x", "a").write("x", "b");
    t(2, 2, Outcome.FAIL).write("y", "c");
    ok(3).readValue("x", "a").readValue("y", "c");
    Result r = serializable(b.build());
    assertEquals(Set.of(SerializabilityChecker.G1A, SerializabilityChecker.G1B), kinds(r));
  }

  @Test
  void when_registerReadMissesOwnWrite_then_internal() {
    b = TxnHistory.builder(TxnHistory.Model.RW_REGISTER);
    ok(1).write("x", "a").readValue("x", null);
    caught(serializable(b.build()), SerializabilityChecker.INTERNAL);
  }

  @Test
  void when_aValueIsWrittenTwice_then_theHistoryIsRefusedAsNotUnique() {
    b = TxnHistory.builder(TxnHistory.Model.RW_REGISTER);
    ok(1).write("x", "a");
    ok(2).write("x", "a");
    caught(serializable(b.build()), SerializabilityChecker.NOT_UNIQUE);
  }

  // history files: a protocol without ordering metadata writes parts {}; only the black-box checkers judge it

  private static String line(int id, int session, String reads, String args, String applied, long at) {
    return "{\"id\":" + id + ",\"session\":" + session + ",\"dc\":0,\"type\":\"TXN\",\"reads\":{" + reads
        + "},\"txn\":{\"reads\":[\"x\",\"y\"],\"writes\":{}" + (args.isEmpty() ? "" : ",\"procedure\":\"append\","
        + "\"args\":[" + args + "]") + ",\"ts\":0,\"tid\":0,\"applied\":{" + applied + "},\"parts\":{}},"
        + "\"invokeMicros\":" + at + ",\"completeMicros\":" + (at + 5) + ",\"outcome\":\"OK\"}";
  }

  private static Result fromFile(java.nio.file.Path dir, String t2ReadOfX, String checker) throws Exception {
    java.nio.file.Path f = dir.resolve("h.jsonl");
    java.nio.file.Files.write(f, List.of(
        line(1, 1, "\"x\":null,\"y\":null", "\"1\",\"x\",\"y\"", "\"x\":\"1\",\"y\":\"1\"", 10),
        line(2, 2, "\"x\":" + t2ReadOfX + ",\"y\":\"1\"", "", "", 20),
        line(3, 3, "\"x\":\"1\",\"y\":\"1\"", "", "", 30)));
    return org.kvlab.check.Checkers.byName(checker).check(org.kvlab.history.HistoryFiles.read(f));
  }

  @Test
  void when_aHistoryFileWithoutMetadataShowsReadSkew_then_serializableCatchesItAndTxnHasNothingToAudit(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    Result r = fromFile(dir, "null", SerializabilityChecker.SERIALIZABLE);
    caught(r, SerializabilityChecker.G_SINGLE);
    assertEquals(List.of(2L, 1L), r.violations().get(0).operations());
    assertFalse(r.violations().get(0).explanation().contains("@ts"), "no metadata shown");
    Result txn = fromFile(dir, "null", org.kvlab.check.TxnChecker.NAME);
    assertTrue(txn.vacuous() && txn.note().contains("--check serializable"), txn.note());
  }

  @Test
  void when_theHistoryFileShowsAConsistentRead_then_serializablePasses(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path dir) throws Exception {
    passes(fromFile(dir, "\"1\"", SerializabilityChecker.STRICT));
  }

  @Test
  void when_aReadReturnsWhatALeftOutProcedureWrote_then_itIsNoGarbage_butAnUnwrittenValueIs() {
    java.util.Map<String, java.util.Optional<com.google.protobuf.ByteString>> one = java.util.Map.of("x",
        java.util.Optional.of(com.google.protobuf.ByteString.copyFromUtf8("1")));
    org.kvlab.api.TxnRequest add = org.kvlab.api.TxnRequest.procedure("add", List.of("x"), "1");
    List<org.kvlab.history.Operation> ops = new java.util.ArrayList<>(List.of(
        new org.kvlab.history.Operation(1, 1, 0, org.kvlab.history.Operation.Type.TXN, null, null,
            java.util.Map.of("x", java.util.Optional.empty()), 10, 20, Outcome.OK, null,
            new org.kvlab.history.Operation.Txn(add, null)),
        new org.kvlab.history.Operation(2, 2, 0, org.kvlab.history.Operation.Type.GET, "x", null, one, 30, 40,
            Outcome.OK, null)));
    Result r = SerializabilityChecker.serializable().check(new org.kvlab.history.History(ops));
    passes(r);
    assertTrue(r.note().contains("left out 1 operations"), r.note());
    ops.remove(0);
    caught(SerializabilityChecker.serializable().check(new org.kvlab.history.History(ops)),
        SerializabilityChecker.GARBAGE_READ);
  }

  @Test
  void when_twoReadsReturnTheSameValueOfLeftOutProcedures_then_theyAreNotOneVersion_soNoLostUpdate() {
    java.util.Map<String, java.util.Optional<com.google.protobuf.ByteString>> one = java.util.Map.of("x",
        java.util.Optional.of(com.google.protobuf.ByteString.copyFromUtf8("1")));
    org.kvlab.api.TxnRequest add = org.kvlab.api.TxnRequest.procedure("add", List.of("x"), "1");
    List<org.kvlab.history.Operation> ops = new java.util.ArrayList<>();
    for (int i = 0; i < 2; i++) { // add(1) on an absent x writes "1"; then a transaction reads "1" and overwrites x
      ops.add(new org.kvlab.history.Operation(4 * i, 1, 0, org.kvlab.history.Operation.Type.TXN, null, null,
          java.util.Map.of("x", java.util.Optional.empty()), 100 * i, 100 * i + 10, Outcome.OK, null,
          new org.kvlab.history.Operation.Txn(add, null)));
      ops.add(new org.kvlab.history.Operation(4 * i + 1, 2, 0, org.kvlab.history.Operation.Type.TXN, null, null, one,
          100 * i + 20, 100 * i + 30, Outcome.OK, null, new org.kvlab.history.Operation.Txn(org.kvlab.api.TxnRequest
          .of(List.of("x"), java.util.Map.of("x", com.google.protobuf.ByteString.copyFromUtf8("w" + i))), null)));
    }
    passes(SerializabilityChecker.strictSerializable().check(new org.kvlab.history.History(ops)));
  }

  // generated histories: a correct store passes, one that loses appends is caught

  @Test
  void when_aCorrectStoreRunsManyConcurrentTransactions_then_strictSerializablePasses() {
    Result r = SerializabilityChecker.strictSerializable().check(AppendHistories.generate(1, 5_000, 8, 10, 12, 4,
        0.4, 0.05, 0.05, 0));
    passes(r);
    assertTrue(r.note().startsWith("checked 5000 transactions (list-append"), r.note());
  }

  @Test
  void when_theStoreReadsStaleLists_then_cyclesAreFoundAndEachIsExplainedEdgeByEdge() {
    Result r = SerializabilityChecker.serializable().check(AppendHistories.generate(2, 20_000, 8, 50, 12, 4, 0.5,
        0.01, 0.01, 0, 0.02));
    assertFalse(r.valid());
    assertTrue(kinds(r).contains(SerializabilityChecker.G_SINGLE) || kinds(r).contains(SerializabilityChecker.G2_ITEM),
        kinds(r).toString());
    for (Violation v : r.violations()) {
      if (v.kind().startsWith("G-single") || v.kind().startsWith("G2")) {
        int edges = v.explanation().split(" -(ww|wr|rw)-> ").length - 1;
        assertEquals(v.operations().size(), edges, "one explained edge per transaction of the cycle: " + v);
        assertFalse(v.explanation().contains(" precedes "), "every edge has its reason: " + v);
      }
    }
  }

  @Test
  void when_theStoreLosesAppends_then_caught() {
    Result r = SerializabilityChecker.serializable().check(AppendHistories.generate(1, 5_000, 8, 10, 12, 4, 0.4,
        0.05, 0.05, 0.01));
    assertFalse(r.valid());
    assertTrue(kinds(r).contains(SerializabilityChecker.LOST_UPDATE), kinds(r).toString());
  }
}
