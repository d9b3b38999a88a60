package org.kvlab.check;

import java.util.ArrayList;
import java.util.Arrays;
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
 * every PUT its causal past (the PUTs that happen before it, itself included) as a {@link Past}. A read's causal past
 * is the union of its session predecessor's and of the PUTs it read from; it is computed on the fly and handed to a
 * {@link Visitor} instead of being stored. Because ranks follow a topological order, if PUT a happens before PUT b
 * then {@code rank(a) < rank(b)}: the highest-ranked PUT of a past is always a maximal one.
 *
 * <p>Two representations of a past, with identical answers ({@code CausalOrderEquivalenceTest}); {@link #compute}
 * takes the one that needs less memory:
 *
 * <ul>
 *   <li><b>Vector clocks over session chains</b> ({@link Chains}): the OK operations of a session form a chain
 *       (each has a session-order edge from the previous one); a past is, per chain, the position of the latest
 *       operation in it (a past is closed under happens-before, so it holds that chain's whole prefix). An INFO PUT is
 *       on no chain: its only outgoing edges go to its readers, so it is in a past iff one of its readers is.
 *       {@code W·(4S+40)} bytes for W PUTs and S sessions: for 450,000 PUTs of 64 sessions about 130 MB. The maximal
 *       PUTs of a key in a past are found among the latest PUT of the key on each chain (a binary search per chain
 *       that wrote the key) and the key's INFO PUTs.
 *   <li><b>Bitsets</b> ({@link Bits}): a PUT's past is a {@link BitSet} of ranks, {@code W²/16} bytes on average
 *       (6 MB for 10,000 PUTs, 15 GB for 500,000): cheaper when there are many sessions and few PUTs.
 * </ul>
 *
 * <p>If the graph has a cycle (an operation happens before itself, e.g. a read from the future) no past is computed:
 * {@link #cycles()} lists one cycle per cyclic strongly connected component and the visitor is not called.
 */
abstract class CausalOrder {
  /** Called once per node, in a topological order (so in session order within a session). */
  interface Visitor {
    /**
     * @param order this order; pasts of the PUTs visited so far are available
     * @param op the operation's index
     * @param sessionPast the causal past of the operation's session predecessor (do not keep)
     * @param past the operation's causal past: {@code sessionPast}, the pasts of the PUTs it read from, and itself if
     *     it is a PUT (do not keep)
     */
    void visit(CausalOrder order, int op, Past sessionPast, Past past);
  }

  /** A causal past: a set of PUTs (by rank) closed under happens-before. */
  interface Past {
    boolean contains(int rank);
  }

  /** The representation of pasts; null = the cheaper one (see the class comment). Tests set it to compare both. */
  enum Representation { CHAINS, BITS }

  static volatile Representation forced;

  /** The key index that means "all keys" (see {@link #maximal}). */
  static final int ALL = -1;

  final HistoryModel m;
  private final String key;
  /** {@link HistoryModel#keyIdx} of {@link #key}, or {@link #ALL}. */
  final int keyIdx;
  /** Operation index of each node, ascending. */
  final int[] nodeOp;
  /** Node + 1 of each operation index (0: not in this order). */
  final int[] nodeOfOp;
  final int[][] succ;
  final int[] sessionPred;
  final int[] rankOfNode;
  int[] opOfRank = new int[0];
  int[] nodeOfRank = new int[0];
  private final int[] topo;
  /** Position of each node in {@link #topo}, built on the first {@link #chain}. */
  private int[] topoPos;
  /** The working arrays of {@link #chain}'s searches, made on the first. */
  private Graphs.Scratch scratch;
  private final List<int[]> cycles = new ArrayList<>();
  /** By key index: ranks of the key's PUTs, ascending; null if none. */
  private int[][] writeRanks = new int[0][];

  /** The causal order over all operations ({@code key == null}) or over those touching {@code key}. */
  static CausalOrder compute(HistoryModel m, String key, Visitor visitor) {
    Representation f = forced;
    if (key == null && m.globalOrder != null && m.globalOrderForced == f) {
      // The order over all operations was built for an earlier checker of this model (causal, rotx and
      // convergence each ask for it): only the traversal is repeated, for the visitor. It recomputes every
      // past from the same graph, so the visitor sees what a fresh order would show it.
      CausalOrder order = m.globalOrder;
      if (visitor != null) {
        order.traverse(visitor);
      }
      return order;
    }
    Graph g = new Graph(m, key);
    Representation r = f;
    if (r == null) {
      r = g.chainsBytes() <= g.bitsBytes() ? Representation.CHAINS : Representation.BITS;
    }
    CausalOrder order = r == Representation.CHAINS ? new Chains(g) : new Bits(g);
    order.traverse(visitor);
    if (key == null) {
      m.globalOrder = order;
      m.globalOrderForced = f;
    }
    return order;
  }

  /** The graph of the order and its topological order, before any past is computed. */
  private static final class Graph {
    final HistoryModel m;
    final String key;
    final int keyIdx;
    final int[] nodeOp;
    final int[] nodeOfOp;
    final int[][] succ;
    final int[] sessionPred;
    final int[] topo;
    final int writes;
    final int sessions;

    Graph(HistoryModel m, String key) {
      this.m = m;
      this.key = key;
      this.keyIdx = key == null ? ALL : m.keyIdx(key);
      if (key == null) {
        int count = 0;
        for (int i = 0; i < m.n; i++) {
          count += m.inGraph[i] ? 1 : 0;
        }
        nodeOp = new int[count];
        count = 0;
        for (int i = 0; i < m.n; i++) {
          if (m.inGraph[i]) {
            nodeOp[count++] = i;
          }
        }
      } else {
        nodeOp = m.opsByKey.getOrDefault(key, new int[0]); // not modified
      }
      int n = nodeOp.length;
      // a direct index from operation to node (node + 1; 0: none, as a new array is zeroed), for the order over all
      // operations and for a key's: lookups by operation are frequent in both (reads-from edges, ranks), and a binary
      // search over a key's nodes cost more than the zeroed array
      nodeOfOp = new int[m.n];
      for (int u = 0; u < n; u++) {
        nodeOfOp[nodeOp[u]] = u + 1;
      }
      // edges: session order (from the previous OK operation of the session) and reads-from
      Graphs.EdgeList edges = new Graphs.EdgeList();
      sessionPred = new int[n];
      int[] lastOk = new int[m.sessionCount]; // by dense session index: the node of its last OK operation, or -1
      Arrays.fill(lastOk, -1);
      int okSessions = 0;
      int w = 0;
      for (int u = 0; u < n; u++) {
        int s = m.sessionIdx[nodeOp[u]];
        int p = lastOk[s];
        sessionPred[u] = p;
        if (p >= 0) {
          edges.add(p, u);
        }
        if (m.okAt[nodeOp[u]]) {
          okSessions += p < 0 ? 1 : 0;
          lastOk[s] = u;
        }
        w += m.isWrite(nodeOp[u]) ? 1 : 0;
        HistoryModel.Read[] rs = m.reads[nodeOp[u]];
        if (rs != null) {
          for (HistoryModel.Read r : rs) {
            if (r.source() >= 0 && (keyIdx == ALL || r.keyIdx() == keyIdx)) {
              int src = node(nodeOp, nodeOfOp, r.source());
              if (src >= 0) {
                edges.add(src, u);
              }
            }
          }
        }
      }
      writes = w;
      sessions = okSessions;
      succ = edges.successors(n);
      topo = Graphs.topologicalOrder(succ);
    }

    long chainsBytes() {
      return (long) writes * (4L * sessions + 40);
    }

    long bitsBytes() {
      return (long) writes * (writes / 16 + 40);
    }
  }

  /** The node of operation {@code op} in an ascending {@code nodeOp}, or -1. */
  /**
   * As {@link #node(int[], int)}, through {@code nodeOfOp} (operation index to node + 1, 0: none) if not null: the same
   * answer, without the search.
   */
  static int node(int[] nodeOp, int[] nodeOfOp, int op) {
    if (nodeOfOp == null) {
      return node(nodeOp, op);
    }
    return op >= 0 && op < nodeOfOp.length ? nodeOfOp[op] - 1 : -1; // as the search: an index of no node is -1
  }

  static int node(int[] nodeOp, int op) {
    int u = Arrays.binarySearch(nodeOp, op);
    return u < 0 ? -1 : u;
  }

  CausalOrder(Graph g) {
    this.m = g.m;
    this.key = g.key;
    this.keyIdx = g.keyIdx;
    this.nodeOp = g.nodeOp;
    this.nodeOfOp = g.nodeOfOp;
    this.succ = g.succ;
    this.sessionPred = g.sessionPred;
    this.topo = g.topo;
    int n = nodeOp.length;
    rankOfNode = new int[n];
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
    nodeOfRank = new int[writes];
    int[] perKey = new int[m.keyCount()]; // by key index: PUTs of the key
    for (int u = 0; u < n; u++) {
      if (rankOfNode[u] >= 0) {
        opOfRank[rankOfNode[u]] = nodeOp[u];
        nodeOfRank[rankOfNode[u]] = u;
        perKey[m.keyOf[nodeOp[u]]]++; // a PUT of the order has a key (HistoryModel.inGraph)
      }
    }
    writeRanks = new int[perKey.length][];
    for (int k = 0; k < perKey.length; k++) {
      writeRanks[k] = perKey[k] == 0 ? null : new int[perKey[k]];
    }
    int[] fill = new int[perKey.length];
    for (int r = 0; r < writes; r++) {
      int k = m.keyOf[opOfRank[r]];
      writeRanks[k][fill[k]++] = r;
    }
  }

  /** The empty past. */
  abstract Past empty();

  /** A modifiable copy. */
  abstract Past copy(Past p);

  /** Adds {@code from} to {@code into} (a copy). */
  abstract void union(Past into, Past from);

  /** Adds the operation at {@code node} (a PUT or a read) to {@code into}, whose past it is. */
  abstract void addSelf(Past into, int node);

  /** The causal past of the PUT with this rank, itself included. Do not modify. */
  abstract Past pastOfRank(int rank);

  /** Stores the past of the PUT with this rank (called once per PUT, in rank order). */
  abstract void setPastOfRank(int rank, Past p);

  /**
   * The maximal PUTs (under happens-before) of the key with index {@code k} (all keys if {@link #ALL}; none if no
   * key has that index) in {@code past}, except the PUT of rank {@code exclude} (-1: none), by rank, highest first.
   */
  abstract int[] maximal(int k, Past past, int exclude);

  private void traverse(Visitor visitor) {
    if (topo == null) {
      return;
    }
    int n = nodeOp.length;
    // an INFO PUT's session predecessor may be overtaken in the topological order by the session's next operation
    // (there is no edge from the INFO PUT to it), so keep the predecessor's past for it explicitly
    boolean[] keepPast = new boolean[n];
    for (int u = 0; u < n; u++) {
      if (!m.okAt[nodeOp[u]] && sessionPred[u] >= 0) {
        keepPast[sessionPred[u]] = true;
      }
    }
    Past none = empty();
    Past[] kept = new Past[n]; // by node, for keepPast
    Past[] current = new Past[m.sessionCount]; // by dense session index: the past of its latest OK operation
    for (int u : topo) {
      int i = nodeOp[u];
      boolean ok = m.okAt[i];
      Past sp;
      if (ok) {
        Past c = current[m.sessionIdx[i]];
        sp = c == null ? none : c;
      } else {
        sp = sessionPred[u] < 0 ? none : kept[sessionPred[u]];
      }
      Past past = copy(sp);
      HistoryModel.Read[] rs = m.reads[i];
      if (rs != null) {
        for (HistoryModel.Read r : rs) {
          if (r.source() >= 0 && (keyIdx == ALL || r.keyIdx() == keyIdx)) {
            int w = node(nodeOp, nodeOfOp, r.source());
            if (w >= 0) {
              union(past, pastOfRank(rankOfNode[w]));
            }
          }
        }
      }
      addSelf(past, u);
      if (rankOfNode[u] >= 0) {
        setPastOfRank(rankOfNode[u], past);
      }
      if (keepPast[u]) {
        kept[u] = past;
      }
      if (ok) {
        current[m.sessionIdx[i]] = past;
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
    int u = node(nodeOp, nodeOfOp, op);
    return u < 0 ? -1 : rankOfNode[u];
  }

  int opOfRank(int rank) {
    return opOfRank[rank];
  }

  /** Number of PUTs in this order (ranks are 0..writes()-1). */
  int writes() {
    return opOfRank.length;
  }

  /** Ranks of the PUTs of a key, ascending (empty if none). Do not modify. */
  int[] writeRanksOf(String k) {
    int i = m.keyIdx(k);
    return i >= 0 && i < writeRanks.length && writeRanks[i] != null ? writeRanks[i] : new int[0];
  }

  /** Whether PUT {@code a} happens before PUT {@code b} ({@code a ≠ b}). */
  boolean hb(int a, int b) {
    int ra = rank(a);
    int rb = rank(b);
    return ra >= 0 && rb >= 0 && ra != rb && pastOfRank(rb).contains(ra);
  }

  /** The maximal PUTs of {@code k} in a causal past, by rank, highest first. */
  int[] maximalWritesOf(String k, Past past) {
    return maximal(m.keyIdx(k), past, -1);
  }

  /** As {@link #maximalWritesOf(String, Past)}, for the key with index {@code k} ({@link HistoryModel#keyIdx}). */
  int[] maximalWritesOf(int k, Past past) {
    return maximal(k, past, -1);
  }

  /**
   * The PUTs of {@code k} (of all keys if null) that immediately precede the PUT of rank {@code rank}: the maximal
   * ones in its past other than itself (the transitive reduction of happens-before), highest rank first.
   */
  int[] maximalBelow(int rank, String k) {
    return maximal(k == null ? ALL : m.keyIdx(k), pastOfRank(rank), rank);
  }

  /**
   * A shortest causal chain {@code from ⇝ to} as operation indices, or null. {@code O(n + E)}: use for explanations,
   * not in loops over the whole history.
   */
  int[] chain(int from, int to) {
    int a = node(nodeOp, nodeOfOp, from);
    int b = node(nodeOp, nodeOfOp, to);
    if (a < 0 || b < 0) {
      return null;
    }
    if (topo != null && topoPos == null) {
      topoPos = new int[nodeOp.length];
      for (int i = 0; i < topo.length; i++) {
        topoPos[topo[i]] = i;
      }
    }
    if (scratch == null) {
      scratch = new Graphs.Scratch(succ.length);
    }
    int[] path = Graphs.shortestPath(succ, a, b, topo == null ? null : topoPos, scratch);
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
    int[] out = Arrays.copyOf(ab, ab.length + bc.length - 1);
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

  /**
   * Sorts {@code a[0..count)} ascending, as {@code Arrays.sort(a, 0, count)}: by insertion for the few candidates of a
   * {@link Chains#maximal} call (one per chain, usually under ten), where the library sort's set-up costs more.
   */
  static void sortSmall(int[] a, int count) {
    if (count > 32) {
      Arrays.sort(a, 0, count);
      return;
    }
    for (int i = 1; i < count; i++) {
      int x = a[i];
      int j = i - 1;
      while (j >= 0 && a[j] > x) {
        a[j + 1] = a[j];
        j--;
      }
      a[j + 1] = x;
    }
  }

  /** Pasts as bitsets of ranks: W²/16 bytes on average. */
  static final class Bits extends CausalOrder {
    private static final class BitPast extends BitSet implements Past {
      @Override
      public boolean contains(int rank) {
        return get(rank);
      }
    }

    private BitPast[] pastOfRank = new BitPast[0];
    /** By key index: the ranks of the key's PUTs; null if none. */
    private final BitSet[] writesOfKey;

    Bits(Graph g) {
      super(g);
      pastOfRank = new BitPast[opOfRank.length];
      writesOfKey = new BitSet[m.keyCount()];
      for (int r = 0; r < opOfRank.length; r++) {
        int k = m.keyOf[opOfRank[r]];
        if (writesOfKey[k] == null) {
          writesOfKey[k] = new BitSet();
        }
        writesOfKey[k].set(r);
      }
    }

    @Override
    Past empty() {
      return new BitPast();
    }

    @Override
    Past copy(Past p) {
      return (BitPast) ((BitPast) p).clone();
    }

    @Override
    void union(Past into, Past from) {
      ((BitPast) into).or((BitPast) from);
    }

    @Override
    void addSelf(Past into, int node) {
      if (rankOfNode[node] >= 0) {
        ((BitPast) into).set(rankOfNode[node]);
      }
    }

    @Override
    Past pastOfRank(int rank) {
      return pastOfRank[rank];
    }

    @Override
    void setPastOfRank(int rank, Past p) {
      pastOfRank[rank] = (BitPast) p;
    }

    @Override
    int[] maximal(int k, Past past, int exclude) {
      BitSet set = (BitSet) ((BitPast) past).clone();
      if (k != ALL) {
        set.and(k >= 0 && k < writesOfKey.length && writesOfKey[k] != null ? writesOfKey[k] : new BitSet());
      }
      if (exclude >= 0) {
        set.clear(exclude);
      }
      // the highest set bit is maximal; drop its past and repeat: one andNot per maximal element
      int[] out = new int[4];
      int count = 0;
      for (int r = set.length() - 1; r >= 0; r = set.previousSetBit(r - 1)) {
        if (count == out.length) {
          out = Arrays.copyOf(out, count * 2);
        }
        out[count++] = r;
        set.andNot(pastOfRank[r]);
      }
      return Arrays.copyOf(out, count);
    }
  }

  /** Pasts as vector clocks over session chains: W·(4S + 40) bytes for S sessions. */
  static final class Chains extends CausalOrder {
    /** Per chain, the position of the latest operation of the chain in the past (-1: none). */
    private final class VcPast implements Past {
      final int[] vc;
      /** The INFO PUT (on no chain) whose own past this is, else -1. */
      int self = -1;

      VcPast(int[] vc) {
        this.vc = vc;
      }

      @Override
      public boolean contains(int rank) {
        int u = nodeOfRank[rank];
        int ch = chainOf[u];
        if (ch >= 0) {
          return vc[ch] >= posOf[u];
        }
        if (self == u) {
          return true;
        }
        // an INFO PUT is on no chain; its only outgoing edges go to its readers, so it is in a past iff one is
        for (int v : succ[u]) {
          if (vc[chainOf[v]] >= posOf[v]) {
            return true;
          }
        }
        return false;
      }
    }

    /** The PUTs of one key (or all) on chains, grouped by chain, in position order within a chain. */
    private static final class Group {
      int[] chains;
      int[] start;
      int[] pos;
      int[] rank;
    }

    private final int[] chainOf;
    private final int[] posOf;
    private final int chainCount;
    /** The nodes of each chain by position. */
    private final int[][] chainNodes;
    private VcPast[] pastOfRank;
    /** By key index; null if the key has no PUT on a chain. */
    private final Group[] groups;
    private Group all;
    /** Ranks of the INFO PUTs (on no chain), by key index (null: none) and all. */
    private final int[][] info;
    private int[] allInfo = new int[0];

    Chains(Graph g) {
      super(g);
      int n = nodeOp.length;
      chainOf = new int[n];
      posOf = new int[n];
      int[] chainOfSession = new int[m.sessionCount]; // by dense session index, -1 until its first OK operation
      Arrays.fill(chainOfSession, -1);
      int[] length = new int[m.sessionCount]; // by chain
      int chains = 0;
      for (int u = 0; u < n; u++) {
        int ch;
        if (m.okAt[nodeOp[u]]) {
          int s = m.sessionIdx[nodeOp[u]];
          if (chainOfSession[s] < 0) {
            chainOfSession[s] = chains++;
          }
          ch = chainOfSession[s];
        } else {
          ch = -1; // an INFO PUT: see VcPast.contains
        }
        chainOf[u] = ch;
        if (ch >= 0) {
          posOf[u] = length[ch]++;
        }
      }
      chainCount = chains;
      chainNodes = new int[chains][];
      for (int ch = 0; ch < chains; ch++) {
        chainNodes[ch] = new int[length[ch]];
      }
      for (int u = 0; u < n; u++) {
        if (chainOf[u] >= 0) {
          chainNodes[chainOf[u]][posOf[u]] = u;
        }
      }
      pastOfRank = new VcPast[opOfRank.length];
      int keys = m.keyCount();
      groups = new Group[keys];
      info = new int[keys][];
      if (opOfRank.length > 0) {
        // by key index: how many PUTs on chains and INFO PUTs, then their ranks, ascending
        int[] onChain = new int[keys];
        int[] infoCount = new int[keys];
        int every = 0;
        int everyInfo = 0;
        for (int r = 0; r < opOfRank.length; r++) {
          int k = m.keyOf[opOfRank[r]];
          if (chainOf[nodeOfRank[r]] >= 0) {
            onChain[k]++;
            every++;
          } else {
            infoCount[k]++;
            everyInfo++;
          }
        }
        int[][] byKey = new int[keys][];
        for (int k = 0; k < keys; k++) {
          byKey[k] = onChain[k] == 0 ? null : new int[onChain[k]];
          info[k] = infoCount[k] == 0 ? null : new int[infoCount[k]];
        }
        int[] allOnChain = new int[every];
        allInfo = new int[everyInfo];
        Arrays.fill(onChain, 0);
        Arrays.fill(infoCount, 0);
        every = 0;
        everyInfo = 0;
        for (int r = 0; r < opOfRank.length; r++) {
          int k = m.keyOf[opOfRank[r]];
          if (chainOf[nodeOfRank[r]] >= 0) {
            byKey[k][onChain[k]++] = r;
            allOnChain[every++] = r;
          } else {
            info[k][infoCount[k]++] = r;
            allInfo[everyInfo++] = r;
          }
        }
        for (int k = 0; k < keys; k++) {
          groups[k] = byKey[k] == null ? null : group(byKey[k]);
        }
        all = group(allOnChain);
      }
    }

    private Group group(int[] ranks) {
      // sort by (chain, position); ranks of one chain ascend with position (a chain is a path of the graph).
      // (chain, position) is unique per node, so sorting it packed in a long gives the same order as a comparator
      // over boxed ranks, without the boxes; the rank comes back through the node at that place.
      int len = ranks.length;
      long[] place = new long[len];
      for (int i = 0; i < len; i++) {
        int u = nodeOfRank[ranks[i]];
        place[i] = ((long) chainOf[u] << 32) | posOf[u];
      }
      Arrays.sort(place);
      Group gr = new Group();
      gr.pos = new int[len];
      gr.rank = new int[len];
      int distinct = 0;
      for (int i = 0; i < len; i++) {
        int ch = (int) (place[i] >>> 32);
        int pos = (int) place[i];
        gr.pos[i] = pos;
        gr.rank[i] = rankOfNode[chainNodes[ch][pos]];
        if (i == 0 || ch != (int) (place[i - 1] >>> 32)) {
          distinct++;
        }
      }
      gr.chains = new int[distinct];
      gr.start = new int[distinct + 1];
      int c = -1;
      for (int i = 0; i < len; i++) {
        int ch = (int) (place[i] >>> 32);
        if (c < 0 || gr.chains[c] != ch) {
          gr.chains[++c] = ch;
          gr.start[c] = i;
        }
      }
      gr.start[distinct] = len;
      return gr;
    }

    @Override
    Past empty() {
      int[] vc = new int[chainCount];
      Arrays.fill(vc, -1);
      return new VcPast(vc);
    }

    @Override
    Past copy(Past p) {
      VcPast v = (VcPast) p;
      VcPast c = new VcPast(v.vc.clone());
      c.self = v.self;
      return c;
    }

    @Override
    void union(Past into, Past from) {
      int[] a = ((VcPast) into).vc;
      int[] b = ((VcPast) from).vc;
      for (int i = 0; i < a.length; i++) {
        if (b[i] > a[i]) {
          a[i] = b[i];
        }
      }
      // from.self (an INFO PUT read by into's operation) is in into through the reader rule of contains()
    }

    @Override
    void addSelf(Past into, int node) {
      VcPast v = (VcPast) into;
      int ch = chainOf[node];
      if (ch < 0) {
        v.self = node;
      } else if (v.vc[ch] < posOf[node]) { // reads too: contains() needs the readers of INFO PUTs
        v.vc[ch] = posOf[node];
      }
    }

    @Override
    Past pastOfRank(int rank) {
      return pastOfRank[rank];
    }

    @Override
    void setPastOfRank(int rank, Past p) {
      pastOfRank[rank] = (VcPast) p;
    }

    @Override
    int[] maximal(int k, Past past, int exclude) {
      VcPast v = (VcPast) past;
      boolean known = k >= 0 && k < groups.length;
      Group g = k == ALL ? all : known ? groups[k] : null;
      int chains = g == null ? 0 : g.chains.length;
      int[] infos = k == ALL ? allInfo : known && info[k] != null ? info[k] : new int[0];
      int[] cand = new int[chains + infos.length];
      int count = 0;
      // per chain, the latest PUT of the group in the past: every other one is in its past, so not maximal
      for (int c = 0; c < chains; c++) {
        int limit = v.vc[g.chains[c]];
        if (limit < 0) {
          continue;
        }
        int lo = g.start[c];
        int hi = g.start[c + 1] - 1;
        int found = -1;
        while (lo <= hi) {
          int mid = (lo + hi) >>> 1;
          if (g.pos[mid] <= limit) {
            found = mid;
            lo = mid + 1;
          } else {
            hi = mid - 1;
          }
        }
        if (found >= 0 && g.rank[found] == exclude) {
          found = found - 1 >= g.start[c] ? found - 1 : -1;
        }
        if (found >= 0) {
          cand[count++] = g.rank[found];
        }
      }
      for (int r : infos) {
        if (r != exclude && v.contains(r)) {
          cand[count++] = r;
        }
      }
      sortSmall(cand, count);
      // highest rank first; a candidate in the past of a higher maximal one is not maximal
      int[] out = new int[count];
      int found = 0;
      for (int i = count - 1; i >= 0; i--) {
        int r = cand[i];
        boolean covered = false;
        for (int j = 0; j < found && !covered; j++) {
          covered = pastOfRank[out[j]].contains(r);
        }
        if (!covered) {
          out[found++] = r;
        }
      }
      return Arrays.copyOf(out, found);
    }
  }
}
