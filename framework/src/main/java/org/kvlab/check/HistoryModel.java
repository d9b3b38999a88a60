package org.kvlab.check;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.kvlab.history.History;
import org.kvlab.history.Operation;
import org.kvlab.history.Operation.Outcome;
import org.kvlab.history.Operation.Type;

/**
 * What every checker needs from a history: the operations sorted by id (an operation is referred to by its index
 * {@code i} in that order), the reads resolved to the writes they read from, and the operations that take part in
 * the causal order.
 *
 * <p>Conventions (docs/checkers.md): values are unique per key, so a read of k returning v reads from the unique
 * PUT that wrote v to k. FAIL operations have no effect and are ignored, except that reading a FAILed PUT's value
 * is a violation. An INFO PUT may or may not have taken effect: it is a node of the causal order with an incoming
 * session-order edge only (its session went on without knowing whether it happened). INFO reads are ignored.
 */
final class HistoryModel {
  /** {@link Read#source} of a read that returned the initial state (no version). */
  static final int INITIAL = -1;
  /** {@link Read#source} of a read returning a value no PUT of that key wrote. */
  static final int THIN_AIR = -2;
  /** {@link Read#source} of a read returning a value only a FAILed PUT wrote. */
  static final int FAILED = -3;

  static final String THIN_AIR_KIND = "thin-air read (ThinAirRead)";
  static final String FAILED_WRITE_KIND = "read of a failed write";
  static final String DUPLICATE_KIND = "ill-formed history: value written twice";

  /**
   * One key read by a GET or ROTX.
   *
   * @param keyIdx the key's dense index ({@link #keyIdx(String)})
   * @param source index of the PUT it reads from, or {@link #INITIAL}, {@link #THIN_AIR}, {@link #FAILED}
   * @param failedPut for {@link #FAILED}: index of the failed PUT, else -1
   */
  record Read(String key, int keyIdx, Optional<ByteString> value, int source, int failedPut) {
    boolean resolved() {
      return source >= INITIAL;
    }
  }

  /** A problem found while resolving reads, with the index of the operation it is about. */
  record Problem(int op, Violation violation) {}

  final List<Operation> ops;
  final int n;
  /** Reads of each completed GET/ROTX (null for other operations). */
  final Read[][] reads;
  /** Whether the operation is a node of the causal order: OK operations and INFO PUTs. */
  final boolean[] inGraph;
  /** Per key (sorted by key), in id order: PUTs of the key in the causal order (OK and INFO). Do not modify. */
  final Map<String, int[]> writesByKey = new TreeMap<>();
  /**
   * Per key (sorted by key), in id order: operations of the causal order that touch the key (PUTs, GETs, ROTXs reading
   * it). Do not modify.
   */
  final Map<String, int[]> opsByKey = new TreeMap<>();
  /** Whether some completed read returned this PUT's value. */
  final boolean[] observed;
  /**
   * Each operation's session as a dense index, 0 to {@link #sessionCount} - 1 in the order of the sessions' first
   * operations: the causal orders keep per-session state in arrays by it instead of maps keyed by boxed ids.
   */
  final int[] sessionIdx;
  final int sessionCount;
  /**
   * Each key the history names (of a PUT, GET or a ROTX's reads) as a dense index, 0 to {@link #keyCount()} - 1 in
   * order of first appearance: the causal orders keep per-key state in arrays by it and compare keys as ints.
   */
  private final Map<String, Integer> keyIndex = new HashMap<>();
  /** The dense index of each operation's {@link Operation#key()}, -1 if it has none. */
  final int[] keyOf;
  /** Per operation: {@link Operation#ok()}, and whether it is a PUT (the orders ask per node; no object is read). */
  final boolean[] okAt;
  final boolean[] putAt;
  /** By key index (keys of PUTs only): whether two PUTs of the key wrote the same value (a DUPLICATE problem). */
  private final boolean[] valueWrittenTwice;
  /** Filled by the constructor only (the model is shared by the checkers of a history: see {@link #of}). */
  final List<Problem> problems = new ArrayList<>();

  /**
   * The last model built on this thread, and its history (weakly: a model is kept for the history being
   * checked, not beyond it). Every checker of a run starts from the same model, and a model is not changed
   * after it is built, so the checkers of one history, run one after the other, share one.
   */
  private static final ThreadLocal<Last> LAST = new ThreadLocal<>();

  private record Last(java.lang.ref.WeakReference<History> history, HistoryModel model) {}

  /** The model of {@code history}: the one built last on this thread if it was for the same history object. */
  static HistoryModel of(History history) {
    Last last = LAST.get();
    if (last != null && last.history().get() == history) {
      return last.model();
    }
    HistoryModel m = new HistoryModel(history);
    LAST.set(new Last(new java.lang.ref.WeakReference<>(history), m));
    return m;
  }

  /**
   * Drops this thread's model if it is {@code history}'s: its checks are over. Otherwise the model (and the causal
   * order it keeps, tens of MB for a simulated seed) stays reachable until the thread checks another history,
   * and a sweep's garbage collector copies it while the next seed runs. A later check of {@code history} builds
   * the same model again.
   */
  static void release(History history) {
    Last last = LAST.get();
    if (last != null && last.history().get() == history) {
      LAST.remove();
    }
  }

  /**
   * The causal order over all operations once a checker has computed it ({@link CausalOrder#compute}), and the
   * representation that was forced then: causal, rotx and convergence share it. Not thread-safe: a model is
   * used by one thread (see {@link #of}).
   */
  CausalOrder globalOrder;
  CausalOrder.Representation globalOrderForced;

  HistoryModel(History history) {
    List<Operation> given = history.operations();
    boolean inOrder = true; // a recorded history comes sorted by id: then the (stable) sort would change nothing
    for (int i = 1; i < given.size() && inOrder; i++) {
      inOrder = given.get(i - 1).id() <= given.get(i).id();
    }
    List<Operation> sorted = given;
    if (!inOrder) {
      sorted = new ArrayList<>(given);
      sorted.sort(Comparator.comparingLong(Operation::id));
    }
    this.ops = Collections.unmodifiableList(sorted);
    this.n = sorted.size();
    this.reads = new Read[n][];
    this.inGraph = new boolean[n];
    this.observed = new boolean[n];
    this.sessionIdx = new int[n];
    Map<Integer, Integer> dense = new HashMap<>();
    for (int i = 0; i < n; i++) {
      Integer d = dense.putIfAbsent(sorted.get(i).session(), dense.size());
      sessionIdx[i] = d == null ? dense.size() - 1 : d;
    }
    this.sessionCount = dense.size();
    this.keyOf = new int[n];
    this.okAt = new boolean[n];
    this.putAt = new boolean[n];
    for (int i = 0; i < n; i++) {
      Operation op = sorted.get(i);
      String k = op.key();
      keyOf[i] = k == null ? -1 : index(k);
      okAt[i] = op.ok();
      putAt[i] = op.type() == Type.PUT;
    }

    // (key, value) -> PUT; a PUT that did not FAIL wins over a FAILed one with the same value
    Map<String, Map<ByteString, Integer>> writer = new HashMap<>();
    valueWrittenTwice = new boolean[keyIndex.size()];
    for (int i = 0; i < n; i++) {
      Operation op = ops.get(i);
      if (op.type() != Type.PUT || op.key() == null || op.value() == null) {
        continue;
      }
      Map<ByteString, Integer> byValue = writer.computeIfAbsent(op.key(), k -> new HashMap<>());
      Integer prior = byValue.get(op.value());
      if (prior == null) {
        byValue.put(op.value(), i);
      } else {
        Operation p = ops.get(prior);
        valueWrittenTwice[keyOf[i]] = true;
        problems.add(new Problem(i, new Violation(DUPLICATE_KIND,
            describe(i) + " wrote the same value to " + op.key() + " as " + describe(prior)
                + "; checkers assume every value is written once, so which write a read saw is ambiguous",
            List.of(op.id(), p.id()))));
        if (p.outcome() == Outcome.FAIL && op.outcome() != Outcome.FAIL) {
          byValue.put(op.value(), i);
        }
      }
    }

    // by key index, in id order: the lists of writesByKey and opsByKey, built as ints (no boxing) and named at the end
    int[][] writesOf = new int[keyIndex.size()][];
    int[] writesCount = new int[keyIndex.size()];
    int[][] opsOf = new int[keyIndex.size()][];
    int[] opsCount = new int[keyIndex.size()];
    for (int i = 0; i < n; i++) {
      Operation op = ops.get(i);
      boolean graph = op.ok() || (op.type() == Type.PUT && op.outcome() == Outcome.INFO);
      if (op.type() == Type.PUT && op.key() == null) {
        graph = false;
      }
      if (op.type() == Type.TXN) {
        graph = false; // multi-key transactions are judged by TxnChecker (their own order: ts, tid), not here
      }
      inGraph[i] = graph;
      if (!graph) {
        continue;
      }
      if (op.type() == Type.PUT) {
        append(writesOf, writesCount, keyOf[i], i);
        append(opsOf, opsCount, keyOf[i], i);
        continue;
      }
      Map<String, Optional<ByteString>> returned = op.reads();
      if (returned == null) {
        continue;
      }
      List<Read> rs = new ArrayList<>();
      if (op.type() == Type.GET) {
        Optional<ByteString> v = op.key() == null ? null : returned.get(op.key());
        if (v != null) {
          rs.add(resolve(i, op.key(), v, writer));
        }
      } else {
        for (Map.Entry<String, Optional<ByteString>> e : returned.entrySet()) {
          if (e.getKey() != null && e.getValue() != null) {
            rs.add(resolve(i, e.getKey(), e.getValue(), writer));
          }
        }
      }
      reads[i] = rs.toArray(new Read[0]);
      for (Read r : rs) {
        if (r.keyIdx() >= opsOf.length) { // a key only reads named (resolve gave it the next index)
          opsOf = Arrays.copyOf(opsOf, keyIndex.size());
          opsCount = Arrays.copyOf(opsCount, keyIndex.size());
        }
        append(opsOf, opsCount, r.keyIdx(), i);
        if (r.source() >= 0) {
          observed[r.source()] = true;
        }
      }
    }
    for (Map.Entry<String, Integer> e : keyIndex.entrySet()) {
      int k = e.getValue();
      if (k < writesOf.length && writesOf[k] != null) {
        writesByKey.put(e.getKey(), Arrays.copyOf(writesOf[k], writesCount[k]));
      }
      if (k < opsOf.length && opsOf[k] != null) {
        opsByKey.put(e.getKey(), Arrays.copyOf(opsOf[k], opsCount[k]));
      }
    }
  }

  /** Appends {@code i} to the list of key {@code k} in {@code lists} (grown as needed), {@code counts[k]} long. */
  private static void append(int[][] lists, int[] counts, int k, int i) {
    int[] list = lists[k];
    if (list == null) {
      list = new int[8];
      lists[k] = list;
    } else if (counts[k] == list.length) {
      list = Arrays.copyOf(list, list.length * 2);
      lists[k] = list;
    }
    list[counts[k]++] = i;
  }

  private int index(String key) {
    Integer k = keyIndex.putIfAbsent(key, keyIndex.size());
    return k == null ? keyIndex.size() - 1 : k;
  }

  /** The dense index of {@code key}, or -2 if no operation of the history names it (never -1: "all keys"). */
  int keyIdx(String key) {
    return keyIndex.getOrDefault(key, -2);
  }

  /**
   * Whether no two PUTs of {@code key} with a value (OK, INFO or FAIL) wrote the same one: then a read's value
   * names exactly the PUT it {@link Read#source() reads from}.
   */
  boolean valuesWrittenOnce(String key) {
    int k = keyIdx(key);
    return k < 0 || k >= valueWrittenTwice.length || !valueWrittenTwice[k];
  }

  /** Keys have indices 0 to this - 1. */
  int keyCount() {
    return keyIndex.size();
  }

  private Read resolve(int i, String key, Optional<ByteString> v, Map<String, Map<ByteString, Integer>> writer) {
    int k = index(key);
    if (v.isEmpty()) {
      return new Read(key, k, v, INITIAL, -1);
    }
    Integer w = writer.getOrDefault(key, Map.of()).get(v.get());
    Operation op = ops.get(i);
    if (w == null) {
      problems.add(new Problem(i, new Violation(THIN_AIR_KIND,
          describe(i) + " returned " + key + "=" + show(v) + ", a value no PUT of " + key + " ever wrote",
          List.of(op.id()))));
      return new Read(key, k, v, THIN_AIR, -1);
    }
    if (ops.get(w).outcome() == Outcome.FAIL) {
      problems.add(new Problem(i, new Violation(FAILED_WRITE_KIND,
          describe(i) + " returned " + key + "=" + show(v) + ", written only by " + describe(w)
              + ", which FAILED (so it must not have taken effect)",
          List.of(op.id(), ops.get(w).id()))));
      return new Read(key, k, v, FAILED, w);
    }
    return new Read(key, k, v, w, -1);
  }

  Operation op(int i) {
    return ops.get(i);
  }

  long id(int i) {
    return ops.get(i).id();
  }

  String describe(int i) {
    return ops.get(i).describe();
  }

  boolean isWrite(int i) {
    return putAt[i];
  }

  boolean isRead(int i) {
    return reads[i] != null;
  }

  /** The read of {@code key} by operation {@code i}, or null. */
  Read readOf(int i, String key) {
    Read[] rs = reads[i];
    if (rs == null) {
      return null;
    }
    for (Read r : rs) {
      if (r.key().equals(key)) {
        return r;
      }
    }
    return null;
  }

  /** As {@link #readOf(int, String)}, for the key with dense index {@code keyIdx} (compared as an int). */
  Read readOf(int i, int keyIdx) {
    Read[] rs = reads[i];
    if (rs == null) {
      return null;
    }
    for (Read r : rs) {
      if (r.keyIdx() == keyIdx) {
        return r;
      }
    }
    return null;
  }

  /** Whether operation {@code reader} reads from PUT {@code write}. */
  boolean readsFrom(int reader, int write) {
    Read[] rs = reads[reader];
    if (rs == null) {
      return false;
    }
    for (Read r : rs) {
      if (r.source() == write) {
        return true;
      }
    }
    return false;
  }

  /** A PUT that certainly took effect: OK, or INFO and read by someone. */
  boolean happened(int w) {
    Operation op = ops.get(w);
    return op.type() == Type.PUT && (op.ok() || (op.outcome() == Outcome.INFO && observed[w]));
  }

  List<Violation> problems() {
    List<Violation> out = new ArrayList<>();
    for (Problem p : problems) {
      out.add(p.violation());
    }
    return out;
  }

  /** How a read value is shown in explanations: the string, or nil for the initial state. */
  static String show(Optional<ByteString> v) {
    return v.map(HistoryModel::show).orElse("nil");
  }

  static String show(ByteString v) {
    return v.isValidUtf8() ? "\"" + v.toStringUtf8() + "\"" : "<" + v.size() + " bytes>";
  }

  /** "x=\"a\"" or "x=nil" for a read. */
  static String show(Read r) {
    return r.key() + "=" + show(r.value());
  }
}
