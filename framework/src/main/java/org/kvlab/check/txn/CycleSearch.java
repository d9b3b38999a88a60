package org.kvlab.check.txn;

import static org.kvlab.check.txn.DependencyGraph.DEPENDENCIES;
import static org.kvlab.check.txn.DependencyGraph.REALTIME;
import static org.kvlab.check.txn.DependencyGraph.RW;
import static org.kvlab.check.txn.DependencyGraph.SESSION;
import static org.kvlab.check.txn.DependencyGraph.WR;
import static org.kvlab.check.txn.DependencyGraph.WW;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds and names the cycles of a dependency graph (Elle's approach): strongly connected components first, over all
 * edges the model uses; then, inside each component of two or more transactions only, shortest cycles (breadth first)
 * in subgraphs of growing edge sets, each named by Adya's classes:
 * <ul>
 *   <li>G0 (write cycle): ww edges only;
 *   <li>G1c (circular information flow): ww and wr edges, at least one wr;
 *   <li>G-single (read skew): exactly one rw edge, the rest ww or wr;
 *   <li>G2-item (write skew, anti-dependency cycle): two or more rw edges;
 *   <li>with {@code -process} or {@code -realtime} appended: a cycle that needs session or real-time order (only
 *       searched when the component has no cycle of dependencies alone, as only strict serializability asks).
 * </ul>
 * At most one cycle of each class is reported per component; a component has at least one.
 */
final class CycleSearch {
  static final String G0 = "G0";
  static final String G1C = "G1c";
  static final String G_SINGLE = "G-single";
  static final String G2 = "G2-item";
  /** G-single attempts (one breadth-first search each) per component whose rw edge has no guaranteed way back. */
  private static final int ATTEMPTS = 16;

  private final DependencyGraph g;
  private final Dependencies d;
  private final TxnHistory h;
  int components;
  int largest;

  CycleSearch(DependencyGraph g, Dependencies d, TxnHistory h) {
    this.g = g;
    this.d = d;
    this.h = h;
  }

  void run(int mask) {
    int n = g.n;
    int[] all = new int[n];
    for (int i = 0; i < n; i++) {
      all[i] = i;
    }
    int[] comp = g.components(all, null, 0, mask);
    int count = 0;
    for (int c : comp) {
      count = Math.max(count, c + 1);
    }
    int[] size = new int[count + 1];
    for (int c : comp) {
      size[c + 1]++;
    }
    for (int c = 0; c < count; c++) {
      size[c + 1] += size[c];
    }
    int[] members = new int[n];
    int[] fill = java.util.Arrays.copyOf(size, count);
    for (int v = 0; v < n; v++) {
      members[fill[comp[v]]++] = v;
    }
    for (int c = 0; c < count; c++) {
      int s = size[c + 1] - size[c];
      if (s >= 2) {
        components++;
        largest = Math.max(largest, s);
        search(java.util.Arrays.copyOfRange(members, size[c], size[c + 1]), comp, c, mask);
      }
    }
  }

  private void search(int[] m, int[] comp, int c, int mask) {
    boolean found = false;
    // G0: a cycle of ww edges
    int[] ww = g.components(m, comp, c, WW);
    int s = nontrivial(ww);
    if (s >= 0) {
      report(g.shortestPath(m[s], m[s], WW, comp, c), WW);
      found = true;
    }
    // G1c: a cycle of ww and wr edges through a wr edge
    int[] wwr = g.components(m, comp, c, WW | WR);
    int e = edgeWithin(m, wwr, comp, c, WR);
    if (e >= 0) {
      report(prepend(e, g.shortestPath(g.target[e], g.source(e), WW | WR, comp, c)), WW | WR);
      found = true;
    }
    // G-single: one rw edge, back by ww and wr
    boolean single = false;
    int attempts = 0;
    for (int i = 0; i < m.length && !single && attempts < ATTEMPTS; i++) {
      for (int x = g.start[m[i]]; x < g.start[m[i] + 1] && !single && attempts < ATTEMPTS; x++) {
        int b = g.target[x];
        if ((g.kinds[x] & RW) == 0 || (g.kinds[x] & (WW | WR)) != 0 || comp[b] != c) {
          continue;
        }
        boolean sure = wwr[i] == wwr[indexOf(m, b)];
        if (!sure) {
          attempts++;
        }
        int[] back = g.shortestPath(b, m[i], WW | WR, comp, c);
        if (back != null) {
          report(prepend(x, back), RW | WW | WR, RW);
          single = true;
          found = true;
        }
      }
    }
    // G2-item: a cycle through two or more rw edges
    if (!single) {
      int[] deps = g.components(m, comp, c, DEPENDENCIES);
      int r = edgeWithin(m, deps, comp, c, RW);
      if (r >= 0) {
        report(prepend(r, g.shortestPath(g.target[r], g.source(r), DEPENDENCIES, comp, c)), DEPENDENCIES, RW);
        found = true;
      }
    }
    // a cycle only session or real-time order closes
    if (!found && (mask & (SESSION | REALTIME)) != 0) {
      int[] any = g.components(m, comp, c, mask);
      int o = edgeWithin(m, any, comp, c, SESSION | REALTIME);
      if (o >= 0) {
        report(prepend(o, g.shortestPath(g.target[o], g.source(o), mask, comp, c)), mask);
      }
    }
  }

  /** The position of node {@code v} in the sorted member list {@code m}. */
  private static int indexOf(int[] m, int v) {
    return java.util.Arrays.binarySearch(m, v);
  }

  /** A member in a sub-component of two or more members, or -1. */
  private static int nontrivial(int[] sub) {
    int[] seen = new int[sub.length];
    for (int i = 0; i < sub.length; i++) {
      if (++seen[sub[i]] == 2) {
        return i;
      }
    }
    return -1;
  }

  /** An edge of a kind in {@code kind} whose two ends are in one sub-component, or -1. */
  private int edgeWithin(int[] m, int[] sub, int[] comp, int c, int kind) {
    for (int i = 0; i < m.length; i++) {
      for (int x = g.start[m[i]]; x < g.start[m[i] + 1]; x++) {
        int b = g.target[x];
        if ((g.kinds[x] & kind) != 0 && comp[b] == c && sub[indexOf(m, b)] == sub[i]) {
          return x;
        }
      }
    }
    return -1;
  }

  private static int[] prepend(int e, int[] path) {
    if (path == null) {
      return null;
    }
    int[] out = new int[path.length + 1];
    out[0] = e;
    System.arraycopy(path, 0, out, 1, path.length);
    return out;
  }

  private void report(int[] cycle, int mask) {
    report(cycle, mask, 0);
  }

  /** Names and explains {@code cycle} (edge indexes), each edge named by its first kind in {@code mask}. */
  private void report(int[] cycle, int mask, int firstKind) {
    if (cycle == null) {
      return; // cannot happen inside a strongly connected subgraph; nothing to report
    }
    byte[] kinds = new byte[cycle.length];
    int rw = 0;
    boolean wr = false;
    boolean session = false;
    boolean realtime = false;
    for (int i = 0; i < cycle.length; i++) {
      kinds[i] = i == 0 && firstKind != 0 ? (byte) firstKind : DependencyGraph.first(g.kinds[cycle[i]] & mask);
      rw += kinds[i] == RW ? 1 : 0;
      wr |= kinds[i] == WR;
      session |= kinds[i] == SESSION;
      realtime |= kinds[i] == REALTIME;
    }
    String kind = rw >= 2 ? G2 : rw == 1 ? G_SINGLE : wr ? G1C : G0;
    String what = switch (kind) {
      case G0 -> "write cycle: transactions overwrote each other's writes in a circle";
      case G1C -> "circular information flow: each transaction saw or overwrote the next one's writes";
      case G_SINGLE -> "read skew: the cycle has one anti-dependency (rw: a transaction did not see another's write)";
      default -> "write skew: the cycle has " + rw + " anti-dependencies (rw: a transaction did not see another's"
          + " write)";
    };
    if (realtime) {
      kind += "-realtime";
      what += ", with real-time order (a transaction completed before the next was invoked)";
    } else if (session) {
      kind += "-process";
      what += ", with session order";
    }
    StringBuilder b = new StringBuilder(kind + " (" + what + "): a cycle of " + cycle.length + " transactions: ");
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < cycle.length; i++) {
      int a = g.source(cycle[i]);
      ids.add(h.id[a]);
      b.append(i == 0 ? "" : "; ").append(h.describe(a));
    }
    b.append(". ");
    for (int i = 0; i < cycle.length; i++) {
      int a = g.source(cycle[i]);
      int to = g.target[cycle[i]];
      b.append("#").append(h.id[a]).append(" -").append(DependencyGraph.name(kinds[i])).append("-> #")
          .append(h.id[to]).append(": ").append(d.why(a, to, kinds[i])).append(". ");
    }
    b.append("Each edge says its first transaction must come before its second in any serial order: no such order"
        + " exists");
    h.report(kind, b.toString(), ids);
  }
}
