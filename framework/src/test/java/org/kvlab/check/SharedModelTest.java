package org.kvlab.check;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.kvlab.history.History;

/**
 * The checkers of one history share its {@link HistoryModel} and the causal order over all operations, and
 * explanations search only the part of the graph that can lead to the target: none of it may change a verdict
 * or an explanation.
 */
class SharedModelTest {
  @Test
  void when_checkersRunOneAfterAnotherOnOneHistory_then_eachResultEqualsThatOfTheCheckerAloneOnAFreshCopy() {
    int violations = 0;
    for (long seed = 1; seed <= 8; seed++) {
      History h = ReplicaSimulation.run(seed, 4, 2, 5, 400, seed % 2 == 0, 30);
      List<Result> shared = new ArrayList<>();
      for (Checker c : Checkers.all()) {
        shared.add(c.check(h));
      }
      assertSame(HistoryModel.of(h), HistoryModel.of(h), "one model per history on a thread");
      List<Checker> fresh = Checkers.all();
      for (int i = 0; i < fresh.size(); i++) {
        Result alone = fresh.get(i).check(new History(h.operations())); // another object: its own model
        assertEquals(alone, shared.get(i), "seed " + seed + ", checker " + alone.checker());
        violations += alone.violations().size();
      }
    }
    assertFalse(violations == 0, "the histories must have violations, or explanations were not compared");
  }

  @Test
  void when_theSearchIsPrunedByTopologicalPosition_then_theShortestPathIsTheSameOne() {
    Random rnd = new Random(7);
    int compared = 0;
    for (int round = 0; round < 200; round++) {
      int n = 2 + rnd.nextInt(60);
      // a random DAG: node labels shuffled, edges from lower to higher position, successors in random order
      int[] nodeAt = new int[n];
      for (int i = 0; i < n; i++) {
        nodeAt[i] = i;
      }
      for (int i = n - 1; i > 0; i--) {
        int j = rnd.nextInt(i + 1);
        int t = nodeAt[i];
        nodeAt[i] = nodeAt[j];
        nodeAt[j] = t;
      }
      int[] pos = new int[n];
      for (int i = 0; i < n; i++) {
        pos[nodeAt[i]] = i;
      }
      List<List<Integer>> out = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        out.add(new ArrayList<>());
      }
      for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
          if (rnd.nextInt(100) < 12) {
            out.get(nodeAt[i]).add(nodeAt[j]);
          }
        }
      }
      int[][] succ = new int[n][];
      for (int u = 0; u < n; u++) {
        java.util.Collections.shuffle(out.get(u), rnd);
        succ[u] = out.get(u).stream().mapToInt(Integer::intValue).toArray();
      }
      Graphs.Scratch scratch = new Graphs.Scratch(n); // reused by every search on this graph, as chain() does
      for (int a = 0; a < n; a++) {
        for (int b = 0; b < n; b++) {
          int[] plain = Graphs.shortestPath(succ, a, b);
          int[] pruned = Graphs.shortestPath(succ, a, b, pos);
          assertArrayEquals(plain, Graphs.shortestPath(succ, a, b, null, scratch), "reused scratch " + a + " -> " + b);
          assertArrayEquals(pruned, Graphs.shortestPath(succ, a, b, pos, scratch), "reused scratch " + a + " -> " + b);
          if (plain == null) {
            assertEquals(null, pruned);
          } else {
            assertNotNull(pruned);
            assertArrayEquals(plain, pruned, "path " + a + " -> " + b);
            compared++;
          }
        }
      }
      for (int u = 0; u < n; u++) {
        assertEquals(-2, scratch.parent[u], "a search left node " + u + " marked visited in the reused scratch");
      }
    }
    assertFalse(compared < 1000, "too few connected pairs: " + compared);
  }
}
