package org.kvlab.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.kvlab.check.Verdicts.assertOnlyKinds;
import static org.kvlab.check.Verdicts.assertValid;
import static org.kvlab.check.Verdicts.assertViolation;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Single-key register linearizability (WGL search with memoisation). */
class LinearizabilityCheckerTest {
  private final LinearizabilityChecker lin = new LinearizabilityChecker();
  private final HistoryBuilder h = new HistoryBuilder();
  private final HistoryBuilder.Session s0 = h.session(0, 0);
  private final HistoryBuilder.Session s1 = h.session(1, 1);
  private final HistoryBuilder.Session s2 = h.session(2, 0);

  private Result check() {
    return lin.check(h.build());
  }

  @Test
  void when_readsSeeTheLatestCompletedWrite_then_linearizable() {
    s0.at(0, 10).put("x", "1");
    s1.at(20, 30).get("x", "1");
    s0.at(40, 50).put("x", "2");
    s1.at(60, 70).get("x", "2");
    s2.at(60, 70).get("y", null);
    assertValid(check());
  }

  @Test
  void when_aReadOverlapsAWrite_then_itMaySeeEitherValue() {
    s0.at(0, 10).put("x", "1");
    s0.at(20, 60).put("x", "2");
    s1.at(30, 40).get("x", "2"); // the write took effect before this read…
    s2.at(30, 40).get("x", "1"); // …and after this one: fine, the reads overlap
    assertValid(check());
  }

  @Test
  void when_aReadReturnsAnOverwrittenValue_then_notLinearizable() {
    long one = s0.at(0, 10).put("x", "1");
    long two = s0.at(20, 30).put("x", "2");
    long stale = s1.at(40, 50).get("x", "1");
    Result r = check();
    assertViolation(r, LinearizabilityChecker.NOT_LINEARIZABLE, stale, two, one);
    assertOnlyKinds(r, LinearizabilityChecker.NOT_LINEARIZABLE);
  }

  @Test
  void when_valuesAreSeenInTwoOrders_then_notLinearizable() {
    s0.at(0, 100).put("x", "a");
    s1.at(0, 100).put("x", "b");
    s2.at(110, 120).get("x", "a");
    s2.at(130, 140).get("x", "b");
    h.session(3, 1).at(110, 120).get("x", "b");
    h.session(3, 1).at(130, 140).get("x", "a");
    assertViolation(check(), LinearizabilityChecker.NOT_LINEARIZABLE);
  }

  @Test
  void when_aReadSeesAWriteInvokedAfterItCompleted_then_notLinearizable() {
    long read = s1.at(0, 10).get("x", "1");
    long put = s0.at(20, 30).put("x", "1");
    assertViolation(check(), LinearizabilityChecker.NOT_LINEARIZABLE, read, put);
  }

  @Test
  void when_anInfoWriteTakesEffectLate_then_linearizable() {
    s0.at(0, 10).putInfo("x", "1"); // timed out at 10, applied later
    s1.at(20, 30).get("x", null);
    s1.at(40, 50).get("x", "1");
    assertValid(check());
  }

  @Test
  void when_anInfoWriteNeverTakesEffect_then_linearizable() {
    s0.at(0, 10).putInfo("x", "1");
    s0.at(20, 30).put("x", "2");
    s1.at(40, 50).get("x", "2");
    assertValid(check());
  }

  @Test
  void when_failedWritesAreIgnored_then_linearizable() {
    s0.at(0, 10).putFail("x", "1");
    s1.at(20, 30).get("x", null);
    assertValid(check());
  }

  @Test
  void when_rotxReadsAreChecked_then_aStaleRotxIsCaught() {
    s0.at(0, 10).put("x", "1");
    s0.at(20, 30).put("y", "1");
    long tx = s1.at(40, 50).rotx("x", null, "y", "1");
    assertViolation(check(), LinearizabilityChecker.NOT_LINEARIZABLE, tx);
  }

  @Test
  void when_anEventuallyConsistentReplicaLags_then_notLinearizable() {
    s0.at(0, 10).put("x", "1"); // dc0
    long lagging = s1.at(20, 30).get("x", null); // dc1 has not received it yet
    assertViolation(check(), LinearizabilityChecker.NOT_LINEARIZABLE, lagging);
  }

  @Test
  void when_theSearchExceedsItsBudget_then_unknownIsReportedQuickly() {
    // many concurrent writes and a read no order can satisfy: the search must give up, not hang
    for (int i = 0; i < 40; i++) {
      h.session(10 + i, 0).at(0, 1000).put("x", "w" + i);
    }
    s1.at(2000, 2010).get("x", "w0");
    s2.at(2020, 2030).get("x", "w1");
    s1.at(2040, 2050).get("x", "w0");
    Result r = assertTimeoutPreemptively(Duration.ofSeconds(20),
        () -> LinearizabilityChecker.searchOnly(1000).check(h.build()));
    assertViolation(r, LinearizabilityChecker.UNKNOWN);
    assertEquals(1, r.violations().size());
  }

  @Test
  void when_theBudgetIsNotPositive_then_rejected() {
    assertThrows(IllegalArgumentException.class, () -> new LinearizabilityChecker(0));
  }

  @Test
  void when_aValueIsWrittenTwice_then_theSearchJudgesTheKeyInsteadOfCallingItIllFormed() {
    // a counter that goes 1, 2, 1: the second "1" is a different write; linearizable (each read sees the latest)
    s0.at(0, 10).put("x", "1");
    s0.at(20, 30).put("x", "2");
    s0.at(40, 50).put("x", "1");
    s1.at(60, 70).get("x", "1");
    assertValid(check());
    // the same through the registry, i.e. what kvlab check --check linearizable runs
    assertValid(Checkers.byName("linearizable").check(h.build()));
    // the causal checkers still need unique values and say so
    assertViolation(new CausalChecker().check(h.build()), HistoryModel.DUPLICATE_KIND);
  }

  @Test
  void when_aValueIsWrittenTwiceAndAReadIsStale_then_theSearchFindsTheViolation() {
    s0.at(0, 10).put("x", "1");
    s0.at(20, 30).put("x", "2");
    s0.at(40, 50).put("x", "1");
    s0.at(60, 70).put("x", "3");
    long stale = s1.at(80, 90).get("x", "1"); // after 3 completed: no write of "1" can be the latest
    Result r = check();
    assertOnlyKinds(r, LinearizabilityChecker.NOT_LINEARIZABLE);
    assertEquals(1, r.violations().size(), Verdicts.show(r));
    org.junit.jupiter.api.Assertions.assertTrue(r.violations().get(0).operations().contains(stale), Verdicts.show(r));
  }
}
