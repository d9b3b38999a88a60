package org.kvlab.partitioning;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * An undirected weighted graph of keys: a vertex per key, weighted by how often it is accessed; an edge between two
 * keys that transactions touch together, weighted by how many did (Schism's and DynaStar's workload graph). Vertices
 * are numbered 0..n-1 in the order they were first seen, so a graph built from the same trace is the same graph.
 * Not thread-safe.
 */
public final class WorkloadGraph {
  private final Map<String, Integer> ids = new HashMap<>();
  private final List<String> names = new ArrayList<>();
  private final List<Long> weights = new ArrayList<>();
  private final List<Map<Integer, Long>> adjacency = new ArrayList<>(); // vertex -> neighbour -> edge weight
  private long edgeCount;

  /** The graph of a trace: each transaction (its keys) adds 1 to each key's weight and to each pair's edge. */
  public static WorkloadGraph of(Collection<? extends Collection<String>> transactions) {
    WorkloadGraph g = new WorkloadGraph();
    for (Collection<String> t : transactions) {
      g.addTransaction(t);
    }
    return g;
  }

  /** Adds one transaction over {@code keys} (duplicates ignored): +1 to each key, +1 to each pair. */
  public void addTransaction(Collection<String> keys) {
    List<Integer> v = new ArrayList<>();
    for (String k : new TreeSet<>(keys)) {
      int id = vertex(k);
      weights.set(id, weights.get(id) + 1);
      v.add(id);
    }
    for (int i = 0; i < v.size(); i++) {
      for (int j = i + 1; j < v.size(); j++) {
        addEdge(v.get(i), v.get(j), 1);
      }
    }
  }

  /** The id of {@code key}, added with weight 0 if new. */
  public int vertex(String key) {
    Integer id = ids.get(key);
    if (id != null) {
      return id;
    }
    int n = names.size();
    ids.put(key, n);
    names.add(key);
    weights.add(0L);
    adjacency.add(new LinkedHashMap<>());
    return n;
  }

  /** Adds {@code w} to the weight of vertex {@code v}. */
  public void addVertexWeight(int v, long w) {
    weights.set(v, weights.get(v) + w);
  }

  /** Adds {@code w} to the edge between {@code a} and {@code b} (distinct vertices). */
  public void addEdge(int a, int b, long w) {
    if (a == b) {
      throw new IllegalArgumentException("an edge needs two distinct vertices, got " + a + " twice");
    }
    if (adjacency.get(a).merge(b, w, Long::sum) == w) {
      edgeCount++;
    }
    adjacency.get(b).merge(a, w, Long::sum);
  }

  /**
   * A copy that later changes to this graph leave alone (for a partitioner run off its owner's event loop); with
   * {@code unitWeights} every vertex weighs 1, so a partitioner balances the number of keys per part (the data), not
   * their accesses (the load).
   */
  public WorkloadGraph copy(boolean unitWeights) {
    WorkloadGraph c = new WorkloadGraph();
    c.ids.putAll(ids);
    c.names.addAll(names);
    if (unitWeights) {
      c.weights.addAll(Collections.nCopies(weights.size(), 1L));
    } else {
      c.weights.addAll(weights);
    }
    for (Map<Integer, Long> a : adjacency) {
      c.adjacency.add(new LinkedHashMap<>(a));
    }
    c.edgeCount = edgeCount;
    return c;
  }

  public int vertices() {
    return names.size();
  }

  /** Distinct undirected edges. */
  public long edges() {
    return edgeCount;
  }

  public String name(int v) {
    return names.get(v);
  }

  /** The id of {@code key}, or -1. */
  public int id(String key) {
    return ids.getOrDefault(key, -1);
  }

  public long weight(int v) {
    return weights.get(v);
  }

  /** Neighbour -> edge weight, in the order edges were added. */
  public Map<Integer, Long> neighbours(int v) {
    return Collections.unmodifiableMap(adjacency.get(v));
  }

  public long totalWeight() {
    long s = 0;
    for (long w : weights) {
      s += w;
    }
    return s;
  }
}
