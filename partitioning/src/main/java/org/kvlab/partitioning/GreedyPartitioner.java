package org.kvlab.partitioning;

import java.util.Arrays;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * The pure-Java partitioner for machines without METIS: greedy graph growing (each partition grows from the heaviest
 * free vertex by taking the free vertex most strongly connected to it, until it holds its share of the load), then
 * boundary refinement passes (a vertex moves to the partition it is most connected to when that lowers the cut and
 * keeps the load bound), the best of a few restarts. No coarsening, so on large graphs METIS's multilevel scheme finds
 * smaller cuts, faster; docs/benchmarks/dynastar.md compares the two on the same graphs.
 */
public final class GreedyPartitioner implements Partitioner {
  private static final int RESTARTS = 4;
  private static final int MAX_PASSES = 30;

  @Override
  public String name() {
    return "greedy";
  }

  @Override
  public Placement partition(WorkloadGraph g, int parts, double imbalance, long seed) {
    if (parts < 1) {
      throw new IllegalArgumentException("parts must be at least 1, got " + parts);
    }
    if (imbalance < 1) {
      throw new IllegalArgumentException("imbalance is a bound on load over the mean, at least 1.0, got " + imbalance);
    }
    int n = g.vertices();
    if (parts == 1 || n == 0) {
      return new Placement(parts, new int[n]);
    }
    Random random = new Random(seed);
    Placement best = null;
    long bestCut = Long.MAX_VALUE;
    double bestImbalance = Double.MAX_VALUE;
    for (int r = 0; r < RESTARTS; r++) {
      int[] part = grow(g, parts, random);
      refine(g, part, parts, imbalance, random);
      Placement p = new Placement(parts, part);
      long cut = p.edgeCut(g);
      double imb = p.imbalance(g);
      boolean fits = imb <= imbalance + 1e-9;
      boolean bestFits = bestImbalance <= imbalance + 1e-9;
      if (best == null || (fits && !bestFits) || (fits == bestFits && (fits ? cut < bestCut : imb < bestImbalance))) {
        best = p;
        bestCut = cut;
        bestImbalance = imb;
      }
    }
    return best;
  }

  /** Greedy growing: partition p takes free vertices most connected to it until its load reaches total/parts. */
  private static int[] grow(WorkloadGraph g, int parts, Random random) {
    int n = g.vertices();
    int[] part = new int[n];
    Arrays.fill(part, -1);
    long total = Math.max(1, weightSum(g));
    long[] conn = new long[n];
    int free = n;
    for (int p = 0; p < parts - 1 && free > 0; p++) {
      long target = (total - assignedLoad(g, part)) / (parts - p);
      long load = 0;
      Arrays.fill(conn, 0);
      PriorityQueue<long[]> frontier = new PriorityQueue<>((a, b) -> Long.compare(b[0], a[0])); // {conn, vertex}
      while (load < target && free > 0) {
        int v = -1;
        while (!frontier.isEmpty()) {
          long[] top = frontier.poll();
          int u = (int) top[1];
          if (part[u] == -1 && conn[u] == top[0]) {
            v = u;
            break;
          }
        }
        if (v == -1) {
          v = seed(g, part, random);
        }
        part[v] = p;
        free--;
        load += weightOf(g, v);
        for (Map.Entry<Integer, Long> e : g.neighbours(v).entrySet()) {
          int u = e.getKey();
          if (part[u] == -1) {
            conn[u] += e.getValue();
            frontier.add(new long[] {conn[u], u});
          }
        }
      }
    }
    for (int v = 0; v < n; v++) {
      if (part[v] == -1) {
        part[v] = parts - 1;
      }
    }
    return part;
  }

  /** A free vertex to start from: the heaviest, ties broken at random. */
  private static int seed(WorkloadGraph g, int[] part, Random random) {
    int best = -1;
    long bestWeight = -1;
    int ties = 0;
    for (int v = 0; v < g.vertices(); v++) {
      if (part[v] != -1) {
        continue;
      }
      long w = weightOf(g, v);
      if (w > bestWeight) {
        best = v;
        bestWeight = w;
        ties = 1;
      } else if (w == bestWeight && random.nextInt(++ties) == 0) {
        best = v;
      }
    }
    return best;
  }

  /** Moves boundary vertices to the partition they are most connected to while that lowers the cut within the bound. */
  private static void refine(WorkloadGraph g, int[] part, int parts, double imbalance, Random random) {
    int n = g.vertices();
    long[] load = new long[parts];
    for (int v = 0; v < n; v++) {
      load[part[v]] += weightOf(g, v);
    }
    long max = (long) Math.floor(imbalance * weightSum(g) / parts);
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    long[] conn = new long[parts];
    for (int pass = 0; pass < MAX_PASSES; pass++) {
      shuffle(order, random);
      boolean moved = false;
      for (int v : order) {
        Arrays.fill(conn, 0);
        for (Map.Entry<Integer, Long> e : g.neighbours(v).entrySet()) {
          conn[part[e.getKey()]] += e.getValue();
        }
        int from = part[v];
        long w = weightOf(g, v);
        boolean shed = load[from] > max; // an overloaded partition gives a vertex away even at a loss
        int to = -1;
        long bestGain = Long.MIN_VALUE;
        for (int q = 0; q < parts; q++) {
          if (q == from || load[q] + w > max) {
            continue;
          }
          long gain = conn[q] - conn[from];
          boolean evener = gain == 0 && load[q] + w < load[from]; // same cut, evener loads: finitely many such moves
          if ((gain > 0 || evener || shed) && gain > bestGain) {
            to = q;
            bestGain = gain;
          }
        }
        if (to != -1) {
          part[v] = to;
          load[from] -= w;
          load[to] += w;
          moved = true;
        }
      }
      if (!moved) {
        return;
      }
    }
  }

  private static void shuffle(int[] a, Random random) {
    for (int i = a.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }

  /** Vertices of weight 0 count 1, as METIS is given them: both partitioners balance the same loads. */
  private static long weightOf(WorkloadGraph g, int v) {
    return Math.max(1, g.weight(v));
  }

  private static long weightSum(WorkloadGraph g) {
    long s = 0;
    for (int v = 0; v < g.vertices(); v++) {
      s += weightOf(g, v);
    }
    return s;
  }

  private static long assignedLoad(WorkloadGraph g, int[] part) {
    long s = 0;
    for (int v = 0; v < g.vertices(); v++) {
      if (part[v] != -1) {
        s += weightOf(g, v);
      }
    }
    return s;
  }
}
