package org.kvlab.protocols.camu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.kvlab.protocols.camu.CamuEvaluation.Cell;

/**
 * A cheap version of {@link CamuEvaluation} in the build (virtual time only, one seed, short runs): the shape of the
 * thesis's results that the simulation reproduces, see docs/benchmarks/camu.md for the full grid and its reading.
 */
class CamuEvaluationShapeTest {
  static final long RECEIVE = 50;

  static Cell cell(int n, long round, String mode, String partner, int parts) {
    return CamuEvaluation.run(RECEIVE, n, round, mode, partner, parts, 40 * round, 1);
  }

  @Test
  void when_partitionsGrowFrom50To100_then_pbGoesFromAheadOfTomToBehindIt() {
    Cell pb50 = cell(50, 3_000, "pb", "uniform", 2);
    Cell tom50 = cell(50, 3_000, "tom", "uniform", 2);
    Cell pb100 = cell(100, 5_000, "pb", "uniform", 2);
    Cell tom100 = cell(100, 5_000, "tom", "uniform", 2);
    assertTrue(pb50.meanMs() < tom50.meanMs(), "50 partitions: PB " + pb50 + " ahead of TOM " + tom50);
    assertTrue(pb100.meanMs() > tom100.meanMs(), "100 partitions: TOM " + tom100 + " ahead of PB " + pb100);
  }

  @Test
  void when_partnersAreZipf_then_camuSendsAFractionOfPbsMessagesAndBeatsPbAt100Partitions() {
    Cell pb = cell(100, 5_000, "pb", "zipf", 2);
    Cell camu = cell(100, 5_000, "camu", "zipf", 2);
    assertTrue(camu.messages() * 5 < pb.messages(), "CaMu " + camu + " vs PB " + pb);
    assertTrue(camu.meanMs() < pb.meanMs(), "CaMu " + camu + " vs PB " + pb);
  }
}
