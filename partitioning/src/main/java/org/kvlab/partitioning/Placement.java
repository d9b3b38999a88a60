package org.kvlab.partitioning;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * Where each vertex of a {@link WorkloadGraph} lives: {@code part[v]} in 0..parts-1, with the measures a placement
 * is judged by.
 *
 * @param parts number of partitions
 * @param part the partition of each vertex, by vertex id
 */
public record Placement(int parts, int[] part) {

  public Placement {
    for (int p : part) {
      if (p < 0 || p >= parts) {
        throw new IllegalArgumentException("partition " + p + " outside 0.." + (parts - 1));
      }
    }
  }

  /** The summed weight of the edges whose ends live apart. */
  public long edgeCut(WorkloadGraph g) {
    long cut = 0;
    for (int v = 0; v < g.vertices(); v++) {
      for (var e : g.neighbours(v).entrySet()) {
        if (e.getKey() > v && part[e.getKey()] != part[v]) {
          cut += e.getValue();
        }
      }
    }
    return cut;
  }

  /** Each partition's summed vertex weight. */
  public long[] loads(WorkloadGraph g) {
    long[] load = new long[parts];
    for (int v = 0; v < g.vertices(); v++) {
      load[part[v]] += g.weight(v);
    }
    return load;
  }

  /** The heaviest partition's load over the mean load (1.0 = perfectly balanced; METIS's 20% = 1.2). */
  public double imbalance(WorkloadGraph g) {
    long[] load = loads(g);
    long max = 0;
    long sum = 0;
    for (long l : load) {
      max = Math.max(max, l);
      sum += l;
    }
    return sum == 0 ? 1.0 : max * (double) parts / sum;
  }

  /** The share of {@code transactions} whose keys live in more than one partition (keys unknown to g count apart). */
  public double multiPartitionShare(WorkloadGraph g, Collection<? extends Collection<String>> transactions) {
    if (transactions.isEmpty()) {
      return 0;
    }
    long multi = 0;
    for (Collection<String> t : transactions) {
      Set<Integer> parts = new HashSet<>();
      for (String k : t) {
        int v = g.id(k);
        parts.add(v < 0 ? -1 - parts.size() : part[v]);
      }
      multi += parts.size() > 1 ? 1 : 0;
    }
    return multi / (double) transactions.size();
  }

  /** The partition of {@code key}, or -1 if g does not know it. */
  public int partOf(WorkloadGraph g, String key) {
    int v = g.id(key);
    return v < 0 ? -1 : part[v];
  }
}
