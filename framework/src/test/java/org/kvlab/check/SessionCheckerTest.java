package org.kvlab.check;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.kvlab.check.Verdicts.assertCount;
import static org.kvlab.check.Verdicts.assertOnlyKinds;
import static org.kvlab.check.Verdicts.assertValid;
import static org.kvlab.check.Verdicts.assertViolation;

import org.junit.jupiter.api.Test;
import org.kvlab.history.History;

/** Per-key session guarantees (seed 003 Defs 4–7). */
class SessionCheckerTest {
  private final SessionChecker session = new SessionChecker();
  private final HistoryBuilder h = new HistoryBuilder();
  private final HistoryBuilder.Session alice = h.session(0, 0);
  private final HistoryBuilder.Session bob = h.session(1, 1);
  private final HistoryBuilder.Session carol = h.session(2, 0);
  private final HistoryBuilder.Session dave = h.session(3, 1);

  private Result check() {
    return session.check(h.build());
  }

  // ---- read-your-writes (Def 5) ----

  @Test
  void when_aSessionDoesNotSeeItsOwnWrite_then_readYourWritesIsReported() {
    long put = alice.put("x", "a");
    long read = alice.get("x", null);
    Result r = check();
    assertViolation(r, SessionChecker.READ_YOUR_WRITES, read, put);
    assertCount(r, SessionChecker.READ_YOUR_WRITES, 1);
  }

  @Test
  void when_aSessionSeesItsOlderWrite_then_readYourWritesIsReported() {
    long first = alice.put("x", "a");
    long second = alice.put("x", "b");
    long read = alice.get("x", "a");
    assertViolation(check(), SessionChecker.READ_YOUR_WRITES, read, second, first);
  }

  @Test
  void when_aSessionSeesAValueItHadOverwrittenAfterReadingIt_then_readYourWritesIsReported() {
    long a = bob.put("x", "a");
    alice.get("x", "a");
    long b = alice.put("x", "b");
    long read = alice.get("x", "a");
    assertViolation(check(), SessionChecker.READ_YOUR_WRITES, read, b, a);
  }

  @Test
  void when_aSessionSeesAConcurrentWriteInsteadOfItsOwn_then_valid() {
    alice.put("x", "a");
    bob.put("x", "b"); // concurrent; may win
    alice.get("x", "b");
    assertValid(check());
  }

  @Test
  void when_theOwnWriteIsInfo_then_notSeeingItIsValid() {
    alice.putInfo("x", "a");
    alice.get("x", null);
    assertValid(check());
  }

  // ---- monotonic reads (Def 4) ----

  @Test
  void when_aSessionReadsNothingAfterReadingAValue_then_monotonicReadsIsReported() {
    long put = bob.put("x", "a");
    long first = alice.get("x", "a");
    long second = alice.get("x", null);
    assertViolation(check(), SessionChecker.MONOTONIC_READS, second, first, put);
  }

  @Test
  void when_aSessionGoesBackAlongAChainOfOtherSessionsWrites_then_monotonicReadsIsReported() {
    long a = alice.put("x", "a");
    bob.get("x", "a");
    long b = bob.put("x", "b"); // a ≺ b (bob read a first)
    carol.get("x", "b");
    long c = carol.put("x", "c"); // b ≺ c
    long readC = dave.get("x", "c");
    long readA = dave.get("x", "a"); // a ≺ c, but c's writer never read a and did not write it: MR only
    Violation v = assertViolation(check(), SessionChecker.MONOTONIC_READS, readA, a, c, readC);
    assertTrue(v.explanation().contains("#" + b + " "), "the chain a ≺ b ≺ c is shown: " + v.explanation());
  }

  @Test
  void when_aSessionReadsConcurrentValuesInEitherOrder_then_valid() {
    alice.put("x", "a");
    bob.put("x", "b");
    carol.get("x", "b");
    carol.get("x", "a");
    dave.get("x", "a");
    dave.get("x", "b");
    assertValid(check());
  }

  // ---- monotonic writes (Def 6) ----

  @Test
  void when_aReaderSeesTheSecondWriteThenTheFirst_then_monotonicWritesIsReported() {
    long first = alice.put("password", "p1");
    long second = alice.put("password", "p2");
    long readSecond = bob.get("password", "p2");
    long readFirst = bob.get("password", "p1");
    Result r = check();
    Violation v = assertViolation(r, SessionChecker.MONOTONIC_WRITES, readFirst, first, second, readSecond);
    assertTrue(v.explanation().contains(SessionChecker.MONOTONIC_READS), "also names MR: " + v.explanation());
    assertOnlyKinds(r, SessionChecker.MONOTONIC_WRITES);
  }

  // ---- writes follow reads (Def 7) ----

  @Test
  void when_aReaderSeesAnAppendThenTheVersionItAppendedTo_then_writesFollowReadsIsReported() {
    long v1 = alice.put("doc", "line1");
    long bobsRead = bob.get("doc", "line1");
    bob.get("doc", "line1");
    long v2 = bob.put("doc", "line1+line2");
    long readV2 = carol.get("doc", "line1+line2");
    long readV1 = carol.get("doc", "line1");
    Result r = check();
    Violation v = assertViolation(r, SessionChecker.WRITES_FOLLOW_READS, readV1, v1, v2, readV2);
    assertTrue(v.operations().contains(bobsRead), "names bob's read of line1: " + v);
    assertOnlyKinds(r, SessionChecker.WRITES_FOLLOW_READS);
  }

  // ---- per key, not causal ----

  @Test
  void when_anOrderComesOnlyThroughAnotherKey_then_itIsNotASessionViolation() {
    alice.put("x", "a");
    alice.put("y", "b");
    bob.get("y", "b");
    bob.put("x", "c"); // a → c only through y: per-key guarantees do not order them
    carol.get("x", "c");
    carol.get("x", "a");
    History history = h.build();
    assertValid(session.check(history));
    assertViolation(new CausalChecker().check(history), CausalChecker.WRITE_CO_READ, 5, 0, 3);
  }

  @Test
  void when_rotxReadsAreStale_then_theyCountAsReads() {
    long put = alice.put("x", "a");
    long read = alice.rotx("x", null, "y", null);
    assertViolation(check(), SessionChecker.READ_YOUR_WRITES, read, put);
  }

  @Test
  void when_aSessionReadsItsOwnFutureWrite_then_theCycleIsReported() {
    long read = alice.get("x", "a");
    long write = alice.put("x", "a");
    assertViolation(check(), SessionChecker.CYCLIC, read, write);
  }

  @Test
  void when_everyGuaranteeHolds_then_valid() {
    alice.put("x", "a");
    alice.get("x", "a");
    bob.get("x", "a");
    bob.put("x", "b");
    bob.get("x", "b");
    alice.get("x", "b");
    alice.put("x", "c");
    bob.get("x", "c");
    carol.get("x", null);
    carol.get("x", "c");
    assertValid(check());
  }
}
