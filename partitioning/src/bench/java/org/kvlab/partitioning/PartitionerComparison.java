package org.kvlab.partitioning;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * METIS ({@code gpmetis}) beside the pure-Java greedy partitioner on the same workload graphs: edge cut, load
 * imbalance, share of the trace's multi-partition transactions, and wall time (median of 3 runs, the graph file
 * write and gpmetis's start included). Graphs: planted groups (each transaction inside one group but 5%), and a
 * social graph grown by preferential attachment whose transactions read a user's timeline (the user and up to 10
 * users it follows), the shape of DynaStar's Chirper.
 *
 * <p>{@code scripts/bench/eval partitioning PartitionerComparison} prints the markdown table of
 * docs/benchmarks/dynastar.md.
 */
public final class PartitionerComparison {
  private PartitionerComparison() {}

  record Case(String name, List<List<String>> trace, int parts) {}

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("--help")) {
      System.out.println("usage: PartitionerComparison   (prints a markdown table; needs gpmetis: scripts/test-env/metis install)");
      return;
    }
    List<Case> cases = List.of(
        new Case("planted 4x250", planted(4, 250, 20_000, 0.05, 1), 4),
        new Case("planted 16x1000", planted(16, 1_000, 200_000, 0.05, 2), 16),
        new Case("social 10k users", social(10_000, 5, 100_000, 3), 4),
        new Case("social 50k users", social(50_000, 5, 300_000, 4), 8));
    List<Partitioner> partitioners = List.of(new MetisPartitioner(), new GreedyPartitioner());
    System.out.println("| graph | vertices | edges | parts | partitioner | edge cut | imbalance | multi-partition |"
        + " time (ms, median of 3) |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    for (Case c : cases) {
      WorkloadGraph g = WorkloadGraph.of(c.trace());
      for (Partitioner p : partitioners) {
        long[] ms = new long[3];
        Placement placed = null;
        for (int i = 0; i < ms.length; i++) {
          long start = System.nanoTime();
          placed = p.partition(g, c.parts(), 1.2, 1);
          ms[i] = (System.nanoTime() - start) / 1_000_000;
        }
        Arrays.sort(ms);
        System.out.printf(Locale.ROOT, "| %s | %,d | %,d | %d | %s | %,d | %.2f | %.1f%% | %d |%n", c.name(),
            g.vertices(), g.edges(), c.parts(), p.name(), placed.edgeCut(g), placed.imbalance(g),
            100 * placed.multiPartitionShare(g, c.trace()), ms[1]);
      }
    }
  }

  static List<List<String>> planted(int groups, int keys, int transactions, double cross, long seed) {
    Random r = new Random(seed);
    List<List<String>> out = new ArrayList<>();
    for (int t = 0; t < transactions; t++) {
      int g = r.nextInt(groups);
      List<String> k = new ArrayList<>(List.of("g" + g + "-" + r.nextInt(keys), "g" + g + "-" + r.nextInt(keys)));
      if (r.nextDouble() < cross) {
        k.set(0, "g" + ((g + 1 + r.nextInt(groups - 1)) % groups) + "-" + r.nextInt(keys));
      }
      out.add(k);
    }
    return out;
  }

  /** Users follow {@code follows} earlier users chosen by preferential attachment; a timeline read per transaction. */
  static List<List<String>> social(int users, int follows, int transactions, long seed) {
    Random r = new Random(seed);
    List<List<Integer>> following = new ArrayList<>();
    List<Integer> endpoints = new ArrayList<>(); // a user once per follower it has, plus once: attachment weights
    for (int u = 0; u < users; u++) {
      List<Integer> f = new ArrayList<>();
      for (int i = 0; i < follows && !endpoints.isEmpty(); i++) {
        int v = endpoints.get(r.nextInt(endpoints.size()));
        if (!f.contains(v)) {
          f.add(v);
          endpoints.add(v);
        }
      }
      following.add(f);
      endpoints.add(u);
    }
    List<List<String>> out = new ArrayList<>();
    for (int t = 0; t < transactions; t++) {
      int u = r.nextInt(users);
      List<String> k = new ArrayList<>();
      k.add("u" + u);
      for (int v : following.get(u).subList(0, Math.min(10, following.get(u).size()))) {
        k.add("u" + v);
      }
      out.add(k);
    }
    return out;
  }
}
