package org.kvlab.partitioning;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * "Where should my keys live?" asked of a trace: the trace's workload graph partitioned by a {@link Partitioner},
 * beside a baseline placement (kvlab's own: a hash of the key), each measured by its share of multi-partition
 * transactions, edge cut and load imbalance.
 *
 * @param graph the trace's workload graph
 * @param transactions how many transactions the trace holds
 * @param baseline the baseline placement's measures
 * @param proposed the partitioner's placement's measures
 * @param base the baseline placement (by vertex of {@code graph})
 * @param placement the partitioner's placement (by vertex of {@code graph})
 * @param partitioner the partitioner's name
 * @param millis the partitioner's wall time
 */
public record PlacementAdvice(WorkloadGraph graph, int transactions, Measures baseline, Measures proposed,
    Placement base, Placement placement, String partitioner, long millis) {

  /** A placement's measures: multi-partition share of the trace's transactions, edge cut, imbalance (max/mean). */
  public record Measures(double multiPartitionShare, long edgeCut, double imbalance) {
    static Measures of(Placement p, WorkloadGraph g, Collection<? extends Collection<String>> trace) {
      return new Measures(p.multiPartitionShare(g, trace), p.edgeCut(g), p.imbalance(g));
    }
  }

  /**
   * @param baseline the partition of a key in the placement to compare with (e.g. kvlab's hash)
   */
  public static PlacementAdvice advise(List<? extends Collection<String>> trace, int parts, Partitioner partitioner,
      double imbalance, long seed, ToIntFunction<String> baseline) {
    if (trace.isEmpty()) {
      throw new IllegalArgumentException("the trace holds no transaction. Fix: record one (kvlab.history=FILE with"
          + " YCSB, ./kvlab shell --history, ./kvlab sim --history) or write one transaction's keys per line");
    }
    WorkloadGraph g = WorkloadGraph.of(trace);
    int[] base = new int[g.vertices()];
    for (int v = 0; v < base.length; v++) {
      base[v] = baseline.applyAsInt(g.name(v));
    }
    Placement hashed = new Placement(parts, base);
    long start = System.nanoTime();
    Placement p = partitioner.partition(g, parts, imbalance, seed);
    long millis = (System.nanoTime() - start) / 1_000_000;
    return new PlacementAdvice(g, trace.size(), Measures.of(hashed, g, trace), Measures.of(p, g, trace), hashed, p,
        partitioner.name(), millis);
  }

  /**
   * One key group (the keys sharing a {@link #group} name): the transactions touching it, and how many of them are
   * multi-partition under the baseline and under the proposed placement.
   */
  public record GroupShare(String group, int keys, int transactions, int multiBefore, int multiAfter) {}

  /** The group of a key: its text before the first ':', else without trailing digits and separators (user42 → user). */
  public static String group(String key) {
    int colon = key.indexOf(':');
    if (colon > 0) {
      return key.substring(0, colon);
    }
    String g = key.replaceAll("[0-9]+$", "").replaceAll("[-_.]+$", "");
    return g.isEmpty() ? key : g;
  }

  /** Per key group of {@code trace} (the trace this advice was made from), most transactions first. */
  public List<GroupShare> groups(List<? extends Collection<String>> trace) {
    java.util.Map<String, int[]> acc = new java.util.TreeMap<>(); // keys, transactions, before, after
    for (int v = 0; v < graph.vertices(); v++) {
      acc.computeIfAbsent(group(graph.name(v)), k -> new int[4])[0]++;
    }
    for (Collection<String> t : trace) {
      java.util.Set<Integer> before = new java.util.HashSet<>();
      java.util.Set<Integer> after = new java.util.HashSet<>();
      java.util.Set<String> groups = new java.util.TreeSet<>();
      for (String k : t) {
        int v = graph.id(k);
        before.add(base.part()[v]);
        after.add(placement.part()[v]);
        groups.add(group(k));
      }
      for (String g : groups) {
        int[] a = acc.get(g);
        a[1]++;
        a[2] += before.size() > 1 ? 1 : 0;
        a[3] += after.size() > 1 ? 1 : 0;
      }
    }
    List<GroupShare> out = new java.util.ArrayList<>();
    acc.forEach((g, a) -> out.add(new GroupShare(g, a[0], a[1], a[2], a[3])));
    out.sort(java.util.Comparator.comparingInt(GroupShare::transactions).reversed()
        .thenComparing(GroupShare::group));
    return out;
  }

  /** Writes the proposed placement as {@code key<TAB>partition} lines, in the order keys were first seen. */
  public void writeMap(Path file) throws IOException {
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (int v = 0; v < graph.vertices(); v++) {
        w.write(graph.name(v) + "\t" + placement.part()[v] + "\n");
      }
    }
  }
}
