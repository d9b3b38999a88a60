package org.kvlab.check.txn;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.kvlab.api.TxnProcedures;
import org.kvlab.api.TxnRequest;
import org.kvlab.check.Violation;
import org.kvlab.history.History;
import org.kvlab.history.Operation;

/**
 * The transactions of a history as sequences of micro-operations, the form the {@link SerializabilityChecker} infers
 * dependencies from, in flat arrays (a few dozen bytes per micro-operation, for histories of millions).
 *
 * <p>Two data models (Elle's): <b>list-append</b>, where a read {@code r k} returns the key's whole list and
 * {@code append k e} adds an element unique per key, and <b>rw-register</b>, where a read returns one value and
 * every write writes a value unique per key. A history is list-append if any transaction runs the
 * {@link TxnProcedures#APPEND append} procedure, else rw-register.
 *
 * <p>From a kvlab {@link History} ({@link #of}): a TXN is its reads (in key order, of the values before its writes)
 * followed by its writes, or, for {@code append}, its appends; a GET is one read; a ROTX its reads; a PUT one write
 * (rw-register only). The reads of a transaction that did not end OK are unknown and left out. Other procedures
 * ({@code add}, {@code transfer}) do not write unique values: such transactions are left out and counted
 * ({@link #skipped}). The {@link Builder} makes histories of arbitrary micro-operation sequences (a read after the
 * transaction's own write, two writes of one key), which one-shot kvlab transactions cannot express.
 *
 * <p>Building already finds what needs no graph: internal inconsistencies (a read that disagrees with the
 * transaction's own writes), reads of one key whose lists are not prefixes of each other (incompatible order),
 * malformed lists and values written twice ({@link #violations}).
 */
public final class TxnHistory {
  /** The two data models. */
  public enum Model { LIST_APPEND, RW_REGISTER }

  static final byte READ = 0; // external read: the first of its key in the transaction, before any own write
  static final byte WRITE = 1;
  static final byte APPEND = 2;
  static final byte READ_OWN = 3; // a read after the transaction's own write of the key: no dependency
  static final byte READ_BAD = 4; // a read already reported (incompatible order, malformed): no dependency

  static final byte OK = 0;
  static final byte INFO = 1;
  static final byte FAIL = 2;

  public static final String INTERNAL = "internal inconsistency";
  public static final String INCOMPATIBLE = "incompatible order";
  public static final String MALFORMED = "malformed list";
  public static final String NOT_UNIQUE = "non-unique write";

  final Model model;
  int n;
  long[] id = new long[16];
  int[] session = new int[16];
  long[] invoke = new long[16];
  long[] complete = new long[16];
  byte[] outcome = new byte[16];
  Operation[] ops; // the history's operations, for descriptions; null for built histories
  String[] texts; // built histories: each transaction's description
  int[] mopStart = new int[17];
  int mops;
  byte[] mopType = new byte[64];
  int[] mopKey = new int[64];
  long[] mopVal = new long[64]; // APPEND: element; WRITE/READ (register): value id, -1 nil; READ (list): length
  long[] mopAux = new long[64]; // READ (list): last element
  final List<String> keys = new ArrayList<>();
  private final Map<String, Integer> keyIds = new HashMap<>();
  final List<ByteString> values = new ArrayList<>();
  private final Map<ByteString, Integer> valueIds = new HashMap<>();
  /** list-append: each key's longest list read, and the transaction that read it. */
  long[][] longest = new long[16][];
  int[] longestReader = new int[16];
  /** (key, element or value id) → the transaction that wrote it. */
  final PairIndex writer;
  /** rw-register: (key, value id) → its writer, for values the writer overwrote itself (intermediate). */
  final PairIndex intermediate = new PairIndex(16);
  final List<Violation> violations = new ArrayList<>();
  final Map<String, Integer> violationCounts = new HashMap<>();
  int skipped;
  /** Keys that operations left out wrote (or may have): a value of them nobody in the history wrote is no garbage. */
  private final java.util.BitSet opaque = new java.util.BitSet();

  private TxnHistory(Model model, int expected) {
    this.model = model;
    this.writer = new PairIndex(Math.max(16, expected));
  }

  /** A builder of a history of the given model. */
  public static Builder builder(Model model) {
    return new Builder(new TxnHistory(model, 16));
  }

  /** The model of {@code h}: list-append if a transaction appends, else rw-register. */
  public static Model modelOf(History h) {
    for (Operation op : h.operations()) {
      if (op.type() == Operation.Type.TXN && op.txn() != null
          && TxnProcedures.APPEND.equals(op.txn().request().procedure())) {
        return Model.LIST_APPEND;
      }
    }
    return Model.RW_REGISTER;
  }

  /** The transactions (TXN, GET, ROTX, PUT) of {@code h} as micro-operations. */
  public static TxnHistory of(History h) {
    Model model = modelOf(h);
    TxnHistory t = new TxnHistory(model, h.size() * 2);
    t.ops = new Operation[16];
    Builder b = new Builder(t);
    for (Operation op : h.operations()) {
      b.add(op);
    }
    return b.build();
  }

  public Model model() {
    return model;
  }

  /** Transactions in the history (including those that did not end OK). */
  public int size() {
    return n;
  }

  /** Operations left out because their writes are not unique values (procedures other than append). */
  public int skipped() {
    return skipped;
  }

  /** Short form of transaction {@code t}: kvlab's operation description. */
  String describe(int t) {
    if (ops != null && ops[t] != null) {
      return ops[t].describe();
    }
    return texts[t];
  }

  /** Leaves one operation out: its keys become opaque. */
  private void skip(List<String> written) {
    skipped++;
    for (String k : written) {
      opaque.set(keyId(k));
    }
  }

  /** True if an operation left out (other procedure, plain write in a list history) wrote or may have written k. */
  boolean opaque(int k) {
    return opaque.get(k);
  }

  int keyId(String k) {
    Integer i = keyIds.get(k);
    if (i == null) {
      i = keys.size();
      keys.add(k);
      keyIds.put(k, i);
      if (i >= longest.length) {
        longest = Arrays.copyOf(longest, i * 2);
        longestReader = Arrays.copyOf(longestReader, i * 2);
      }
    }
    return i;
  }

  int valueId(ByteString v) {
    if (v == null) {
      return -1;
    }
    Integer i = valueIds.get(v);
    if (i == null) {
      i = values.size();
      values.add(v);
      valueIds.put(v, i);
    }
    return i;
  }

  void report(String kind, String explanation, List<Long> ids) {
    int c = violationCounts.merge(kind, 1, Integer::sum);
    if (c <= SerializabilityChecker.SHOWN_PER_KIND) {
      violations.add(new Violation(kind, explanation, ids));
    }
  }

  /** The elements of a list value: whole numbers separated by blanks; null if malformed. Absent = empty. */
  static long[] parseList(ByteString v) {
    if (v == null || v.isEmpty()) {
      return new long[0];
    }
    long[] out = new long[8];
    int count = 0;
    long cur = 0;
    boolean in = false;
    boolean neg = false;
    for (int i = 0; i < v.size(); i++) {
      byte c = v.byteAt(i);
      if (c == ' ') {
        if (in) {
          if (count == out.length) {
            out = Arrays.copyOf(out, count * 2);
          }
          out[count++] = neg ? -cur : cur;
        }
        in = false;
        neg = false;
        cur = 0;
      } else if (c >= '0' && c <= '9') {
        cur = cur * 10 + (c - '0');
        in = true;
      } else if (c == '-' && !in && !neg) {
        neg = true;
      } else {
        return null;
      }
    }
    if (in) {
      if (count == out.length) {
        out = Arrays.copyOf(out, count + 1);
      }
      out[count++] = neg ? -cur : cur;
    } else if (neg) {
      return null;
    }
    return Arrays.copyOf(out, count);
  }

  /** A list shortened for explanations: {@code [1 2 3]}, or {@code [… 7 8 9] (12 elements)}. */
  static String show(long[] list, int length) {
    StringBuilder b = new StringBuilder("[");
    int from = Math.max(0, length - 3);
    if (from > 0) {
      b.append("… ");
    }
    for (int i = from; i < length; i++) {
      b.append(i > from ? " " : "").append(list[i]);
    }
    b.append(']');
    return from > 0 ? b + " (" + length + " elements)" : b.toString();
  }

  String showValue(long valueId) {
    if (valueId < 0) {
      return "nil";
    }
    ByteString v = values.get((int) valueId);
    return v.isValidUtf8() ? "\"" + v.toStringUtf8() + "\"" : v.size() + "B";
  }

  /**
   * Builds a history transaction by transaction: {@link #txn} starts one, then its micro-operations in order.
   * Reads and writes of a list-append history take lists and elements, those of rw-register values.
   */
  public static final class Builder {
    private final TxnHistory h;
    private boolean open;
    private final List<Object[]> pending = new ArrayList<>(); // {type, key, long[] list | Long elem | ByteString}

    private Builder(TxnHistory h) {
      this.h = h;
    }

    /** Starts transaction {@code id} of {@code session}, invoked and completed at these times (µs). */
    public Builder txn(long id, int session, long invokeMicros, long completeMicros, Operation.Outcome outcome) {
      finish();
      start(id, session, invokeMicros, completeMicros, outcome);
      if (h.texts == null) {
        h.texts = new String[16];
      }
      return this;
    }

    /** list-append: a read of {@code key} that returned {@code list}. */
    public Builder read(String key, long... list) {
      pending.add(new Object[] {READ, key, list.clone()});
      return this;
    }

    /** list-append: appends {@code element} to {@code key}. */
    public Builder append(String key, long element) {
      pending.add(new Object[] {APPEND, key, element});
      return this;
    }

    /** rw-register: a read of {@code key} that returned {@code value} (null: nil, never written). */
    public Builder readValue(String key, String value) {
      pending.add(new Object[] {READ, key, value == null ? null : ByteString.copyFromUtf8(value)});
      return this;
    }

    /** rw-register: writes {@code value} to {@code key}. */
    public Builder write(String key, String value) {
      pending.add(new Object[] {WRITE, key, ByteString.copyFromUtf8(value)});
      return this;
    }

    public TxnHistory build() {
      finish();
      return h;
    }

    private void start(long id, int session, long invoke, long complete, Operation.Outcome outcome) {
      int t = h.n;
      if (t == h.id.length) {
        int c = t * 2;
        h.id = Arrays.copyOf(h.id, c);
        h.session = Arrays.copyOf(h.session, c);
        h.invoke = Arrays.copyOf(h.invoke, c);
        h.complete = Arrays.copyOf(h.complete, c);
        h.outcome = Arrays.copyOf(h.outcome, c);
        h.mopStart = Arrays.copyOf(h.mopStart, c + 1);
        if (h.ops != null) {
          h.ops = Arrays.copyOf(h.ops, c);
        }
        if (h.texts != null) {
          h.texts = Arrays.copyOf(h.texts, c);
        }
      }
      h.id[t] = id;
      h.session[t] = session;
      h.invoke[t] = invoke;
      h.complete[t] = outcome == Operation.Outcome.OK || outcome == Operation.Outcome.FAIL ? complete : Long.MAX_VALUE;
      h.outcome[t] = switch (outcome) {
        case OK -> OK;
        case INFO -> INFO;
        case FAIL -> FAIL;
      };
      open = true;
    }

    void add(Operation op) {
      Map<String, Optional<ByteString>> reads = op.ok() ? op.reads() : null;
      boolean list = h.model == Model.LIST_APPEND;
      switch (op.type()) {
        case GET, ROTX -> {
          if (reads == null) {
            return; // a read that did not end OK tells nothing
          }
          begin(op);
          new java.util.TreeMap<>(reads).forEach((k, v) -> readOf(k, v.orElse(null), list));
        }
        case PUT -> {
          if (list) {
            h.skip(List.of(op.key()));
            return;
          }
          begin(op);
          pending.add(new Object[] {WRITE, op.key(), op.value()});
        }
        case TXN -> {
          TxnRequest q = op.txn() == null ? null : op.txn().request();
          if (q == null) {
            return;
          }
          boolean append = TxnProcedures.APPEND.equals(q.procedure());
          if ((q.procedure() != null && !append) || (list && !append && !q.writes().isEmpty())
              || (!list && append)) {
            h.skip(q.keys());
            return;
          }
          begin(op);
          if (reads != null) {
            for (String k : q.reads()) {
              Optional<ByteString> v = reads.get(k);
              readOf(k, v == null ? null : v.orElse(null), list);
            }
          }
          if (append) {
            for (String k : TxnProcedures.appendKeys(q.args())) {
              pending.add(new Object[] {APPEND, k, TxnProcedures.appendElement(q.args())});
            }
          } else {
            q.writes().forEach((k, v) -> pending.add(new Object[] {WRITE, k, v}));
          }
        }
      }
    }

    private void readOf(String k, ByteString v, boolean list) {
      if (!list) {
        pending.add(new Object[] {READ, k, v});
        return;
      }
      long[] parsed = parseList(v);
      if (parsed == null) {
        pending.add(new Object[] {READ_BAD, k, v});
      } else {
        pending.add(new Object[] {READ, k, parsed});
      }
    }

    private void begin(Operation op) {
      finish();
      start(op.id(), op.session(), op.invokeMicros(), op.completeMicros(), op.outcome());
      h.ops[h.n] = op;
    }

    /** Closes the open transaction: checks it against itself and stores its micro-operations. */
    private void finish() {
      if (!open) {
        return;
      }
      open = false;
      int t = h.n++;
      if (h.texts != null && (h.ops == null || h.ops[t] == null)) {
        h.texts[t] = text(t);
      }
      Map<String, List<Object>> own = new HashMap<>(); // key → this transaction's writes so far
      Map<String, List<Object>> all = new HashMap<>(); // key → all its writes
      for (Object[] m : pending) {
        if ((byte) m[0] != READ && (byte) m[0] != READ_BAD) {
          all.computeIfAbsent((String) m[1], x -> new ArrayList<>()).add(m[2]);
        }
      }
      for (Object[] m : pending) {
        byte type = (byte) m[0];
        String key = (String) m[1];
        int k = h.keyId(key);
        List<Object> mine = own.getOrDefault(key, List.of());
        if (type == READ_BAD) {
          h.report(MALFORMED, h.describe(t) + " read " + key + "=\""
              + ((ByteString) m[2]).toStringUtf8() + "\", which is not a list of whole numbers separated by"
              + " blanks: the store returned something no append wrote", List.of(h.id[t]));
          push(READ_BAD, k, 0, 0);
        } else if (type == READ && h.model == Model.LIST_APPEND) {
          readList(t, k, key, (long[]) m[2], mine, all.getOrDefault(key, List.of()));
        } else if (type == READ) {
          readRegister(t, k, key, (ByteString) m[2], mine, all.getOrDefault(key, List.of()));
        } else if (type == APPEND) {
          long e = (Long) m[2];
          unique(t, k, key, e, "appended " + e);
          push(APPEND, k, e, 0);
          own.computeIfAbsent(key, x -> new ArrayList<>()).add(e);
        } else {
          int v = h.valueId((ByteString) m[2]);
          unique(t, k, key, v, "wrote " + h.showValue(v));
          if (!mine.isEmpty()) {
            h.intermediate.putIfAbsent(k, h.valueId((ByteString) mine.get(mine.size() - 1)), t);
          }
          push(WRITE, k, v, 0);
          own.computeIfAbsent(key, x -> new ArrayList<>()).add(m[2]);
        }
      }
      pending.clear();
      h.mopStart[h.n] = h.mops;
    }

    private void unique(int t, int k, String key, long value, String what) {
      int before = h.writer.putIfAbsent(k, value, t);
      if (before >= 0) {
        h.report(NOT_UNIQUE, h.describe(t) + " " + what + " to " + key + ", as " + h.describe(before)
            + " did: the checker needs every write of a key to be unique. Fix: a workload that writes unique values",
            List.of(h.id[before], h.id[t]));
      }
    }

    private void readList(int t, int k, String key, long[] list, List<Object> mine, List<Object> all) {
      // own appends before the read must end the list, in order; own later appends must not be in it
      boolean internal = list.length < mine.size();
      for (int i = 0; !internal && i < mine.size(); i++) {
        internal = list[list.length - mine.size() + i] != (Long) mine.get(i);
      }
      if (!internal && all.size() > mine.size()) {
        java.util.Set<Long> later = new java.util.HashSet<>();
        for (int i = mine.size(); i < all.size(); i++) {
          later.add((Long) all.get(i));
        }
        for (long e : list) {
          internal |= later.contains(e);
        }
      }
      if (internal) {
        h.report(INTERNAL, h.describe(t) + " read " + key + "=" + show(list, list.length) + " but its own appends"
            + " to " + key + " up to that read were " + mine + " (of " + all + " in all): a read must end with the"
            + " transaction's own earlier appends and hold none of its later ones", List.of(h.id[t]));
        push(READ_BAD, k, 0, 0);
        return;
      }
      long[] l = h.longest[k];
      if (l == null || isPrefix(l, list)) {
        h.longest[k] = list;
        h.longestReader[k] = t;
      } else if (!isPrefix(list, l)) {
        h.report(INCOMPATIBLE, h.describe(t) + " read " + key + "=" + show(list, list.length) + " and "
            + h.describe(h.longestReader[k]) + " read " + key + "=" + show(l, l.length) + ": neither is a prefix"
            + " of the other (they differ at element " + (mismatch(list, l) + 1) + "), so " + key + " had no single"
            + " order of appends", List.of(h.id[h.longestReader[k]], h.id[t]));
        push(READ_BAD, k, 0, 0);
        return;
      }
      push(mine.isEmpty() ? READ : READ_OWN, k, list.length, list.length == 0 ? 0 : list[list.length - 1]);
    }

    private void readRegister(int t, int k, String key, ByteString v, List<Object> mine, List<Object> all) {
      int id = h.valueId(v);
      boolean internal = mine.isEmpty() ? v != null && all.contains(v) : !v0(mine).equals(v);
      if (internal) {
        h.report(INTERNAL, h.describe(t) + " read " + key + "=" + h.showValue(id) + (mine.isEmpty()
            ? " before writing that value itself: a transaction cannot read its own later write"
            : " after writing " + key + "=" + h.showValue(h.valueId(v0(mine))) + " itself: it must read its own write"),
            List.of(h.id[t]));
        push(READ_BAD, k, 0, 0);
        return;
      }
      push(mine.isEmpty() ? READ : READ_OWN, k, id, 0);
    }

    private static ByteString v0(List<Object> mine) {
      return (ByteString) mine.get(mine.size() - 1);
    }

    private void push(byte type, int k, long val, long aux) {
      int i = h.mops++;
      if (i == h.mopType.length) {
        int c = i * 2;
        h.mopType = Arrays.copyOf(h.mopType, c);
        h.mopKey = Arrays.copyOf(h.mopKey, c);
        h.mopVal = Arrays.copyOf(h.mopVal, c);
        h.mopAux = Arrays.copyOf(h.mopAux, c);
      }
      h.mopType[i] = type;
      h.mopKey[i] = k;
      h.mopVal[i] = val;
      h.mopAux[i] = aux;
    }

    private String text(int t) {
      List<String> parts = new ArrayList<>();
      for (Object[] m : pending) {
        byte type = (byte) m[0];
        Object v = m[2];
        String shown = v instanceof long[] l ? show(l, l.length)
            : v instanceof ByteString b ? "\"" + b.toStringUtf8() + "\"" : String.valueOf(v);
        parts.add((type == APPEND ? "append " : type == WRITE ? "w " : "r ") + m[1] + " " + shown);
      }
      byte o = h.outcome[t];
      return "#" + h.id[t] + " s" + h.session[t] + " " + parts + (o == OK ? "" : o == INFO ? " INFO" : " FAIL")
          + " [" + h.invoke[t] + ".." + (h.complete[t] == Long.MAX_VALUE ? "?" : h.complete[t]) + "µs]";
    }
  }

  static boolean isPrefix(long[] a, long[] b) {
    return a.length <= b.length && Arrays.equals(a, 0, a.length, b, 0, a.length);
  }

  private static int mismatch(long[] a, long[] b) {
    int i = Arrays.mismatch(a, b);
    return i < 0 ? Math.min(a.length, b.length) : i;
  }
}
