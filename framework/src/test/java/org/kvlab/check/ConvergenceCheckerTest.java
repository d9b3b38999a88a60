package org.kvlab.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.kvlab.check.Verdicts.assertOnlyKinds;
import static org.kvlab.check.Verdicts.assertValid;
import static org.kvlab.check.Verdicts.assertViolation;

import org.junit.jupiter.api.Test;
import org.kvlab.history.History;

/** Convergence after quiescence (seed 003 Def 16). */
class ConvergenceCheckerTest {
  private final HistoryBuilder h = new HistoryBuilder();
  private final HistoryBuilder.Session dc0 = h.session(0, 0);
  private final HistoryBuilder.Session dc1 = h.session(1, 1);
  private final HistoryBuilder.Session dc0b = h.session(2, 0);
  private final HistoryBuilder.Session dc1b = h.session(3, 1);

  private Result check() {
    return new ConvergenceChecker().check(h.build());
  }

  @Test
  void when_concurrentWritesSettleOnOneWinnerEverywhere_then_valid() {
    dc0.put("x", "a");
    dc0.get("x", "a"); // before quiescence (the last PUT's completion): anything goes
    dc1.put("x", "b");
    dc0.get("x", "b");
    dc1.get("x", "b");
    dc0b.rotx("x", "b", "y", null);
    History history = h.build();
    assertValid(new ConvergenceChecker().check(history));
    assertValid(new CausalChecker().check(history));
  }

  @Test
  void when_twoDatacentersSettleOnDifferentWinners_then_divergenceIsReported() {
    dc0.put("x", "a");
    dc1.put("x", "b");
    long r0 = dc0.get("x", "a");
    long r1 = dc1.get("x", "b");
    Result r = check();
    assertViolation(r, ConvergenceChecker.DIVERGENT, r0, r1);
    assertOnlyKinds(r, ConvergenceChecker.DIVERGENT);
  }

  @Test
  void when_datacentersDivergeAndReadersSawBothOrders_then_causalReportsCyclicArbitrationToo() {
    long a = dc0.put("x", "a");
    long b = dc1.put("x", "b");
    dc0b.get("x", "b");
    long r0 = dc0b.get("x", "a"); // dc0 settles on a after showing b
    dc1b.get("x", "a");
    long r1 = dc1b.get("x", "b"); // dc1 settles on b after showing a
    History history = h.build();
    assertViolation(new ConvergenceChecker().check(history), ConvergenceChecker.DIVERGENT, r0, r1);
    assertViolation(new CausalChecker().check(history), CausalChecker.CYCLIC_CF, a, b, r0, r1);
  }

  @Test
  void when_aDatacenterStillChangesAfterTheQuiescenceTime_then_instabilityIsReported() {
    dc0.put("x", "a");
    dc1.at(20, 30).put("x", "b");
    long early = dc0.at(40, 45).get("x", "a");
    long late = dc0.at(50, 55).get("x", "b");
    Result r = new ConvergenceChecker(40).check(h.build());
    assertViolation(r, ConvergenceChecker.UNSTABLE, early, late);
  }

  @Test
  void when_theQuiescenceTimeIsGiven_then_earlierReadsAreIgnored() {
    dc0.at(0, 10).put("x", "a");
    dc1.at(0, 10).put("x", "b");
    long early0 = dc0.at(20, 25).get("x", "a"); // replication still in flight
    dc1.at(20, 25).get("x", "b");
    dc0.at(100, 105).get("x", "b");
    long final1 = dc1.at(100, 105).get("x", "b");
    History history = h.build();
    assertValid(new ConvergenceChecker(100).check(history));
    assertViolation(new ConvergenceChecker(15).check(history), ConvergenceChecker.DIVERGENT, early0, final1);
  }

  @Test
  void when_noQuiescenceTimeIsGiven_then_trailingWorkloadReadsDoNotCountOnlyTheLastReadPerDatacenter() {
    dc0.at(0, 10).put("x", "a");
    dc1.at(0, 10).put("x", "b");
    dc0.at(20, 25).get("x", "a"); // a trailing workload read racing replication
    dc0.at(100, 105).get("x", "b"); // the final readers
    dc1.at(100, 105).get("x", "b");
    History history = h.build();
    assertEquals(11, new ConvergenceChecker().quiescentFrom(history), "default: after the last PUT completed");
    assertValid(new ConvergenceChecker().check(history));
  }

  @Test
  void when_noQuiescenceTimeIsGivenAndTheLastReadsDisagree_then_divergenceIsReported() {
    dc0.at(0, 10).put("x", "a");
    dc1.at(0, 10).put("x", "b");
    dc0.at(20, 25).get("x", "b");
    long last0 = dc0.at(100, 105).get("x", "a");
    long last1 = dc1.at(100, 105).get("x", "b");
    Result r = new ConvergenceChecker().check(h.build());
    assertViolation(r, ConvergenceChecker.DIVERGENT, last0, last1);
    assertEquals(1, r.violations().size(), Verdicts.show(r));
  }

  @Test
  void when_everyoneAgreesOnAValueNobodyWrote_then_itIsReported() {
    dc0.put("x", "a");
    dc0.get("x", "zz");
    long r1 = dc1.get("x", "zz");
    assertViolation(check(), ConvergenceChecker.NEVER_WRITTEN, r1);
  }

  @Test
  void when_everyoneAgreesOnTheValueOfAFailedPut_then_itIsReported() {
    long failed = dc0.putFail("x", "a");
    dc0.get("x", "a");
    long r1 = dc1.get("x", "a");
    assertViolation(check(), ConvergenceChecker.NEVER_WRITTEN, r1, failed);
  }

  @Test
  void when_everyoneReadsNothingAlthoughAPutSucceeded_then_aLostWriteIsReported() {
    long put = dc0.put("x", "a");
    dc0.get("x", null);
    long r1 = dc1.get("x", null);
    assertViolation(check(), ConvergenceChecker.LOST_WRITE, r1, put);
  }

  @Test
  void when_nothingWasWrittenAndEveryoneReadsNothing_then_valid() {
    dc0.putInfo("x", "maybe"); // never observed: may not have happened
    dc0.get("x", null);
    dc1.get("x", null);
    dc1.get("y", null);
    assertValid(check());
  }

  @Test
  void when_everyoneSettlesOnACausallyOverwrittenValue_then_staleIsReported() {
    long a = dc0.put("x", "a");
    dc1.get("x", "a");
    long b = dc1.put("x", "b"); // overwrites a causally
    dc0.get("x", "a");
    long r1 = dc1.get("x", "a");
    History history = h.build();
    assertViolation(new ConvergenceChecker().requireCausalWinner().check(history), ConvergenceChecker.STALE, r1, a, b);
    assertValid(new ConvergenceChecker().check(history)); // by default: agreement on a written value suffices
  }

  @Test
  void when_noReadFollowsQuiescence_then_thereIsNothingToCheck() {
    dc0.put("x", "a");
    assertValid(check());
  }

  @Test
  void when_aPutThatFailsOrTimesOutLateFollowsDivergentFinalReads_then_divergenceIsStillReported() {
    dc0.at(0, 10).put("x", "a");
    dc1.at(0, 10).put("x", "b");
    long r0 = dc0.at(100, 105).get("x", "a"); // the datacenters settled on different values
    long r1 = dc1.at(100, 105).get("x", "b");
    dc0b.at(50, 5_000).putInfo("y", "lost?"); // invoked before the final reads, gave up long after them
    h.session(4, 1).at(60, 6_000).putFail("z", "no");
    History history = h.build();
    assertEquals(51, new ConvergenceChecker().quiescentFrom(history),
        "an INFO PUT counts from its invocation, a FAILed one not at all");
    Result r = new ConvergenceChecker().check(history);
    assertViolation(r, ConvergenceChecker.DIVERGENT, r0, r1);
    assertOnlyKinds(r, ConvergenceChecker.DIVERGENT);
  }

  @Test
  void when_finalReadsAreCompared_then_theVerdictSaysHowMany() {
    dc0.at(0, 10).put("x", "a");
    dc0.at(100, 105).get("x", "a");
    dc1.at(100, 105).rotx("x", "a", "y", null);
    Result r = new ConvergenceChecker().check(h.build());
    assertValid(r);
    assertEquals(false, r.vacuous());
    assertEquals("compared 3 final reads of 2 keys in 2 datacenters", r.note());
  }

  @Test
  void when_noReadFollowsTheLastWrite_then_theVerdictIsNothingToCompareNotOk() {
    dc0.at(0, 10).put("x", "a");
    dc1.at(5, 8).get("x", null); // before the write completed: not a final read
    Result r = new ConvergenceChecker().check(h.build());
    assertEquals(true, r.valid(), "no violation was found");
    assertEquals(true, r.vacuous(), "but nothing was compared");
    org.junit.jupiter.api.Assertions.assertTrue(r.note().startsWith("nothing to compare: no GET or ROTX completed after"
        + " the last write (10µs)") && r.note().contains("Fix: "), r.note());
    Result explicit = new ConvergenceChecker(1_000).check(h.build());
    org.junit.jupiter.api.Assertions.assertTrue(explicit.vacuous() && explicit.note().contains("at or after 1000µs"),
        explicit.note());
  }
}
