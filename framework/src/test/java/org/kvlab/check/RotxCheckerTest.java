package org.kvlab.check;

import static org.kvlab.check.Verdicts.assertOnlyKinds;
import static org.kvlab.check.Verdicts.assertValid;
import static org.kvlab.check.Verdicts.assertViolation;

import org.junit.jupiter.api.Test;
import org.kvlab.history.History;

/**
 * Causally consistent read-only transactions: Alice, Bob and the profile picture (seed 003 §2.4, Fig 2.2). Bob's
 * access to Alice's profile is the key "acl" (absent = unblocked), her picture the key "picture".
 */
class RotxCheckerTest {
  private final RotxChecker rotx = new RotxChecker();
  private final HistoryBuilder h = new HistoryBuilder();
  private final HistoryBuilder.Session alice = h.session(0, 0);
  private final HistoryBuilder.Session app = h.session(1, 1); // the application serving Bob

  @Test
  void when_scenario1RotxReturnsTheNewPictureWithBobUnblocked_then_snapshotViolation() {
    long block = alice.put("acl", "blocked");
    long picture = alice.put("picture", "new");
    long tx = app.rotx("acl", null, "picture", "new");
    History history = h.build();
    Result r = rotx.check(history);
    assertViolation(r, RotxChecker.SNAPSHOT, tx, block, picture);
    assertOnlyKinds(r, RotxChecker.SNAPSHOT);
    // the causal checker sees the same anomaly (a ROTX's causal past includes what it read)
    assertViolation(new CausalChecker().check(history), CausalChecker.WRITE_CO_INIT_READ, tx, block);
  }

  @Test
  void when_scenario1RotxReturnsEitherAcceptableSnapshot_then_valid() {
    alice.put("acl", "blocked");
    alice.put("picture", "new");
    app.rotx("acl", null, "picture", null); // old picture, unblocked
    app.rotx("acl", "blocked", "picture", null); // old picture, blocked
    app.rotx("acl", "blocked", "picture", "new"); // new picture, blocked
    History history = h.build();
    assertValid(rotx.check(history));
    assertValid(new CausalChecker().check(history));
  }

  @Test
  void when_scenario2RotxReturnsTheNewPictureWithBobUnblockedAgain_then_snapshotViolation() {
    alice.put("acl", "blocked");
    long picture = alice.put("picture", "new");
    long revert = alice.put("picture", "old-again");
    long unblock = alice.put("acl", "unblocked");
    long tx = app.rotx("acl", "unblocked", "picture", "new");
    Result r = rotx.check(h.build());
    assertViolation(r, RotxChecker.SNAPSHOT, tx, unblock, revert, picture);
    assertOnlyKinds(r, RotxChecker.SNAPSHOT);
  }

  @Test
  void when_twoCausalGetsInterleaveWithAlicesUpdates_then_noCheckerObjects_butThePrivacyLeakHappens() {
    // The reason ROTX exists (§2.4): each GET is causally consistent, the pair shows Bob the new picture.
    alice.at(0, 1).put("acl", "blocked");
    app.at(2, 3).get("acl", null); // not yet replicated: Bob looks unblocked
    alice.at(4, 5).put("picture", "new");
    app.at(6, 7).get("picture", "new"); // picture replicated (with its dependency)
    History history = h.build();
    assertValid(new CausalChecker().check(history));
    assertValid(rotx.check(history));
  }

  @Test
  void when_aRotxMissesWhatTheSessionAlreadyRead_then_staleReadIsReported() {
    long block = alice.put("acl", "blocked");
    app.get("acl", "blocked");
    long tx = app.rotx("acl", null, "picture", null);
    Result r = rotx.check(h.build());
    assertViolation(r, RotxChecker.CAUSAL_PAST, tx, block);
    assertOnlyKinds(r, RotxChecker.CAUSAL_PAST);
  }

  @Test
  void when_aRotxReadsAValueNobodyWrote_then_thinAirIsReported() {
    long tx = app.rotx("acl", "forged", "picture", null);
    assertViolation(rotx.check(h.build()), CausalChecker.THIN_AIR, tx);
  }

  @Test
  void when_onlyGetsAreStale_then_theRotxCheckerIgnoresThem() {
    alice.put("acl", "blocked");
    alice.get("acl", null); // a read-your-writes violation, not a ROTX one
    assertValid(rotx.check(h.build()));
  }
}
