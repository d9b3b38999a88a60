package org.kvlab.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Small iterative graph algorithms over adjacency arrays (nodes {@code 0..n-1}); no recursion, so deep graphs are fine. */
final class Graphs {
  private Graphs() {}

  /** A growable list of edges, turned into adjacency arrays by {@link #successors(int)}. */
  static final class EdgeList {
    private int[] from = new int[16];
    private int[] to = new int[16];
    private int size;

    void add(int u, int v) {
      if (size == from.length) {
        from = Arrays.copyOf(from, size * 2);
        to = Arrays.copyOf(to, size * 2);
      }
      from[size] = u;
      to[size] = v;
      size++;
    }

    int size() {
      return size;
    }

    int[][] successors(int n) {
      return adjacency(n, from, to);
    }

    int[][] predecessors(int n) {
      return adjacency(n, to, from);
    }

    private int[][] adjacency(int n, int[] a, int[] b) {
      int[] count = new int[n];
      for (int i = 0; i < size; i++) {
        count[a[i]]++;
      }
      int[][] adj = new int[n][];
      for (int i = 0; i < n; i++) {
        adj[i] = new int[count[i]];
      }
      Arrays.fill(count, 0);
      for (int i = 0; i < size; i++) {
        adj[a[i]][count[a[i]]++] = b[i];
      }
      return adj;
    }
  }

  /**
   * Kahn's algorithm: a topological order (FIFO, seeded in node order, so deterministic), or {@code null} if the
   * graph has a cycle.
   */
  static int[] topologicalOrder(int[][] succ) {
    int n = succ.length;
    int[] indegree = new int[n];
    for (int[] s : succ) {
      for (int v : s) {
        indegree[v]++;
      }
    }
    int[] order = new int[n];
    int head = 0;
    int tail = 0;
    for (int v = 0; v < n; v++) {
      if (indegree[v] == 0) {
        order[tail++] = v;
      }
    }
    while (head < tail) {
      int u = order[head++];
      for (int v : succ[u]) {
        if (--indegree[v] == 0) {
          order[tail++] = v;
        }
      }
    }
    return tail == n ? order : null;
  }

  /** Tarjan's strongly connected components (iterative); only components that contain a cycle are returned. */
  static List<int[]> cyclicComponents(int[][] succ) {
    int n = succ.length;
    int[] index = new int[n];
    Arrays.fill(index, -1);
    int[] low = new int[n];
    boolean[] onStack = new boolean[n];
    int[] stack = new int[n];
    int sp = 0;
    int[] callNode = new int[n];
    int[] callEdge = new int[n];
    int counter = 0;
    List<int[]> out = new ArrayList<>();
    for (int root = 0; root < n; root++) {
      if (index[root] != -1) {
        continue;
      }
      int cp = 0;
      callNode[cp] = root;
      callEdge[cp] = 0;
      cp++;
      index[root] = low[root] = counter++;
      stack[sp++] = root;
      onStack[root] = true;
      while (cp > 0) {
        int v = callNode[cp - 1];
        if (callEdge[cp - 1] < succ[v].length) {
          int w = succ[v][callEdge[cp - 1]++];
          if (index[w] == -1) {
            index[w] = low[w] = counter++;
            stack[sp++] = w;
            onStack[w] = true;
            callNode[cp] = w;
            callEdge[cp] = 0;
            cp++;
          } else if (onStack[w]) {
            low[v] = Math.min(low[v], index[w]);
          }
        } else {
          cp--;
          if (cp > 0) {
            int u = callNode[cp - 1];
            low[u] = Math.min(low[u], low[v]);
          }
          if (low[v] == index[v]) {
            int start = sp;
            do {
              start--;
              onStack[stack[start]] = false;
            } while (stack[start] != v);
            int[] comp = Arrays.copyOfRange(stack, start, sp);
            sp = start;
            if (comp.length > 1 || selfLoop(succ, v)) {
              Arrays.sort(comp);
              out.add(comp);
            }
          }
        }
      }
    }
    return out;
  }

  private static boolean selfLoop(int[][] succ, int v) {
    for (int w : succ[v]) {
      if (w == v) {
        return true;
      }
    }
    return false;
  }

  /**
   * A shortest cycle through {@code start} that stays inside {@code component} (sorted node ids, as returned by
   * {@link #cyclicComponents}); the result lists the nodes in order, starting with {@code start} (the closing edge
   * back to it is implied).
   */
  static int[] cycleThrough(int[][] succ, int[] component, int start) {
    int[] parent = new int[component.length];
    Arrays.fill(parent, -2);
    int[] queue = new int[component.length];
    int head = 0;
    int tail = 0;
    int s = Arrays.binarySearch(component, start);
    parent[s] = -1;
    queue[tail++] = start;
    while (head < tail) {
      int u = queue[head++];
      for (int v : succ[u]) {
        if (v == start) {
          return unwind(component, parent, u);
        }
        int vi = Arrays.binarySearch(component, v);
        if (vi >= 0 && parent[vi] == -2) {
          parent[vi] = u;
          queue[tail++] = v;
        }
      }
    }
    throw new IllegalStateException("node " + start + " is on no cycle of its component");
  }

  private static int[] unwind(int[] component, int[] parent, int last) {
    List<Integer> rev = new ArrayList<>();
    for (int u = last; u != -1; u = parent[Arrays.binarySearch(component, u)]) {
      rev.add(u);
    }
    int[] path = new int[rev.size()];
    for (int i = 0; i < path.length; i++) {
      path[i] = rev.get(rev.size() - 1 - i);
    }
    return path;
  }

  /** A shortest path {@code from ⇝ to} (both included), or {@code null} if there is none. */
  static int[] shortestPath(int[][] succ, int from, int to) {
    return shortestPath(succ, from, to, null);
  }

  /**
   * As {@link #shortestPath(int[][], int, int)}, with the same answer, in a DAG whose topological position of
   * each node is {@code pos} (null: no pruning): the search skips nodes after {@code to} in that order, which
   * cannot reach it. (Every node on a path to {@code to} is kept, and so is the order in which the search
   * meets them, so the breadth-first tree up to {@code to}, and the path, do not change.)
   */
  static int[] shortestPath(int[][] succ, int from, int to, int[] pos) {
    return shortestPath(succ, from, to, pos, new Scratch(succ.length));
  }

  /**
   * Working arrays of {@link #shortestPath(int[][], int, int, int[], Scratch)}, reused across searches on one
   * graph: an explanation asks for up to hundreds of chains per history, and two arrays of the graph's size per
   * search were a third of a checked sweep's allocation. Between searches every parent entry is "unvisited".
   */
  static final class Scratch {
    final int[] parent;
    final int[] queue;

    Scratch(int n) {
      parent = new int[n];
      Arrays.fill(parent, -2);
      queue = new int[n];
    }
  }

  /**
   * As {@link #shortestPath(int[][], int, int, int[])}, with the same answer, using {@code scratch} (made for a
   * graph of {@code succ.length} nodes; not shared between threads) instead of new arrays; only the entries the
   * search touched are reset afterwards.
   */
  static int[] shortestPath(int[][] succ, int from, int to, int[] pos, Scratch scratch) {
    if (from == to) {
      return new int[] {from};
    }
    int limit = pos == null ? Integer.MAX_VALUE : pos[to];
    int[] parent = scratch.parent;
    int[] queue = scratch.queue;
    if (parent.length != succ.length) {
      throw new IllegalArgumentException("scratch for " + parent.length + " nodes used on a graph of " + succ.length);
    }
    int head = 0;
    int tail = 0;
    parent[from] = -1;
    queue[tail++] = from;
    int[] path = null;
    search:
    while (head < tail) {
      int u = queue[head++];
      for (int v : succ[u]) {
        if (parent[v] == -2 && (pos == null || pos[v] <= limit)) {
          parent[v] = u;
          if (v == to) {
            int length = 0;
            for (int x = v; x != -1; x = parent[x]) {
              length++;
            }
            path = new int[length];
            for (int x = v, i = length - 1; x != -1; x = parent[x], i--) {
              path[i] = x;
            }
            break search;
          }
          queue[tail++] = v;
        }
      }
    }
    for (int i = 0; i < tail; i++) { // every node given a parent was queued, except the target
      parent[queue[i]] = -2;
    }
    parent[to] = -2;
    return path;
  }
}
