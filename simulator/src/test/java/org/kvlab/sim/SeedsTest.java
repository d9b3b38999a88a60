package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class SeedsTest {
  @Test
  void when_aSeedARangeOrAList_then_thoseSeedsInOrder() {
    assertEquals(List.of(7L), Seeds.parse("7"));
    assertEquals(List.of(3L, 4L, 5L), Seeds.parse("3..5"));
    assertEquals(List.of(3L, 17L, 42L), Seeds.parse("3, 17,42"));
  }

  @Test
  void when_anythingElse_then_theFormsAreNamed() {
    for (String bad : List.of("one", "5..", "9..3", "1..2..3", "", "1..2000000")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Seeds.parse(bad), bad);
      assertEquals("write a range like 1..200, a list like 3,17,42, or one seed", e.getMessage());
    }
  }
}
