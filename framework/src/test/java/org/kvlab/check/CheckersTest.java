package org.kvlab.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class CheckersTest {
  @Test
  void when_namesAreListed_then_allFiveCheckersAreThereInOrder() {
    assertEquals(List.of("causal", "session", "convergence", "rotx", "linearizable", "txn", "serializable",
        "strict-serializable", "bank", "store", "workload"), Checkers.names());
  }

  @Test
  void when_aCheckerIsLookedUpByName_then_itHasThatName() {
    for (String name : Checkers.names()) {
      assertEquals(name, Checkers.byName(name).name());
    }
    assertEquals("causal", Checkers.byName(" Causal ").name());
    assertEquals(11, Checkers.all().size());
  }

  @Test
  void when_anUnknownNameIsLookedUp_then_theErrorListsTheKnownOnes() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Checkers.byName("causl"));
    assertTrue(e.getMessage().contains("causl") && e.getMessage().contains("causal, session"), e.getMessage());
  }

  @Test
  void when_namesAreValidated_then_everyUnknownOneIsNamedAndKnownOnesAreCanonical() {
    assertEquals(List.of("causal", "session"), Checkers.validate(List.of(" Causal", "session", "causal")));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Checkers.validate(List.of("causal", "convergance", "lin")));
    assertTrue(e.getMessage().contains("unknown checkers 'convergance', 'lin'")
        && e.getMessage().contains("known: causal, session, convergence, rotx, linearizable, txn, serializable"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Checkers.validate(List.of()));
  }

  @Test
  void when_severalCheckersReportTheSameViolation_then_itIsListedOnceNamingThemAll() {
    HistoryBuilder h = new HistoryBuilder();
    HistoryBuilder.Session s = h.session(0, 0);
    s.put("x", "a");
    long thin = h.session(1, 1).get("x", "never-written");
    org.kvlab.history.History history = h.build();
    List<Result> results = List.of(new CausalChecker().check(history), new SessionChecker().check(history),
        new LinearizabilityChecker().check(history));
    List<Checkers.Reported> reported = Checkers.distinct(results);
    List<Checkers.Reported> thinAir = reported.stream()
        .filter(r -> r.violation().kind().equals(CausalChecker.THIN_AIR)).toList();
    assertEquals(1, thinAir.size(), reported.toString());
    assertEquals(List.of("causal", "session", "linearizable"), thinAir.get(0).checkers());
    assertEquals(List.of(thin), thinAir.get(0).violation().operations());
    int total = results.stream().mapToInt(r -> r.violations().size()).sum();
    assertEquals(total - 2, reported.size(), "only the two repeats are folded");
  }
}
