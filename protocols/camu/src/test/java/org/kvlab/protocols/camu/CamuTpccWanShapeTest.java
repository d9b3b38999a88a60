package org.kvlab.protocols.camu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Topology;
import org.kvlab.api.TxnRequest;
import org.kvlab.protocols.camu.CamuTpccWanEvaluation.Cell;
import org.kvlab.sim.NetworkModel;

/**
 * A cheap version of {@link CamuTpccWanEvaluation} in the build (virtual time, one seed, short runs), plus the
 * TPC-C-like mix itself: see docs/benchmarks/camu.md for the full grid.
 */
class CamuTpccWanShapeTest {
  @Test
  void when_theTpccLikeMixIsDrawn_then_aboutOneInNineTransactionsSpansTwoWarehousesAndNoneMore() {
    Topology t = new Topology(1, 20);
    TpccLike w = new TpccLike(t, 800, "zipf");
    Random r = new Random(1);
    Map<Integer, Integer> byParts = new HashMap<>();
    int readOnly = 0;
    int total = 100_000;
    for (int i = 0; i < total; i++) {
      TxnRequest q = w.next(r);
      int parts = (int) q.keys().stream().map(t::partitionOf).distinct().count();
      byParts.merge(parts, 1, Integer::sum);
      if (q.procedure() == null && q.writes().isEmpty()) {
        readOnly++;
      }
    }
    assertTrue(byParts.keySet().stream().allMatch(p -> p == 1 || p == 2), "at most 2 partitions: " + byParts);
    double mpo = byParts.getOrDefault(2, 0) / (double) total;
    assertTrue(mpo > 0.09 && mpo < 0.13, "MPO share " + mpo + " (New-Order 45% x 10% + Payment 43% x 15% = 10.95%)");
    double ro = readOnly / (double) total;
    assertTrue(ro > 0.07 && ro < 0.09, "Order-Status + Stock-Level: 8%, got " + ro);
  }

  @Test
  void when_partitionsSpanSites_then_tomPaysTheWanForItsVotesAndPbKeepsItsMposWithinARound() {
    NetworkModel wan = CamuTpccWanEvaluation.wan();
    Cell pb = CamuTpccWanEvaluation.run("WAN", wan, 45, 20_000, "pb", "zipf", "tpcc", 15);
    Cell tom = CamuTpccWanEvaluation.run("WAN", wan, 45, 20_000, "tom", "zipf", "tpcc", 15);
    // thesis R12: in the WAN, TOM's multi-partition transactions need >= 2 inter-site steps, PB's one
    assertTrue(tom.mpoMs() > pb.mpoMs(), "MPOs: TOM " + tom + " vs PB " + pb);
    assertTrue(tom.mpoMs() > 20, "a cross-site TOM decision takes more than one 20 ms round: " + tom);
  }
}
