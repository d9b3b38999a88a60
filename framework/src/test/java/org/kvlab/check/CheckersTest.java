package org.kvlab.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class CheckersTest {
  @Test
  void when_namesAreListed_then_allFiveCheckersAreThereInOrder() {
    assertEquals(List.of("causal", "session", "convergence", "rotx", "linearizable"), Checkers.names());
  }

  @Test
  void when_aCheckerIsLookedUpByName_then_itHasThatName() {
    for (String name : Checkers.names()) {
      assertEquals(name, Checkers.byName(name).name());
    }
    assertEquals("causal", Checkers.byName(" Causal ").name());
    assertEquals(5, Checkers.all().size());
  }

  @Test
  void when_anUnknownNameIsLookedUp_then_theErrorListsTheKnownOnes() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Checkers.byName("causl"));
    assertTrue(e.getMessage().contains("causl") && e.getMessage().contains("causal, session"), e.getMessage());
  }
}
