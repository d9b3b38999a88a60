package org.kvlab.protocols.causalspartanx;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.kvlab.protocols.gentlerain.GentleRain;
import org.kvlab.sim.Scenarios;

/**
 * The qualitative shapes of seed 003 Figs 5.1a, 5.4 and 5.6 in the simulator (virtual time only, ratios only;
 * the absolute numbers and the seed's are in docs/benchmarks/seed-003-comparisons.md).
 */
class SeedComparisonShapeTest {
  private static final long[] SEED = {1};
  private final GentleRain gr = new GentleRain();
  private final CausalSpartanX csx = new CausalSpartanX();

  private static String msg(String what, double a, double b) {
    return String.format("%s: %.2f ms vs %.2f ms", what, a, b);
  }

  @Test
  void putLatency_growsWithSkewForGentleRain_only() {
    double gr0 = SeedComparisons.putLatency(gr, 0, SEED, 100);
    double gr15 = SeedComparisons.putLatency(gr, 15, SEED, 100);
    double csx0 = SeedComparisons.putLatency(csx, 0, SEED, 100);
    double csx15 = SeedComparisons.putLatency(csx, 15, SEED, 100);
    assertTrue(gr15 > 1.5 * gr0, msg("GentleRain PUT at 15 ms skew vs 0", gr15, gr0));
    assertTrue(csx15 < 1.2 * csx0, msg("CausalSpartanX PUT at 15 ms skew vs 0", csx15, csx0));
  }

  @Test
  void visibility_followsTheFarthestDcForGentleRain_only() {
    double[] oregon = Scenarios.C_RTTS.get(1);
    double[] singapore = Scenarios.C_RTTS.get(5);
    double grNear = SeedComparisons.visibility(gr, oregon, SEED, 5);
    double grFar = SeedComparisons.visibility(gr, singapore, SEED, 5);
    double csxNear = SeedComparisons.visibility(csx, oregon, SEED, 5);
    double csxFar = SeedComparisons.visibility(csx, singapore, SEED, 5);
    assertTrue(grFar > 1.5 * grNear, msg("GentleRain visibility, C in Singapore vs Oregon", grFar, grNear));
    assertTrue(csxFar < 1.2 * csxNear, msg("CausalSpartanX visibility, C in Singapore vs Oregon", csxFar, csxNear));
    assertTrue(csxFar < 0.5 * grFar, msg("visibility with C in Singapore, CausalSpartanX vs GentleRain", csxFar, grFar));
  }

  @Test
  void rotxNotTouchingASlowPartition_isDelayedForGentleRain_only() {
    double[] g = SeedComparisons.rotx(gr, 100, SEED, 2_000_000);
    double[] c = SeedComparisons.rotx(csx, 100, SEED, 2_000_000);
    int clean = SeedComparisons.P90;
    int touching = SeedComparisons.TOUCHING + SeedComparisons.P90;
    assertTrue(c[clean] < 0.25 * g[clean],
        msg("p90 ROTX not touching the slow partition, CausalSpartanX vs GentleRain", c[clean], g[clean]));
    assertTrue(c[clean] < 0.25 * c[touching],
        msg("CausalSpartanX p90 ROTX not touching vs touching the slow partition", c[clean], c[touching]));
    assertTrue(g[clean] > 0.5 * g[touching],
        msg("GentleRain p90 ROTX not touching vs touching the slow partition", g[clean], g[touching]));
  }
}
