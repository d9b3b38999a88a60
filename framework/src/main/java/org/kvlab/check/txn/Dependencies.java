package org.kvlab.check.txn;

import static org.kvlab.check.txn.TxnHistory.APPEND;
import static org.kvlab.check.txn.TxnHistory.FAIL;
import static org.kvlab.check.txn.TxnHistory.OK;
import static org.kvlab.check.txn.TxnHistory.READ;
import static org.kvlab.check.txn.TxnHistory.READ_OWN;
import static org.kvlab.check.txn.TxnHistory.WRITE;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Infers the dependency graph of a {@link TxnHistory} from what its reads returned (Adya's ww, wr and rw
 * dependencies; Elle's inference), plus session and real-time order when asked, and reports on the way the anomalies
 * that need no cycle: G1a (a read of a failed transaction's write), G1b (a read of a value its writer overwrote
 * itself), lost updates, reads of values nobody wrote and, in lists, elements read twice.
 *
 * <p><b>list-append</b>: each key's version order is its longest list read (every other read is a prefix of it;
 * those that are not were reported by {@link TxnHistory}). Consecutive elements appended by different transactions
 * give ww; the transaction that appended the last element of a list a transaction read precedes the reader (wr);
 * the reader precedes the transaction that appended the next element (rw). Appends never read are in no order.
 *
 * <p><b>rw-register</b>: values are unique, so a read names its writer (wr); a transaction that read version v of k
 * (nil included) and then wrote k installed the next version after v, so v's writer precedes it (ww) and every
 * other reader of v precedes it (rw). Only those orders are inferred (no order among unrelated writes).
 *
 * <p>Transactions with an unknown outcome (INFO) are in the graph through the writes others read (their writes may
 * or may not have happened: an unread one adds nothing); failed ones (FAIL) are not in it, and a read of their
 * writes is G1a. Session order links each transaction to its session's next one; real time links a transaction
 * that completed OK to every one invoked later, stored without redundant edges (those implied through a third).
 */
final class Dependencies {
  static final String G1A = "G1a";
  static final String G1B = "G1b";
  static final String LOST_UPDATE = "lost update";
  static final String GARBAGE = "garbage read";
  static final String DUPLICATE = "duplicate element";

  private final TxnHistory h;
  private final PairIndex position;

  private Dependencies(TxnHistory h) {
    this.h = h;
    int elements = 0;
    if (h.model == TxnHistory.Model.LIST_APPEND) {
      for (int k = 0; k < h.keys.size(); k++) {
        elements += h.longest[k] == null ? 0 : h.longest[k].length;
      }
    }
    this.position = new PairIndex(Math.max(16, elements));
  }

  /** The graph of {@code h} with the dependency edges, and session and real-time edges if {@code strict}. */
  static Dependencies infer(TxnHistory h, boolean strict, DependencyGraph.Builder g) {
    Dependencies d = new Dependencies(h);
    if (h.model == TxnHistory.Model.LIST_APPEND) {
      d.lists(g);
    } else {
      d.registers(g);
    }
    if (strict) {
      d.sessions(g);
      d.realtime(g);
    }
    return d;
  }

  private boolean node(int t) {
    return t >= 0 && h.outcome[t] != FAIL;
  }

  private List<Long> ids(int... ts) {
    Long[] out = new Long[ts.length];
    for (int i = 0; i < ts.length; i++) {
      out[i] = h.id[ts[i]];
    }
    return List.of(out);
  }

  private void lists(DependencyGraph.Builder g) {
    int keys = h.keys.size();
    int[] firstFailed = new int[keys];
    Arrays.fill(firstFailed, Integer.MAX_VALUE);
    for (int k = 0; k < keys; k++) {
      long[] l = h.longest[k];
      if (l == null || h.opaque(k)) {
        continue; // a key an operation left out wrote (a PUT of a list history): its lists are no version order
      }
      int prev = -1;
      for (int i = 0; i < l.length; i++) {
        int w = h.writer.get(k, l[i]);
        if (position.putIfAbsent(k, l[i], i) >= 0) {
          h.report(DUPLICATE, h.describe(h.longestReader[k]) + " read " + h.keys.get(k) + "="
              + TxnHistory.show(l, l.length) + ", which holds element " + l[i] + " twice: an append was applied"
              + " twice", ids(h.longestReader[k]));
        }
        if (w < 0) {
          if (!h.opaque(k)) { // else written by an operation left out: no dependency known
            h.report(GARBAGE, h.describe(h.longestReader[k]) + " read " + h.keys.get(k) + "="
                + TxnHistory.show(l, l.length) + ", whose element " + l[i] + " no transaction appended",
                ids(h.longestReader[k]));
          }
        } else if (h.outcome[w] == FAIL) {
          firstFailed[k] = Math.min(firstFailed[k], i);
        } else if (node(prev) && prev != w) {
          g.add(prev, w, DependencyGraph.WW);
        }
        prev = w;
      }
    }
    PairIndex readers = new PairIndex(16); // (key, length) → first OK transaction that read it and appended
    for (int t = 0; t < h.n; t++) {
      for (int m = h.mopStart[t]; m < h.mopStart[t + 1]; m++) {
        byte type = h.mopType[m];
        if ((type != READ && type != READ_OWN) || h.opaque(h.mopKey[m])) {
          continue;
        }
        int k = h.mopKey[m];
        long[] l = h.longest[k];
        int len = (int) h.mopVal[m];
        if (len > firstFailed[k]) {
          int w = h.writer.get(k, l[firstFailed[k]]);
          h.report(G1A, h.describe(t) + " read " + h.keys.get(k) + "=" + TxnHistory.show(l, len) + ", whose element "
              + l[firstFailed[k]] + " was appended by " + h.describe(w) + ", which failed: a failed transaction's"
              + " writes must never be seen (aborted read)", ids(w, t));
        }
        if (type != READ) {
          continue;
        }
        int last = len == 0 ? -1 : h.writer.get(k, l[len - 1]);
        int next = len < l.length ? h.writer.get(k, l[len]) : -1;
        if (node(last) && last != t) {
          g.add(last, t, DependencyGraph.WR);
          if (next == last) {
            h.report(G1B, h.describe(t) + " read " + h.keys.get(k) + "=" + TxnHistory.show(l, len) + ", ending with "
                + l[len - 1] + " which " + h.describe(last) + " appended before appending " + l[len] + " itself:"
                + " it read an intermediate state of that transaction (intermediate read)", ids(last, t));
          }
        }
        if (node(next) && next != t) {
          g.add(t, next, DependencyGraph.RW);
        }
        if (h.outcome[t] == OK && writes(t, k)) {
          int before = readers.putIfAbsent(k, len, t);
          if (before >= 0) {
            h.report(LOST_UPDATE, h.describe(before) + " and " + h.describe(t) + " both read " + h.keys.get(k) + "="
                + TxnHistory.show(l, len) + " and both appended to it: whichever came second should have read the"
                + " other's append (lost update)", ids(before, t));
          }
        }
      }
    }
  }

  private boolean writes(int t, int k) {
    for (int m = h.mopStart[t]; m < h.mopStart[t + 1]; m++) {
      if ((h.mopType[m] == APPEND || h.mopType[m] == WRITE) && h.mopKey[m] == k) {
        return true;
      }
    }
    return false;
  }

  /** The value transaction {@code t} wrote last to key {@code k}, or -2 if none. */
  private long lastWrite(int t, int k) {
    long v = -2;
    for (int m = h.mopStart[t]; m < h.mopStart[t + 1]; m++) {
      if (h.mopType[m] == WRITE && h.mopKey[m] == k) {
        v = h.mopVal[m];
      }
    }
    return v;
  }

  private void registers(DependencyGraph.Builder g) {
    // every external read of an OK transaction as (key, value, reader), grouped by version (key, value)
    int count = 0;
    for (int m = 0; m < h.mops; m++) {
      count += h.mopType[m] == READ ? 1 : 0;
    }
    long[] version = new long[count];
    int[] reader = new int[count];
    Integer[] order = new Integer[count];
    int r = 0;
    for (int t = 0; t < h.n; t++) {
      for (int m = h.mopStart[t]; m < h.mopStart[t + 1]; m++) {
        if (h.mopType[m] != READ) {
          continue;
        }
        int k = h.mopKey[m];
        long v = h.mopVal[m];
        int w = v < 0 ? -1 : h.writer.get(k, v);
        if (v < 0 || w >= 0 || !h.opaque(k)) { // a value of an operation left out may not be unique: no version
          version[r] = ((long) k << 32) | (v + 1);
          reader[r] = t;
          order[r] = r;
          r++;
        }
        if (v < 0) {
          continue;
        }
        if (w < 0 && !h.opaque(k)) {
          h.report(GARBAGE, h.describe(t) + " read " + h.keys.get(k) + "=" + h.showValue(v) + ", which no"
              + " transaction wrote", ids(t));
        } else if (w < 0) {
          continue; // written by an operation left out (a procedure such as add): no dependency known
        } else if (h.outcome[w] == FAIL) {
          h.report(G1A, h.describe(t) + " read " + h.keys.get(k) + "=" + h.showValue(v) + ", written by "
              + h.describe(w) + ", which failed: a failed transaction's writes must never be seen (aborted read)",
              ids(w, t));
        } else if (w != t) {
          g.add(w, t, DependencyGraph.WR);
          if (h.intermediate.get(k, v) == w) {
            h.report(G1B, h.describe(t) + " read " + h.keys.get(k) + "=" + h.showValue(v) + ", which "
                + h.describe(w) + " overwrote itself: it read an intermediate state of that transaction"
                + " (intermediate read)", ids(w, t));
          }
        }
      }
    }
    count = r;
    Arrays.sort(order, 0, count, (a, b) -> Long.compare(version[a], version[b]));
    for (int i = 0; i < count; ) {
      int j = i;
      while (j < count && version[order[j]] == version[order[i]]) {
        j++;
      }
      int k = (int) (version[order[i]] >>> 32);
      long v = (version[order[i]] & 0xffffffffL) - 1;
      int w = v < 0 ? -1 : h.writer.get(k, v);
      int firstNext = -1;
      for (int a = i; a < j; a++) {
        int s = reader[order[a]];
        if (lastWrite(s, k) == -2) {
          continue;
        }
        if (node(w) && w != s) {
          g.add(w, s, DependencyGraph.WW);
        }
        for (int b = i; b < j; b++) {
          g.add(reader[order[b]], s, DependencyGraph.RW);
        }
        if (firstNext < 0) {
          firstNext = s;
        } else if (h.outcome[s] == OK && h.outcome[firstNext] == OK) {
          h.report(LOST_UPDATE, h.describe(firstNext) + " and " + h.describe(s) + " both read " + h.keys.get(k)
              + "=" + h.showValue(v) + " and both wrote " + h.keys.get(k) + ": whichever came second should have read"
              + " the other's write (lost update)", ids(firstNext, s));
        }
      }
      i = j;
    }
  }

  private void sessions(DependencyGraph.Builder g) {
    Map<Integer, Integer> last = new HashMap<>();
    for (int t = 0; t < h.n; t++) {
      if (h.outcome[t] == FAIL) {
        continue;
      }
      Integer p = last.get(h.session[t]);
      if (p != null) {
        g.add(p, t, DependencyGraph.SESSION);
      }
      if (h.outcome[t] == OK) {
        last.put(h.session[t], t); // after an INFO one, its effect may come later: no order from it
      } else {
        last.remove(h.session[t]);
      }
    }
  }

  private void realtime(DependencyGraph.Builder g) {
    int n = h.n;
    Integer[] byInvoke = new Integer[n];
    Integer[] byComplete = new Integer[n];
    for (int t = 0; t < n; t++) {
      byInvoke[t] = t;
      byComplete[t] = t;
    }
    Arrays.sort(byInvoke, (a, b) -> Long.compare(h.invoke[a], h.invoke[b]));
    Arrays.sort(byComplete, (a, b) -> Long.compare(h.complete[a], h.complete[b]));
    int[] predStart = new int[n];
    int[] predEnd = new int[n];
    int[] preds = new int[1024];
    int predCount = 0;
    boolean[] in = new boolean[n];
    int[] frontier = new int[64];
    int size = 0;
    int c = 0;
    for (int i = 0; i < n; i++) {
      int t = byInvoke[i];
      while (c < n && h.complete[byComplete[c]] < h.invoke[t]) {
        int done = byComplete[c++];
        if (h.outcome[done] != OK) {
          continue;
        }
        for (int p = predStart[done]; p < predEnd[done]; p++) {
          in[preds[p]] = false;
        }
        int live = 0;
        for (int f = 0; f < size; f++) {
          if (in[frontier[f]]) {
            frontier[live++] = frontier[f];
          }
        }
        size = live;
        if (size == frontier.length) {
          frontier = Arrays.copyOf(frontier, size * 2);
        }
        frontier[size++] = done;
        in[done] = true;
      }
      if (h.outcome[t] == FAIL) {
        continue;
      }
      predStart[t] = predCount;
      for (int f = 0; f < size; f++) {
        g.add(frontier[f], t, DependencyGraph.REALTIME);
        if (predCount == preds.length) {
          preds = Arrays.copyOf(preds, predCount * 2);
        }
        preds[predCount++] = frontier[f];
      }
      predEnd[t] = predCount;
    }
  }

  /** Why {@code a} precedes {@code b} by an edge of {@code kind}, in words. */
  String why(int a, int b, byte kind) {
    String ta = "#" + h.id[a];
    String tb = "#" + h.id[b];
    switch (kind) {
      case DependencyGraph.SESSION:
        return tb + " came after " + ta + " in session s" + h.session[a];
      case DependencyGraph.REALTIME:
        return ta + " completed at " + h.complete[a] + "µs, before " + tb + " was invoked at " + h.invoke[b] + "µs";
      default:
        break;
    }
    for (int m = h.mopStart[kind == DependencyGraph.RW ? a : b]; m < h.mopStart[(kind == DependencyGraph.RW ? a : b)
        + 1]; m++) {
      int k = h.mopKey[m];
      String key = h.keys.get(k);
      if (h.model == TxnHistory.Model.LIST_APPEND) {
        long[] l = h.longest[k];
        if (kind == DependencyGraph.WW && h.mopType[m] == APPEND) {
          int p = position.get(k, h.mopVal[m]);
          if (p > 0 && h.writer.get(k, l[p - 1]) == a) {
            return "on " + key + ", " + tb + " appended " + l[p] + " right after " + ta + "'s " + l[p - 1];
          }
        } else if (h.mopType[m] == READ) {
          int len = (int) h.mopVal[m];
          if (kind == DependencyGraph.WR && len > 0 && h.writer.get(k, l[len - 1]) == a) {
            return tb + " read " + key + "=" + TxnHistory.show(l, len) + ", whose last element " + ta + " appended";
          }
          if (kind == DependencyGraph.RW && len < l.length && h.writer.get(k, l[len]) == b) {
            return ta + " read " + key + "=" + TxnHistory.show(l, len) + ", and " + tb + " appended the next element, "
                + l[len];
          }
        }
      } else if (h.mopType[m] == READ) {
        long v = h.mopVal[m];
        String shown = h.showValue(v);
        int w = v < 0 ? -1 : h.writer.get(k, v);
        if (kind == DependencyGraph.WR && w == a) {
          return tb + " read " + key + "=" + shown + ", written by " + ta;
        }
        if (kind == DependencyGraph.WW && (w == a || (v < 0 && a < 0)) && lastWrite(b, k) != -2) {
          return tb + " read " + key + "=" + shown + ", written by " + ta + ", and overwrote it with "
              + h.showValue(lastWrite(b, k));
        }
        if (kind == DependencyGraph.RW && lastWrite(b, k) != -2 && reads(b, k, v)) {
          return ta + " read " + key + "=" + shown + ", which " + tb + " (having read it too) overwrote with "
              + h.showValue(lastWrite(b, k));
        }
      }
    }
    return ta + " precedes " + tb + " (" + DependencyGraph.name(kind) + ")";
  }

  private boolean reads(int t, int k, long v) {
    for (int m = h.mopStart[t]; m < h.mopStart[t + 1]; m++) {
      if (h.mopType[m] == READ && h.mopKey[m] == k && h.mopVal[m] == v) {
        return true;
      }
    }
    return false;
  }
}
