package org.kvlab.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kvlab.history.History;
import org.kvlab.history.Operation;
import org.kvlab.history.Operation.Outcome;
import org.kvlab.history.Operation.Type;

/**
 * {@link CausalOrder} has two representations of a causal past (bitsets, the original algorithm, and vector clocks
 * over chains, which scale to millions of operations); every checker that uses it must give exactly the same verdict
 * — same kinds, explanations and operations, in the same order — with either, on valid and invalid histories.
 */
class CausalOrderEquivalenceTest {
  @AfterEach
  void unforce() {
    CausalOrder.forced = null;
  }

  private static List<Supplier<Checker>> checkers() {
    return List.of(CausalChecker::new, CausalChecker::withGlobalArbitration, SessionChecker::new, RotxChecker::new,
        () -> new ConvergenceChecker().requireCausalWinner());
  }

  /** Some PUTs become INFO (their reads stay: some happened) or FAIL, some GETs INFO: the graph's side branches. */
  private static History withUnknownOutcomes(History h, long seed) {
    Random rnd = new Random(seed);
    List<Operation> out = new ArrayList<>();
    for (Operation op : h.operations()) {
      int dice = rnd.nextInt(100);
      if (op.type() == Type.PUT && dice < 15) {
        out.add(new Operation(op.id(), op.session(), op.dc(), op.type(), op.key(), op.value(), null,
            op.invokeMicros(), op.completeMicros(), dice < 12 ? Outcome.INFO : Outcome.FAIL, "test"));
      } else if (op.type() == Type.GET && dice < 5) {
        out.add(new Operation(op.id(), op.session(), op.dc(), op.type(), op.key(), null, null, op.invokeMicros(),
            op.completeMicros(), Outcome.INFO, "test"));
      } else {
        out.add(op);
      }
    }
    return new History(out);
  }

  private static void assertSameVerdicts(String what, History h, int[] invalid) {
    for (Supplier<Checker> c : checkers()) {
      CausalOrder.forced = CausalOrder.Representation.BITS;
      Result bits = c.get().check(h);
      CausalOrder.forced = CausalOrder.Representation.CHAINS;
      Result chains = c.get().check(h);
      CausalOrder.forced = null;
      assertEquals(bits, chains, () -> what + ": " + bits.checker() + " differs:\nbits:\n" + Verdicts.show(bits)
          + "\nchains:\n" + Verdicts.show(chains));
      invalid[0] += bits.valid() ? 0 : 1;
      invalid[1]++;
    }
  }

  @Test
  void when_randomWeakStoreHistoriesAreChecked_then_bothRepresentationsGiveTheSameVerdicts() {
    int[] invalid = new int[2];
    for (long seed = 1; seed <= 600; seed++) {
      History h = ReplicaSimulation.run(seed, 2 + (int) (seed % 5), 2 + (int) (seed % 2), 1 + (int) (seed % 4),
          10 + (int) (seed % 40), seed % 3 == 0, (int) (seed % 4) * 10);
      assertSameVerdicts("seed " + seed, h, invalid);
      assertSameVerdicts("seed " + seed + " with INFO/FAIL", withUnknownOutcomes(h, seed), invalid);
    }
    System.out.printf("causal-order equivalence: %d of %d verdicts invalid%n", invalid[0], invalid[1]);
    assertTrue(invalid[0] > invalid[1] / 10, "the histories must exercise violations too: " + invalid[0]);
    assertTrue(invalid[0] < invalid[1], "and valid histories");
  }

  @Test
  void when_largeRandomHistoriesAreChecked_then_bothRepresentationsGiveTheSameVerdicts() {
    int[] invalid = new int[2];
    for (long seed = 1; seed <= 6; seed++) {
      History h = RandomHistories.linearizable(seed, 8 + (int) seed, 3, 20, 3_000);
      assertSameVerdicts("linearizable seed " + seed, withUnknownOutcomes(h, seed), invalid);
      History weak = ReplicaSimulation.run(seed, 6, 3, 5, 1_500, seed % 2 == 0, 20);
      assertSameVerdicts("weak seed " + seed, withUnknownOutcomes(weak, seed), invalid);
    }
    assertTrue(invalid[0] > 0, "some large histories must be invalid");
  }
}
