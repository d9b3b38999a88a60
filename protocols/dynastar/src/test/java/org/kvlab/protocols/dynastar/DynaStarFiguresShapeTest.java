package org.kvlab.protocols.dynastar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.kvlab.sim.Timeline;

/**
 * The shape of seed 002's Fig 2 (docs/benchmarks/dynastar.md), small: TPC-C-lite on 4 warehouses from a random
 * placement, the oracle's first plan at 2 s of a 6 s run (the evaluation program's {@code fig2}, shorter, with its
 * service time of 100 µs per input). After the plan the share of multi-partition commands falls, throughput at least
 * doubles and the median latency at least halves; and the time
 * series' per-partition counters add up to its totals (what Table 1 reads).
 */
class DynaStarFiguresShapeTest {
  @Test
  void when_theOracleRepartitionsTpccFromARandomPlacement_then_multiPartitionFallsAndThroughputRises() {
    Timeline t = DynaStarEvaluation.fig2(4, 6_000_000, "2s").timeline();
    assertEquals(2.0, DynaStarEvaluation.first(t, "dynastar.plans"), "the first plan in the bucket at 2 s");
    DynaStarEvaluation.Window before = DynaStarEvaluation.window(t, 500_000, 2_000_000);
    DynaStarEvaluation.Window after = DynaStarEvaluation.window(t, 4_000_000, 6_000_000);
    assertTrue(before.multiShare() > 50, "a random placement scatters the warehouses: " + before);
    assertTrue(after.multiShare() < before.multiShare() / 2, "the plan at least halves the multi-partition share: "
        + before + " -> " + after);
    assertTrue(after.opsPerSecond() > 2 * before.opsPerSecond(), "throughput at least doubles (with the 100 µs service"
        + " time, multi-partition commands' many messages saturate the partitions): " + before + " -> " + after);
    assertTrue(after.p50Ms() * 2 < before.p50Ms(), "the median latency at least halves: " + before + " -> " + after);
    for (Timeline.Bucket b : t.buckets()) {
      long perNode = 0;
      for (int p = 0; p < DynaStarEvaluation.PARTS; p++) {
        perNode += DynaStarEvaluation.executed(b, "0_" + p);
      }
      assertEquals(DynaStarEvaluation.executed(b, null), perNode, "per-partition counters add up at " + b);
      assertTrue(b.ok() == 0 || 0 < b.p50Micros() && b.p50Micros() <= b.p99Micros(), "percentiles of " + b);
    }
  }
}
