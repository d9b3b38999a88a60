package org.kvlab.check;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kvlab.history.Operation;

/**
 * Happens-before (seed 003 Def 8): the transitive closure of session order and reads-from, over the operations of
 * {@link HistoryModel#inGraph} — either all of them, or only those touching one key (the per-key order used for the
 * per-key session guarantees, Defs 4–7).
 *
 * <p>Algorithm: build the graph (one session-order edge from each operation's previous OK operation in its session,
 * one reads-from edge per read value), sort it topologically (Kahn), number the PUTs in that order ("ranks") and give
 * every PUT a {@link BitSet} of the ranks of the PUTs in its causal past (itself included). A read's causal past is
 * the union of its session predecessor's and of the PUTs it read from; it is computed on the fly and handed to a
 * {@link Visitor} instead of being stored, so memory is {@code W²/8} bytes for W PUTs (12.5 MB for 10,000) and time
 * is {@code O((n + E) · W/64)}. Because ranks follow a topological order, if PUT a happens before PUT b then
 * {@code rank(a) < rank(b)}: the highest set bit of a set of PUTs is always a maximal one ({@link #maximal}).
 *
 * <p>If the graph has a cycle (an operation happens before itself, e.g. a read from the future) no past is computed:
 * {@link #cycles()} lists one cycle per cyclic strongly connected component and the visitor is not called.
 */
final class CausalOrder {
  /** Called once per node, in a topological order (so in session order within a session). */
  interface Visitor {
    /**
     * @param order this order; pasts of the PUTs visited so far are available
     * @param op the operation's index
     * @param sessionPast ranks of the PUTs in the causal past of the operation's session predecessor (do not modify)
     * @param past ranks of the PUTs in the operation's causal past: {@code sessionPast}, the pasts of the PUTs it read
     *     from, and itself if it is a PUT (do not modify)
     */
    void visit(CausalOrder order, int op, BitSet sessionPast, BitSet past);
  }

  private static final BitSet EMPTY = new BitSet();

  private final HistoryModel m;
  private final String key;
  private final int[] nodeOp;
  private final Map<Integer, Integer> nodeOfOp = new HashMap<>();
  private final int[][] succ;
  private final int[] rankOfNode;
  private int[] opOfRank = new int[0];
  private BitSet[] pastOfRank = new BitSet[0];
  private final Map<String, BitSet> writesOfKey = new HashMap<>();
  private final List<int[]> cycles = new ArrayList<>();

  /** The causal order over all operations ({@code key == null}) or over those touching {@code key}. */
  static CausalOrder compute(HistoryModel m, String key, Visitor visitor) {
    return new CausalOrder(m, key, visitor);
  }

  private CausalOrder(HistoryModel m, String key, Visitor visitor) {
    this.m = m;
    this.key = key;
    List<Integer> ops;
    if (key == null) {
      ops = new ArrayList<>();
      for (int i = 0; i < m.n; i++) {
        if (m.inGraph[i]) {
          ops.add(i);
        }
      }
    } else {
      ops = m.opsByKey.getOrDefault(key, List.of());
    }
    int n = ops.size();
    nodeOp = new int[n];
    for (int u = 0; u < n; u++) {
      nodeOp[u] = ops.get(u);
      nodeOfOp.put(nodeOp[u], u);
    }

    // edges: session order (from the previous OK operation of the session) and reads-from
    Graphs.EdgeList edges = new Graphs.EdgeList();
    int[] sessionPred = new int[n];
    Map<Integer, Integer> lastOk = new HashMap<>();
    for (int u = 0; u < n; u++) {
      Operation op = m.op(nodeOp[u]);
      Integer p = lastOk.get(op.session());
      sessionPred[u] = p == null ? -1 : p;
      if (p != null) {
        edges.add(p, u);
      }
      if (op.ok()) {
        lastOk.put(op.session(), u);
      }
      HistoryModel.Read[] rs = m.reads[nodeOp[u]];
      if (rs != null) {
        for (HistoryModel.Read r : rs) {
          if (r.source() >= 0 && (key == null || key.equals(r.key()))) {
            Integer w = nodeOfOp.get(r.source());
            if (w != null) {
              edges.add(w, u);
            }
          }
        }
      }
    }
    succ = edges.successors(n);
    rankOfNode = new int[n];

    int[] topo = Graphs.topologicalOrder(succ);
    if (topo == null) {
      for (int[] comp : Graphs.cyclicComponents(succ)) {
        int[] cyc = Graphs.cycleThrough(succ, comp, comp[0]);
        int[] asOps = new int[cyc.length];
        for (int i = 0; i < cyc.length; i++) {
          asOps[i] = nodeOp[cyc[i]];
        }
        cycles.add(asOps);
      }
      return;
    }

    int writes = 0;
    for (int u : topo) {
      rankOfNode[u] = m.isWrite(nodeOp[u]) ? writes++ : -1;
    }
    opOfRank = new int[writes];
    pastOfRank = new BitSet[writes];
    for (int u = 0; u < n; u++) {
      if (rankOfNode[u] >= 0) {
        opOfRank[rankOfNode[u]] = nodeOp[u];
        writesOfKey.computeIfAbsent(m.op(nodeOp[u]).key(), k -> new BitSet()).set(rankOfNode[u]);
      }
    }

    // an INFO PUT's session predecessor may be overtaken in the topological order by the session's next operation
    // (there is no edge from the INFO PUT to it), so keep the predecessor's past for it explicitly
    boolean[] keepPast = new boolean[n];
    for (int u = 0; u < n; u++) {
      if (!m.op(nodeOp[u]).ok() && sessionPred[u] >= 0) {
        keepPast[sessionPred[u]] = true;
      }
    }
    Map<Integer, BitSet> kept = new HashMap<>();
    Map<Integer, BitSet> current = new HashMap<>();
    for (int u : topo) {
      int i = nodeOp[u];
      Operation op = m.op(i);
      BitSet sp;
      if (op.ok()) {
        sp = current.getOrDefault(op.session(), EMPTY);
      } else {
        sp = sessionPred[u] < 0 ? EMPTY : kept.get(sessionPred[u]);
      }
      BitSet past = (BitSet) sp.clone();
      HistoryModel.Read[] rs = m.reads[i];
      if (rs != null) {
        for (HistoryModel.Read r : rs) {
          if (r.source() >= 0 && (key == null || key.equals(r.key()))) {
            Integer w = nodeOfOp.get(r.source());
            if (w != null) {
              past.or(pastOfRank[rankOfNode[w]]);
            }
          }
        }
      }
      if (rankOfNode[u] >= 0) {
        past.set(rankOfNode[u]);
        pastOfRank[rankOfNode[u]] = past;
      }
      if (keepPast[u]) {
        kept.put(u, past);
      }
      if (op.ok()) {
        current.put(op.session(), past);
      }
      if (visitor != null) {
        visitor.visit(this, i, sp, past);
      }
    }
  }

  boolean acyclic() {
    return cycles.isEmpty();
  }

  /** One cycle (operation indices, in order; the edge back to the first is implied) per cyclic component. */
  List<int[]> cycles() {
    return cycles;
  }

  /** The key this order is restricted to, or null. */
  String key() {
    return key;
  }

  /** Rank of a PUT in this order, or -1. */
  int rank(int op) {
    Integer u = nodeOfOp.get(op);
    return u == null ? -1 : rankOfNode[u];
  }

  int opOfRank(int rank) {
    return opOfRank[rank];
  }

  /** Ranks of the PUTs in the causal past of the PUT with this rank, itself included. Do not modify. */
  BitSet pastOfRank(int rank) {
    return pastOfRank[rank];
  }

  /** Ranks of the PUTs of a key (empty if none). Do not modify. */
  BitSet writesOf(String k) {
    return writesOfKey.getOrDefault(k, EMPTY);
  }

  /** Whether PUT {@code a} happens before PUT {@code b} ({@code a ≠ b}). */
  boolean hb(int a, int b) {
    int ra = rank(a);
    int rb = rank(b);
    return ra >= 0 && rb >= 0 && ra != rb && pastOfRank[rb].get(ra);
  }

  /**
   * The maximal elements (under happens-before) of a set of PUT ranks, highest rank first. Destroys {@code set}.
   * Cost: one {@code andNot} per maximal element.
   */
  int[] maximal(BitSet set) {
    int[] out = new int[4];
    int count = 0;
    for (int r = set.length() - 1; r >= 0; r = set.previousSetBit(r - 1)) {
      if (count == out.length) {
        out = java.util.Arrays.copyOf(out, count * 2);
      }
      out[count++] = r;
      set.andNot(pastOfRank[r]);
    }
    return java.util.Arrays.copyOf(out, count);
  }

  /** The maximal PUTs of {@code key} in a causal past. */
  int[] maximalWritesOf(String k, BitSet past) {
    BitSet set = (BitSet) past.clone();
    set.and(writesOf(k));
    return maximal(set);
  }

  /**
   * A shortest causal chain {@code from ⇝ to} as operation indices, or null. {@code O(n + E)}: use for explanations,
   * not in loops over the whole history.
   */
  int[] chain(int from, int to) {
    Integer a = nodeOfOp.get(from);
    Integer b = nodeOfOp.get(to);
    if (a == null || b == null) {
      return null;
    }
    int[] path = Graphs.shortestPath(succ, a, b);
    if (path == null) {
      return null;
    }
    int[] out = new int[path.length];
    for (int i = 0; i < path.length; i++) {
      out[i] = nodeOp[path[i]];
    }
    return out;
  }

  /** Concatenates chains {@code a ⇝ b ⇝ c}. */
  int[] chain(int a, int b, int c) {
    int[] ab = chain(a, b);
    int[] bc = chain(b, c);
    if (ab == null || bc == null) {
      return null;
    }
    int[] out = java.util.Arrays.copyOf(ab, ab.length + bc.length - 1);
    System.arraycopy(bc, 1, out, ab.length, bc.length - 1);
    return out;
  }

  /** "#1 put(x)=… →so #2 get(y)->… →rf #3 …": the edges are session order (so) or reads-from (rf). */
  String showChain(int[] chain) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < chain.length; i++) {
      if (i > 0) {
        sb.append(m.readsFrom(chain[i], chain[i - 1]) ? " →rf " : " →so ");
      }
      sb.append(m.describe(chain[i]));
    }
    return sb.toString();
  }
}
