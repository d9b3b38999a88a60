package org.kvlab.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Chooses the partitions of a multi-partition transaction, as the CaMu thesis's workloads do: the home partition
 * first, then distinct partners, either uniformly among the other partitions or by Zipf over a fixed rank order per
 * home partition (rank r = partition {@code (home + r) mod n}, weight {@code 1 / r^s}; the thesis ranks each
 * partition's PB partners first, which the CaMu protocol's default partner sets match: the next partitions).
 * Shared by the simulator's workload and the YCSB binding.
 */
public final class TxnPartners {
  private final int partitions;
  private final boolean zipf;
  private final double[] cdf;

  /**
   * @param partitions number of partitions of the cluster
   * @param partner {@code uniform} or {@code zipf}
   * @param s the Zipf exponent (ignored for uniform)
   */
  public TxnPartners(int partitions, String partner, double s) {
    if (!partner.equals("uniform") && !partner.equals("zipf")) {
      throw new IllegalArgumentException("unknown partner choice '" + partner + "': use uniform or zipf");
    }
    this.partitions = partitions;
    this.zipf = partner.equals("zipf");
    cdf = new double[Math.max(0, partitions - 1)];
    double sum = 0;
    for (int r = 1; r < partitions; r++) {
      sum += 1.0 / Math.pow(r, s);
      cdf[r - 1] = sum;
    }
    for (int i = 0; i < cdf.length; i++) {
      cdf[i] /= sum;
    }
  }

  /** {@code home} then {@code count - 1} distinct partners (fewer if the cluster has fewer partitions). */
  public List<Integer> choose(Random random, int home, int count) {
    List<Integer> out = new ArrayList<>();
    out.add(home);
    int want = Math.min(count, partitions);
    while (out.size() < want) {
      int rank;
      if (zipf) {
        int i = java.util.Arrays.binarySearch(cdf, random.nextDouble());
        rank = 1 + Math.min(cdf.length - 1, i >= 0 ? i : -i - 1);
      } else {
        rank = 1 + random.nextInt(partitions - 1);
      }
      int p = (home + rank) % partitions;
      if (!out.contains(p)) {
        out.add(p);
      }
    }
    return out;
  }
}
