package org.kvlab.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HistoryByIdTest {
  private static Operation op(long id, int session) {
    return new Operation(id, session, 0, Operation.Type.GET, "k", null, null, 0, 0, Operation.Outcome.INFO, null);
  }

  /** Dense ids placed directly, and gaps, repeats and extreme ids sorted: always what a stable sort by id gives. */
  @Test
  void when_opsInAnyOrder_then_theStableSortById() {
    Random random = new Random(7);
    for (int round = 0; round < 300; round++) {
      int n = random.nextInt(40);
      long base = switch (round % 4) {
        case 0 -> 0;
        case 1 -> random.nextInt(1000) - 500;
        case 2 -> Long.MAX_VALUE - 20;
        default -> Long.MIN_VALUE;
      };
      List<Operation> ops = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        long id = round % 3 == 0 && i > 0 && random.nextInt(5) == 0 ? ops.get(random.nextInt(i)).id() // a repeat
            : round % 5 == 1 ? base + i * 2L // gaps
            : base + i;
        ops.add(op(id, i));
      }
      if (round % 7 == 3 && n > 1) {
        ops.set(0, op(Long.MAX_VALUE, 99)); // a span that overflows
        ops.set(1, op(Long.MIN_VALUE, 98));
      }
      Collections.shuffle(ops, random);
      List<Operation> expected = new ArrayList<>(ops);
      expected.sort(Comparator.comparingLong(Operation::id));
      assertEquals(expected, History.byId(ops), "round " + round);
    }
  }
}
