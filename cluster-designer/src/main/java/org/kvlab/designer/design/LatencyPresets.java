package org.kvlab.designer.design;

import java.util.ArrayList;
import java.util.List;

/**
 * Ready-made round-trip-time matrices for {@code emulation.rtt}. The cluster file takes whole milliseconds,
 * so measured RTTs are rounded to the nearest millisecond.
 *
 * <p>Table 5.1 of the CausalSpartanX dissertation (seed 003, p. 79) gives the RTT from a datacenter C in six
 * AWS regions to datacenters A and B, both in California (used for its Fig. 5.4): California 1.17 / 0.32 ms,
 * Oregon 21.87 / 20.61, Virginia 67.05 / 61.23, Ireland 138.28 / 139.32, Sydney 159.09 / 158.40, Singapore
 * 175.64 / 175.60. The table does not give A-B; both are in California, so the preset takes 1 ms, the
 * table's own California figure rounded.
 */
public record LatencyPresets(String label, String[] dcNames, long[][] rttMillis) {
  private static final String[] REGIONS = {"California", "Oregon", "Virginia", "Ireland", "Sydney", "Singapore"};
  private static final double[][] TABLE_5_1 = {
      {1.17, 0.32}, {21.87, 20.61}, {67.05, 61.23}, {138.28, 139.32}, {159.09, 158.40}, {175.64, 175.60}};

  /** Every preset; the loopback and uniform ones take the design's number of datacenters. */
  public static List<LatencyPresets> all(int datacenters) {
    List<LatencyPresets> out = new ArrayList<>();
    out.add(uniform("Loopback: 0 ms everywhere (no emulated WAN)", datacenters, 0));
    out.add(uniform("Uniform 100 ms", datacenters, 100));
    for (int i = 0; i < REGIONS.length; i++) {
      long ca = Math.round(TABLE_5_1[i][0]);
      long cb = Math.round(TABLE_5_1[i][1]);
      out.add(new LatencyPresets("Seed Table 5.1: A, B in California, C in " + REGIONS[i],
          new String[] {"A (California)", "B (California)", "C (" + REGIONS[i] + ")"},
          new long[][] {{0, 1, ca}, {1, 0, cb}, {ca, cb, 0}}));
    }
    return out;
  }

  private static LatencyPresets uniform(String label, int n, long ms) {
    long[][] m = new long[n][n];
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        m[a][b] = a == b ? 0 : ms;
      }
    }
    String[] names = new String[n];
    for (int i = 0; i < n; i++) {
      names[i] = "datacenter " + i;
    }
    return new LatencyPresets(label, names, m);
  }

  /** The matrix as cluster-file text ({@code 0} and {@code 21ms}). */
  public String[][] asText() {
    int n = rttMillis.length;
    String[][] t = new String[n][n];
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        t[a][b] = rttMillis[a][b] == 0 ? "0" : rttMillis[a][b] + "ms";
      }
    }
    return t;
  }

  @Override
  public String toString() {
    return label;
  }
}
