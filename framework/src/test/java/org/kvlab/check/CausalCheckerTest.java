package org.kvlab.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.kvlab.check.Verdicts.assertCount;
import static org.kvlab.check.Verdicts.assertOnlyKinds;
import static org.kvlab.check.Verdicts.assertValid;
import static org.kvlab.check.Verdicts.assertViolation;

import org.junit.jupiter.api.Test;
import org.kvlab.history.History;

/** Causal+ bad patterns (Bouajjani et al. POPL'17) on the seed-003 scenarios. */
class CausalCheckerTest {
  private final CausalChecker causal = new CausalChecker();
  private final HistoryBuilder h = new HistoryBuilder();
  private final HistoryBuilder.Session alice = h.session(0, 0);
  private final HistoryBuilder.Session bob = h.session(1, 1);
  private final HistoryBuilder.Session carol = h.session(2, 0);
  private final HistoryBuilder.Session dave = h.session(3, 1);

  private Result check() {
    return causal.check(h.build());
  }

  // ---- photo / album (seed 003 Ch.1, §2.3) ----

  @Test
  void when_bobSeesTheAlbumButNoPhoto_then_missedWriteIsReported() {
    long photo = alice.put("photo", "p1");
    long album = alice.put("album", "[p1]");
    long readAlbum = bob.get("album", "[p1]");
    long readPhoto = bob.get("photo", null);
    Result r = check();
    Violation v = assertViolation(r, CausalChecker.WRITE_CO_INIT_READ, readPhoto, photo);
    assertTrue(v.operations().containsAll(java.util.List.of(album, readAlbum)), "the causal chain is named: " + v);
    assertTrue(v.explanation().contains("→rf"), v.explanation());
    assertEquals(1, r.violations().size(), Verdicts.show(r));
  }

  @Test
  void when_bobSeesTheNewAlbumButTheOldPhoto_then_overwrittenDependencyIsReported() {
    long old = alice.put("photo", "old");
    long fresh = alice.put("photo", "new");
    alice.put("album", "[new]");
    bob.get("album", "[new]");
    long stale = bob.get("photo", "old");
    Result r = check();
    assertViolation(r, CausalChecker.WRITE_CO_READ, stale, old, fresh);
    assertOnlyKinds(r, CausalChecker.WRITE_CO_READ);
  }

  @Test
  void when_bobSeesPhotoAndAlbumInOrderOrNeither_then_valid() {
    alice.put("photo", "p1");
    alice.put("album", "[p1]");
    bob.get("photo", null); // before the album: fine
    bob.get("album", "[p1]");
    bob.get("photo", "p1");
    carol.get("album", null);
    carol.get("photo", "p1"); // the photo without the album: fine, the album does not precede it
    assertValid(check());
  }

  // ---- odd/even increments (seed 003 §5.5, §9 item 3) ----

  @Test
  void when_oddEvenIncrementsAlternate_then_valid() {
    alice.put("k", "0");
    bob.get("k", null);
    bob.get("k", "0");
    bob.put("k", "1");
    alice.get("k", "0");
    alice.get("k", "1");
    alice.put("k", "2");
    bob.get("k", "1");
    bob.get("k", "2");
    bob.put("k", "3");
    alice.get("k", "3");
    assertValid(check());
  }

  @Test
  void when_anIncrementerReadsAnOlderCountAfterANewerOne_then_overwrittenDependencyIsReported() {
    alice.put("k", "0");
    bob.get("k", "0");
    bob.put("k", "1");
    alice.get("k", "1");
    long two = alice.put("k", "2");
    bob.get("k", "2");
    long three = bob.put("k", "3");
    alice.get("k", "3");
    long back = alice.get("k", "1"); // "1" happens before "2" and "3", both in alice's past
    Result r = check();
    Violation v = assertViolation(r, CausalChecker.WRITE_CO_READ, back, 2);
    assertTrue(v.operations().contains(three) || v.operations().contains(two), v.toString());
  }

  // ---- cycles, thin air, failed writes ----

  @Test
  void when_aSessionReadsItsOwnFutureWrite_then_cyclicCausalOrderIsReported() {
    long read = alice.get("x", "a");
    long write = alice.put("x", "a");
    assertViolation(check(), CausalChecker.CYCLIC_CO, read, write);
  }

  @Test
  void when_twoSessionsReadEachOthersLaterWrites_then_cyclicCausalOrderIsReported() {
    long a1 = alice.get("y", "b");
    long a2 = alice.put("x", "a");
    long b1 = bob.get("x", "a");
    long b2 = bob.put("y", "b");
    Result r = check();
    assertViolation(r, CausalChecker.CYCLIC_CO, a1, a2, b1, b2);
    assertCount(r, CausalChecker.CYCLIC_CO, 1);
  }

  @Test
  void when_aReadReturnsAValueNobodyWrote_then_thinAirIsReported() {
    alice.put("x", "a");
    long read = bob.get("x", "zzz");
    assertViolation(check(), CausalChecker.THIN_AIR, read);
  }

  @Test
  void when_aReadReturnsTheValueOfAFailedPut_then_itIsReported() {
    long put = alice.putFail("x", "a");
    long read = bob.get("x", "a");
    assertViolation(check(), CausalChecker.FAILED_WRITE, read, put);
  }

  @Test
  void when_anInfoPutMayOrMayNotHaveHappened_then_bothOutcomesAreValid() {
    alice.putInfo("x", "a");
    bob.get("x", "a");
    carol.get("x", null);
    alice.get("x", null); // alice does not know whether her write happened
    alice.get("x", "a");
    assertValid(check());
  }

  @Test
  void when_infoAndFailedReadsAreIgnored_then_valid() {
    alice.put("x", "a");
    alice.getInfo("x");
    alice.get("x", "a");
    assertValid(check());
  }

  // ---- concurrent writes and arbitration (CCv, CyclicCF) ----

  @Test
  void when_concurrentWritesConvergeToOneWinner_then_valid() {
    alice.put("x", "a"); // dc0
    bob.put("x", "b"); // dc1, concurrent
    alice.get("x", "a");
    bob.get("x", "b");
    alice.get("x", "b"); // b wins everywhere
    bob.get("x", "b");
    carol.get("x", "b");
    assertValid(check());
  }

  @Test
  void when_readersObserveBothOrdersOfTwoConcurrentWrites_then_cyclicArbitrationIsReported() {
    long a = alice.put("x", "a");
    long b = bob.put("x", "b");
    carol.get("x", "a");
    long carolChoseB = carol.get("x", "b"); // saw a, chose b: b wins over a
    dave.get("x", "b");
    long daveChoseA = dave.get("x", "a"); // saw b, chose a: a wins over b
    Result r = check();
    assertViolation(r, CausalChecker.CYCLIC_CF, a, b, carolChoseB, daveChoseA);
    assertOnlyKinds(r, CausalChecker.CYCLIC_CF);
  }

  @Test
  void when_aSessionFlipsBetweenConcurrentValues_then_cyclicArbitrationIsReported() {
    long a = alice.put("x", "a");
    long b = bob.put("x", "b");
    long sawB = alice.get("x", "b"); // a in past, chose b
    long backToA = alice.get("x", "a"); // b in past, chose a
    assertViolation(check(), CausalChecker.CYCLIC_CF, a, b, sawB, backToA);
  }

  @Test
  void when_arbitrationCyclesOnlyAcrossKeys_then_onlyTheGlobalVariantReportsIt() {
    HistoryBuilder.Session s4 = h.session(4, 0);
    HistoryBuilder.Session s5 = h.session(5, 1);
    dave.put("y", "d"); // d
    alice.get("y", "d");
    alice.put("x", "a"); // d → a
    bob.put("x", "b");
    carol.get("x", "b");
    carol.put("y", "c"); // b → c
    s4.get("x", "a");
    s4.get("x", "b"); // a before b (x)
    s5.get("y", "c");
    s5.get("y", "d"); // c before d (y): a → b → c → d → a
    History history = h.build();
    assertValid(causal.check(history));
    Result global = CausalChecker.withGlobalArbitration().check(history);
    assertViolation(global, CausalChecker.CYCLIC_CF, 0, 2, 3, 5);
  }

  @Test
  void when_readsFromRotxCarryDependencies_then_aStaleGetAfterwardsIsReported() {
    long photo = alice.put("photo", "p1");
    alice.put("album", "[p1]");
    bob.rotx("album", "[p1]", "friends", null);
    long stale = bob.get("photo", null);
    assertViolation(check(), CausalChecker.WRITE_CO_INIT_READ, stale, photo);
  }

  @Test
  void when_theHistoryIsEmpty_then_valid() {
    assertValid(check());
  }
}
