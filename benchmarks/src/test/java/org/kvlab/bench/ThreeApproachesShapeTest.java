package org.kvlab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ThreeApproaches' wiring: CaMu, DynaStar and the Conveyor Belt each run the comparison's workload (TPC-C-lite
 * without New-Order) on their topology, every transaction OK (CaMu refuses none: no New-Order is drawn), with
 * latencies that say each approach ran as designed (one short run per approach, 1 session per data server).
 */
class ThreeApproachesShapeTest {
  @Test
  void when_theWorkloadRunsOnAllThree_then_everyTransactionIsOk_andEachApproachShowsItsShape() {
    List<ThreeApproaches.Approach> all = ThreeApproaches.approaches();
    assertEquals(List.of("camu", "dynastar", "conveyorbelt"), all.stream().map(ThreeApproaches.Approach::protocol)
        .toList());
    ThreeApproaches.Measure[] m = new ThreeApproaches.Measure[all.size()];
    for (int i = 0; i < all.size(); i++) {
      m[i] = ThreeApproaches.run(all.get(i), 1, 1);
      assertEquals(0, m[i].notOk(), "no transaction refused or lost: " + m[i]);
      assertTrue(m[i].perSecond() > 100, "real work: " + m[i]);
    }
    assertTrue(m[0].p50() >= 4.5, "CaMu orders a transaction in its 5 ms round: " + m[0]);
    assertTrue(m[2].p50() < m[0].p50(), "the Conveyor Belt's local operations wait for no round: " + m[2]);
    assertTrue(m[1].p99() > m[1].p50(), "DynaStar's multi-partition commands (lend, execute, return) are its tail: "
        + m[1]);
  }
}
