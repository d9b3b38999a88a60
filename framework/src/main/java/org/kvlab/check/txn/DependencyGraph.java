package org.kvlab.check.txn;

import java.util.Arrays;

/**
 * A directed graph over transactions 0..n-1 whose edges carry a set of kinds (bits: {@link #WW}, {@link #WR},
 * {@link #RW}, {@link #SESSION}, {@link #REALTIME}), stored as compressed adjacency arrays (one int and one byte per
 * distinct edge). Searches are restricted to a mask of kinds and to one component, and take time linear in what
 * they visit: strongly connected components (Tarjan, iterative) and shortest paths (breadth first).
 */
final class DependencyGraph {
  static final byte WW = 1;
  static final byte WR = 2;
  static final byte RW = 4;
  static final byte SESSION = 8;
  static final byte REALTIME = 16;
  static final byte DEPENDENCIES = WW | WR | RW;

  final int n;
  final int[] start; // node v's edges: start[v] .. start[v+1]-1
  final int[] target;
  final byte[] kinds;

  private DependencyGraph(int n, int[] start, int[] target, byte[] kinds) {
    this.n = n;
    this.start = start;
    this.target = target;
    this.kinds = kinds;
  }

  int edges() {
    return target.length;
  }

  /** Kind names for explanations, e.g. {@code ww}. */
  static String name(byte kind) {
    return switch (kind) {
      case WW -> "ww";
      case WR -> "wr";
      case RW -> "rw";
      case SESSION -> "session";
      case REALTIME -> "realtime";
      default -> "?";
    };
  }

  /** The one kind of {@code bits} an explanation names: dependencies before orders, ww before wr before rw. */
  static byte first(int bits) {
    for (byte k : new byte[] {WW, WR, RW, SESSION, REALTIME}) {
      if ((bits & k) != 0) {
        return k;
      }
    }
    return 0;
  }

  /** Collects edges, then builds the graph (merging repeated edges' kinds). */
  static final class Builder {
    private final int n;
    private int size;
    private int[] from = new int[1024];
    private int[] to = new int[1024];
    private byte[] kind = new byte[1024];

    Builder(int n) {
      this.n = n;
    }

    void add(int a, int b, byte k) {
      if (a == b || a < 0 || b < 0) {
        return;
      }
      if (size == from.length) {
        from = Arrays.copyOf(from, size * 2);
        to = Arrays.copyOf(to, size * 2);
        kind = Arrays.copyOf(kind, size * 2);
      }
      from[size] = a;
      to[size] = b;
      kind[size++] = k;
    }

    DependencyGraph build() {
      int[] count = new int[n + 1];
      for (int i = 0; i < size; i++) {
        count[from[i] + 1]++;
      }
      for (int v = 0; v < n; v++) {
        count[v + 1] += count[v];
      }
      long[] packed = new long[size]; // per source, (target << 8 | kind), sorted to merge repeats
      int[] fill = Arrays.copyOf(count, n);
      for (int i = 0; i < size; i++) {
        packed[fill[from[i]]++] = ((long) to[i] << 8) | kind[i];
      }
      from = null;
      to = null;
      kind = null;
      int[] start = new int[n + 1];
      int m = 0;
      for (int v = 0; v < n; v++) {
        Arrays.sort(packed, count[v], count[v + 1]);
        start[v] = m;
        for (int i = count[v]; i < count[v + 1]; i++) {
          long p = packed[i];
          if (m > start[v] && (packed[m - 1] >>> 8) == (p >>> 8)) {
            packed[m - 1] |= p & 0xff;
          } else {
            packed[m++] = p;
          }
        }
      }
      start[n] = m;
      int[] target = new int[m];
      byte[] kinds = new byte[m];
      for (int i = 0; i < m; i++) {
        target[i] = (int) (packed[i] >>> 8);
        kinds[i] = (byte) packed[i];
      }
      return new DependencyGraph(n, start, target, kinds);
    }
  }

  /**
   * The strongly connected components of the subgraph of {@code nodes} (those with {@code comp[v] == c}, or all if
   * {@code comp} is null) over edges with a kind in {@code mask}.
   *
   * @return per node of {@code nodes}, in the same order, its component number (0, 1, ...); components of one node
   *     without a self loop are trivial (callers look at sizes)
   */
  int[] components(int[] nodes, int[] comp, int c, int mask) {
    int k = nodes.length;
    if (local == null) {
      local = new int[n]; // node → index in nodes + 1 (0: not in the subgraph); reset at the end
    }
    for (int i = 0; i < k; i++) {
      local[nodes[i]] = i + 1;
    }
    int[] index = new int[k];
    Arrays.fill(index, -1);
    int[] low = new int[k];
    boolean[] onStack = new boolean[k];
    int[] stack = new int[k];
    int sp = 0;
    int[] callNode = new int[k];
    int[] callEdge = new int[k];
    int[] out = new int[k];
    int counter = 0;
    int comps = 0;
    for (int root = 0; root < k; root++) {
      if (index[root] >= 0) {
        continue;
      }
      int depth = 0;
      callNode[0] = root;
      callEdge[0] = start[nodes[root]];
      index[root] = low[root] = counter++;
      stack[sp++] = root;
      onStack[root] = true;
      while (depth >= 0) {
        int u = callNode[depth];
        int gu = nodes[u];
        if (callEdge[depth] < start[gu + 1]) {
          int e = callEdge[depth]++;
          if ((kinds[e] & mask) == 0) {
            continue;
          }
          int gw = target[e];
          int w = local[gw] - 1;
          if (w < 0 || (comp != null && comp[gw] != c)) {
            continue;
          }
          if (index[w] < 0) {
            index[w] = low[w] = counter++;
            stack[sp++] = w;
            onStack[w] = true;
            depth++;
            callNode[depth] = w;
            callEdge[depth] = start[gw];
          } else if (onStack[w]) {
            low[u] = Math.min(low[u], index[w]);
          }
        } else {
          if (low[u] == index[u]) {
            int w;
            do {
              w = stack[--sp];
              onStack[w] = false;
              out[w] = comps;
            } while (w != u);
            comps++;
          }
          depth--;
          if (depth >= 0) {
            int p = callNode[depth];
            low[p] = Math.min(low[p], low[u]);
          }
        }
      }
    }
    for (int v : nodes) {
      local[v] = 0;
    }
    return out;
  }

  private int[] local;
  private int[] dist;
  private int[] parentEdge;

  /**
   * A shortest path from {@code from} to {@code to} over edges with a kind in {@code mask}, staying inside
   * {@code comp[v] == c}; {@code from == to} finds a shortest cycle through it.
   *
   * @return the edge indexes of the path, in order, or null if there is none
   */
  int[] shortestPath(int from, int to, int mask, int[] comp, int c) {
    if (dist == null) {
      dist = new int[n];
      parentEdge = new int[n];
      Arrays.fill(dist, -1);
    }
    int[] queue = new int[16];
    int head = 0;
    int tail = 0;
    queue[tail++] = from;
    dist[from] = 0;
    int[] touched = new int[16];
    int touchedCount = 0;
    touched[touchedCount++] = from;
    int found = -1; // the last edge, into `to`
    while (head < tail && found < 0) {
      int u = queue[head++];
      for (int e = start[u]; e < start[u + 1]; e++) {
        int w = target[e];
        if ((kinds[e] & mask) == 0 || comp[w] != c) {
          continue;
        }
        if (w == to) {
          found = e;
          break;
        }
        if (dist[w] < 0) {
          dist[w] = dist[u] + 1;
          parentEdge[w] = e;
          if (tail == queue.length) {
            queue = Arrays.copyOf(queue, tail * 2);
          }
          queue[tail++] = w;
          if (touchedCount == touched.length) {
            touched = Arrays.copyOf(touched, touchedCount * 2);
          }
          touched[touchedCount++] = w;
        }
      }
    }
    int[] path = null;
    if (found >= 0) {
      int[] rev = new int[16];
      int len = 0;
      rev[len++] = found;
      int v = source(found);
      while (v != from) {
        int e = parentEdge[v];
        if (len == rev.length) {
          rev = Arrays.copyOf(rev, len * 2);
        }
        rev[len++] = e;
        v = source(e);
      }
      path = new int[len];
      for (int i = 0; i < len; i++) {
        path[i] = rev[len - 1 - i];
      }
    }
    for (int i = 0; i < touchedCount; i++) {
      dist[touched[i]] = -1;
    }
    return path;
  }

  /** The source of edge {@code e} (binary search in the adjacency offsets). */
  int source(int e) {
    int lo = 0;
    int hi = n - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (start[mid] <= e) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }
}
