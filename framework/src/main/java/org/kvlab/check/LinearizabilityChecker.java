package org.kvlab.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.kvlab.history.History;
import org.kvlab.history.Operation;
import org.kvlab.history.Operation.Outcome;
import org.kvlab.history.Operation.Type;

/**
 * Linearizability of each key as a read/write register (keys are independent registers, so the history is checked
 * key by key — linearizability is compositional). Reads are completed GETs and the keys of completed ROTXs; writes
 * are OK PUTs and INFO PUTs. An operation takes effect at one instant between its invocation and completion; an INFO
 * PUT at any instant after its invocation, or never (equivalently: at the very end). FAIL operations are ignored.
 * Operations whose intervals touch (one completes at the instant the other is invoked) count as concurrent.
 *
 * <p>Two algorithms:
 *
 * <ul>
 *   <li><b>Zones</b> (default when every value of the key is written once, which kvlab workloads guarantee): exact and
 *       {@code O(n log n)} — Gibbons &amp; Korach's characterisation (SIAM J. Comput. 1997; as used by Golab, Li and
 *       Shah, PODC 2011). The "cluster" of a write is the write plus the reads of its value (the initial state is a
 *       write before everything); its zone runs from the earliest completion to the latest invocation among them. A
 *       zone that runs forward in time is a period during which the value must be in the register. The register is
 *       linearizable iff no read completes before its write is invoked, no two forward zones overlap, and no backward
 *       zone (a cluster whose operations all overlap) lies inside a forward zone.
 *   <li><b>Search</b> (values written more than once, or {@link #searchOnly}): Wing &amp; Gong's search with Lowe's
 *       memoisation, as in Porcupine (Athalye): walk the list of invocation/completion events, linearize the first
 *       pending operation that fits the register's value, backtrack at a completion event whose operation was not
 *       linearized yet, and never revisit a (set of linearized operations, register value) configuration.
 *       Exponential in the worst case (many concurrent writes of one key), so bounded: a key whose search visits more
 *       than {@code maxStatesPerKey} configurations is reported as {@link #UNKNOWN} instead of hanging.
 * </ul>
 *
 * Histories of replicated stores with weaker consistency normally fail this checker; that is expected.
 */
public final class LinearizabilityChecker implements Checker {
  public static final String NAME = "linearizable";
  public static final String NOT_LINEARIZABLE = "not linearizable";
  public static final String UNKNOWN = "unknown";
  public static final long DEFAULT_MAX_STATES_PER_KEY = 1_000_000;

  private final long maxStatesPerKey;
  private final boolean zones;

  public LinearizabilityChecker() {
    this(DEFAULT_MAX_STATES_PER_KEY);
  }

  /**
   * @param maxStatesPerKey search budget per key (distinct configurations visited before giving up); only used for
   *     keys whose values are not unique, where the zone algorithm does not apply
   */
  public LinearizabilityChecker(long maxStatesPerKey) {
    this(maxStatesPerKey, true);
  }

  private LinearizabilityChecker(long maxStatesPerKey, boolean zones) {
    if (maxStatesPerKey < 1) {
      throw new IllegalArgumentException("maxStatesPerKey must be positive, got " + maxStatesPerKey);
    }
    this.maxStatesPerKey = maxStatesPerKey;
    this.zones = zones;
  }

  /** Always uses the (bounded) WGL search, never the zone algorithm: for cross-checking, or to see the search's view. */
  public static LinearizabilityChecker searchOnly(long maxStatesPerKey) {
    return new LinearizabilityChecker(maxStatesPerKey, false);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Result check(History history) {
    HistoryModel m = HistoryModel.of(history);
    List<Violation> out = new ArrayList<>();
    for (Violation v : m.problems()) {
      if (!v.kind().equals(HistoryModel.DUPLICATE_KIND)) {
        out.add(v); // a value written twice is fine here: such keys are searched (see the class comment)
      }
    }
    for (Map.Entry<String, int[]> e : m.opsByKey.entrySet()) {
      Violation v = new Register(m, e.getKey(), e.getValue()).check();
      if (v != null) {
        out.add(v);
      }
    }
    return Result.of(NAME, out);
  }

  /**
   * The memo: configurations (set of linearized operations, register value) seen so far. A set is identified by two
   * independent 64-bit Zobrist hashes (XOR of a random word per operation, updated in O(1) when an operation is
   * linearized or undone) instead of a copy of the bitset, so a state costs 20 bytes whatever the number of
   * operations. Two different sets collide with probability about 2⁻¹²⁸ per pair: negligible.
   */
  private static final class Memo {
    private long[] h1 = new long[1 << 10];
    private long[] h2 = new long[1 << 10];
    private int[] val = new int[1 << 10];
    private boolean[] used = new boolean[1 << 10];
    private int size;

    int size() {
      return size;
    }

    /** Adds the configuration; false if it was already there. */
    boolean add(long a, long b, int value) {
      if (2 * (size + 1) > used.length) {
        grow();
      }
      int mask = used.length - 1;
      int i = (int) mix(a ^ (b * 0x9E3779B97F4A7C15L) ^ value) & mask;
      while (used[i]) {
        if (h1[i] == a && h2[i] == b && val[i] == value) {
          return false;
        }
        i = (i + 1) & mask;
      }
      used[i] = true;
      h1[i] = a;
      h2[i] = b;
      val[i] = value;
      size++;
      return true;
    }

    private void grow() {
      long[] o1 = h1;
      long[] o2 = h2;
      int[] ov = val;
      boolean[] ou = used;
      int cap = used.length * 2;
      h1 = new long[cap];
      h2 = new long[cap];
      val = new int[cap];
      used = new boolean[cap];
      size = 0;
      for (int i = 0; i < ou.length; i++) {
        if (ou[i]) {
          add(o1[i], o2[i], ov[i]);
        }
      }
    }

    private static long mix(long z) {
      z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
      z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
      return z ^ (z >>> 33);
    }
  }

  /**
   * One key. Local operation indices 0..count-1. In the search, the register holds a value id (equal bytes, equal id;
   * -1 = initial state).
   */
  private final class Register {
    private static final int NIL = -1;
    private static final int HEAD = 0;

    private final HistoryModel m;
    private final String key;
    private final int[] op;
    private final boolean[] write;
    /** For a read: local index of the write it read, or -1 for the initial state. */
    private final int[] reads;
    /** Value id: for a write, of what it wrote; for a read, of what it returned (-1: nothing). */
    private final int[] valueId;
    private final boolean unique;
    private final int count;

    Register(HistoryModel m, String key, int[] candidates) {
      this.m = m;
      this.key = key;
      int[] ops = new int[candidates.length];
      int taken = 0;
      boolean nullValue = false;
      for (int i : candidates) {
        Operation o = m.op(i);
        if (o.type() == Type.PUT) {
          if (o.ok() || o.outcome() == Outcome.INFO) {
            ops[taken++] = i;
            nullValue |= o.value() == null;
          }
        } else {
          HistoryModel.Read r = m.readOf(i, key);
          if (o.ok() && r != null && r.resolved()) {
            ops[taken++] = i;
          }
        }
      }
      count = taken;
      op = Arrays.copyOf(ops, count);
      write = new boolean[count];
      reads = new int[count];
      boolean ascending = true; // the candidates come in id order: then an operation's local index is a binary search
      for (int j = 0; j < count; j++) {
        write[j] = m.isWrite(op[j]);
        ascending &= j == 0 || op[j] > op[j - 1];
      }
      Map<Integer, Integer> local = null;
      if (!ascending) {
        local = new HashMap<>();
        for (int j = 0; j < count; j++) {
          local.put(op[j], j);
        }
      }
      valueId = new int[count];
      if (zones && !nullValue && m.valuesWrittenOnce(key)) {
        // Every value of the key written once (the model saw no duplicate among all its PUTs): the zone algorithm
        // applies, and it needs no value ids (only the search does). They are still the ones the map below gives:
        // the writes' in order, and a read's that of the write it reads from, which is among these writes (an OK or
        // INFO PUT of the key).
        unique = true;
        int next = 0;
        for (int j = 0; j < count; j++) {
          if (write[j]) {
            valueId[j] = next++;
          }
        }
        for (int j = 0; j < count; j++) {
          if (!write[j]) {
            HistoryModel.Read r = m.readOf(op[j], key);
            reads[j] = sourceIndex(r, local);
            valueId[j] = r.value().isEmpty() ? -1 : reads[j] >= 0 ? valueId[reads[j]] : -2;
          }
        }
        return;
      }
      Map<com.google.protobuf.ByteString, Integer> ids = new HashMap<>();
      boolean distinct = true;
      for (int j = 0; j < count; j++) {
        if (write[j]) {
          Integer prior = ids.putIfAbsent(m.op(op[j]).value(), ids.size());
          distinct &= prior == null;
          valueId[j] = ids.get(m.op(op[j]).value());
        }
      }
      unique = distinct;
      for (int j = 0; j < count; j++) {
        if (!write[j]) {
          HistoryModel.Read r = m.readOf(op[j], key);
          reads[j] = sourceIndex(r, local);
          valueId[j] = r.value().isEmpty() ? -1 : ids.getOrDefault(r.value().get(), -2);
        }
      }
    }

    /**
     * The local index of the write {@code r} reads from: -1 for the initial value, -2 if that write is not among this
     * key's operations; a binary search when the operations are in id order ({@code local} null), else the map.
     */
    private int sourceIndex(HistoryModel.Read r, Map<Integer, Integer> local) {
      if (r.source() == HistoryModel.INITIAL) {
        return -1;
      }
      if (local == null) {
        int at = Arrays.binarySearch(op, r.source());
        return at >= 0 ? at : -2;
      }
      return local.getOrDefault(r.source(), -2);
    }

    Violation check() {
      if (count == 0) {
        return null;
      }
      return zones && unique ? zones() : search();
    }

    /** Gibbons–Korach zones; see the class comment. */
    private Violation zones() {
      int init = count; // the cluster of the initial state
      long[] lo = new long[count + 1]; // earliest completion in the cluster
      long[] hi = new long[count + 1]; // latest invocation in the cluster
      int[] loOp = new int[count + 1];
      int[] hiOp = new int[count + 1];
      boolean[] exists = new boolean[count + 1];
      for (int j = 0; j < count; j++) {
        if (write[j]) {
          lo[j] = complete(j);
          hi[j] = invoke(j);
          loOp[j] = j;
          hiOp[j] = j;
          exists[j] = true;
        }
      }
      lo[init] = Long.MIN_VALUE;
      hi[init] = Long.MIN_VALUE;
      loOp[init] = -1;
      hiOp[init] = -1;
      for (int j = 0; j < count; j++) {
        if (write[j]) {
          continue;
        }
        int c = reads[j] < 0 ? init : reads[j];
        if (c != init && complete(j) < invoke(c)) {
          return new Violation(NOT_LINEARIZABLE, "key " + key + " is not a linearizable register: "
              + m.describe(op[j]) + " completed before " + m.describe(op[c]) + ", which wrote the value it returned,"
              + " was invoked", new Ids(m).add(op[j], op[c]).list());
        }
        exists[c] = true;
        if (complete(j) < lo[c] || loOp[c] < 0) {
          lo[c] = c == init ? Long.MIN_VALUE : complete(j);
          loOp[c] = c == init ? -1 : j;
        }
        if (invoke(j) > hi[c] || hiOp[c] < 0) {
          hi[c] = invoke(j);
          hiOp[c] = j;
        }
      }
      List<Integer> forward = new ArrayList<>();
      List<Integer> backward = new ArrayList<>();
      for (int c = 0; c <= count; c++) {
        if (exists[c]) {
          (lo[c] < hi[c] ? forward : backward).add(c);
        }
      }
      forward.sort(Comparator.<Integer>comparingLong(c -> lo[c]).thenComparingLong(c -> hi[c]));
      int widest = -1;
      for (int c : forward) {
        if (widest >= 0 && lo[c] < hi[widest]) {
          return new Violation(NOT_LINEARIZABLE, "key " + key + " is not a linearizable register: "
              + mustHold(widest, lo, hi, loOp, hiOp) + ", and " + mustHold(c, lo, hi, loOp, hiOp)
              + "; these periods overlap, so no order of the writes fits both",
              clusterIds(widest, hiOp, loOp).add(clusterOps(c, hiOp, loOp)).list());
        }
        if (widest < 0 || hi[c] > hi[widest]) {
          widest = c;
        }
      }
      long[] starts = new long[forward.size()];
      for (int i = 0; i < starts.length; i++) {
        starts[i] = lo[forward.get(i)];
      }
      for (int b : backward) {
        // the forward zone with the largest start before this zone's start is the only one that can contain it
        int i = Arrays.binarySearch(starts, hi[b]);
        i = i >= 0 ? i - 1 : -i - 2;
        while (i >= 0 && starts[i] >= hi[b]) {
          i--;
        }
        if (i >= 0) {
          int f = forward.get(i);
          if (lo[f] < hi[b] && lo[b] < hi[f]) {
            return new Violation(NOT_LINEARIZABLE, "key " + key + " is not a linearizable register: "
                + mustHold(f, lo, hi, loOp, hiOp) + ", but " + (b == init ? "the reads of nil"
                    : m.describe(op[b]) + (hiOp[b] == b ? "" : " and the reads of its value"))
                + " happened entirely within that period (between " + hi[b] + " and " + lo[b] + "µs), so the"
                + " value was overwritten while it still had to be read",
                clusterIds(f, hiOp, loOp).add(clusterOps(b, hiOp, loOp)).list());
          }
        }
      }
      return null;
    }

    /** "the value "a" of #w must be in the register from #x's completion (t1µs) until #y's invocation (t2µs)". */
    private String mustHold(int c, long[] lo, long[] hi, int[] loOp, int[] hiOp) {
      String what = c == count ? "nil (the initial state)" : "the value " + HistoryModel.show(m.op(op[c]).value())
          + " of " + m.describe(op[c]);
      String from = c == count ? "from the start" : "from " + m.describe(op[loOp[c]]) + "'s completion (" + lo[c]
          + "µs)";
      return what + " must be in the register " + from + " until " + m.describe(op[hiOp[c]]) + "'s invocation ("
          + hi[c] + "µs), when it was still read";
    }

    private int[] clusterOps(int c, int[] hiOp, int[] loOp) {
      return new int[] {c == count ? -1 : op[c], loOp[c] < 0 ? -1 : op[loOp[c]], hiOp[c] < 0 ? -1 : op[hiOp[c]]};
    }

    private Ids clusterIds(int c, int[] hiOp, int[] loOp) {
      return new Ids(m).add(clusterOps(c, hiOp, loOp));
    }

    private long invoke(int j) {
      return m.op(op[j]).invokeMicros();
    }

    private long complete(int j) {
      Operation o = m.op(op[j]);
      return o.outcome() == Outcome.INFO ? Long.MAX_VALUE : o.completeMicros();
    }

    /** WGL with memoisation; see the class comment. */
    private Violation search() {
      // events: 2j = invocation of j, 2j+1 = completion of j; sorted by time, invocations first on ties
      Integer[] events = new Integer[2 * count];
      for (int e = 0; e < events.length; e++) {
        events[e] = e;
      }
      Arrays.sort(events, Comparator.<Integer>comparingLong(e -> (e & 1) == 0 ? invoke(e >> 1) : complete(e >> 1))
          .thenComparingInt(e -> e & 1)
          .thenComparingInt(e -> e >> 1));
      // doubly linked list: node 0 is the head, node p+1 is events[p]
      int nodes = events.length + 1;
      int[] next = new int[nodes];
      int[] prev = new int[nodes];
      int[] nodeOfEvent = new int[events.length];
      for (int p = 0; p < nodes; p++) {
        next[p] = p + 1 < nodes ? p + 1 : NIL;
        prev[p] = p - 1;
        if (p > 0) {
          nodeOfEvent[events[p - 1]] = p;
        }
      }

      int[] stackNode = new int[count];
      int[] stackValue = new int[count];
      int sp = 0;
      int value = -1;
      long[] linearized = new long[(count + 63) / 64];
      long[] zobrist1 = new long[count];
      long[] zobrist2 = new long[count];
      SplittableRandom random = new SplittableRandom(0x6b766c6162L);
      for (int j = 0; j < count; j++) {
        zobrist1[j] = random.nextLong();
        zobrist2[j] = random.nextLong();
      }
      long hash1 = 0;
      long hash2 = 0;
      Memo seen = new Memo();
      int bestDepth = -1;
      long[] bestLinearized = linearized.clone();
      int bestValue = value;

      int entry = next[HEAD];
      while (next[HEAD] != NIL) {
        int ev = events[entry - 1];
        int j = ev >> 1;
        if ((ev & 1) == 0) { // invocation: try to linearize j now
          boolean fits = write[j] || valueId[j] == value;
          if (fits) {
            int newValue = write[j] ? valueId[j] : value;
            if (seen.add(hash1 ^ zobrist1[j], hash2 ^ zobrist2[j], newValue)) {
              linearized[j >> 6] |= 1L << j;
              hash1 ^= zobrist1[j];
              hash2 ^= zobrist2[j];
              if (seen.size() > maxStatesPerKey) {
                return unknown();
              }
              stackNode[sp] = entry;
              stackValue[sp] = value;
              sp++;
              value = newValue;
              lift(next, prev, entry, nodeOfEvent[ev + 1]);
              if (sp > bestDepth) {
                bestDepth = sp;
                bestLinearized = linearized.clone();
                bestValue = value;
              }
              entry = next[HEAD];
              continue;
            }
          }
          entry = next[entry];
        } else { // completion of an operation not linearized yet: undo the last choice
          if (sp == 0) {
            return violation(events, bestLinearized, Math.max(bestDepth, 0), bestValue);
          }
          sp--;
          int top = stackNode[sp];
          value = stackValue[sp];
          int tj = events[top - 1] >> 1;
          linearized[tj >> 6] &= ~(1L << tj);
          hash1 ^= zobrist1[tj];
          hash2 ^= zobrist2[tj];
          unlift(next, prev, top, nodeOfEvent[events[top - 1] + 1]);
          entry = next[top];
        }
      }
      return null;
    }

    private void lift(int[] next, int[] prev, int call, int ret) {
      next[prev[call]] = next[call];
      prev[next[call]] = prev[call];
      next[prev[ret]] = next[ret];
      if (next[ret] != NIL) {
        prev[next[ret]] = prev[ret];
      }
    }

    private void unlift(int[] next, int[] prev, int call, int ret) {
      next[prev[ret]] = ret;
      if (next[ret] != NIL) {
        prev[next[ret]] = ret;
      }
      next[prev[call]] = call;
      prev[next[call]] = call;
    }

    private Violation unknown() {
      return new Violation(UNKNOWN,
          "gave up on key " + key + " after visiting " + maxStatesPerKey + " configurations of its " + count
              + " operations; raise the budget (LinearizabilityChecker(maxStatesPerKey)) or check a shorter history",
          List.of());
    }

    /** Local index of the first write of a value id. */
    private int writerOf(int valueId) {
      for (int j = 0; j < count; j++) {
        if (write[j] && this.valueId[j] == valueId) {
          return j;
        }
      }
      return -1;
    }

    private String valueName(int v) {
      int w = v < 0 ? -1 : writerOf(v);
      return w < 0 ? "nil (the initial state)" : HistoryModel.show(m.op(op[w]).value()) + " (written by "
          + m.describe(op[w]) + ")";
    }

    /** Explains the deepest point the search reached: which operations could come next and why none fits. */
    private Violation violation(Integer[] events, long[] lin, int depth, int value) {
      List<Integer> next = new ArrayList<>();
      for (int ev : events) {
        int j = ev >> 1;
        if ((lin[j >> 6] & (1L << j)) != 0) {
          continue;
        }
        if ((ev & 1) == 1) {
          break;
        }
        next.add(j);
      }
      Ids ids = new Ids(m);
      List<String> why = new ArrayList<>();
      for (int j : next) {
        if (!write[j] && valueId[j] != value) {
          ids.add(op[j]);
          if (reads[j] >= 0) {
            ids.add(op[reads[j]]);
          }
          why.add(m.describe(op[j]) + " needs " + valueName(valueId[j]));
        }
      }
      if (value >= 0) {
        ids.add(op[writerOf(value)]);
      }
      for (int j : next) {
        ids.add(op[j]);
      }
      return new Violation(NOT_LINEARIZABLE,
          "key " + key + " is not a linearizable register: at best " + depth + " of its " + count
              + " operations can be put in an order that respects real time, after which the register holds "
              + valueName(value) + " and none of the operations that must come next fits"
              + (why.isEmpty() ? " (the writes among them lead only to dead ends)" : ": " + String.join("; ", why)),
          ids.list());
    }
  }
}
