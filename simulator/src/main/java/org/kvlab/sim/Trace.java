package org.kvlab.sim;

import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What happened on the simulated network: every message (sender, receiver, type, send and delivery
 * times), crashes and client operations. Renders a text Lamport diagram centred on a violation's
 * operations, one column per process involved, for violation reports.
 */
public final class Trace {
  private final boolean enabled;
  private final List<Entry> entries = new ArrayList<>();

  /** One trace line. {@code deliverMicros} is -1 while in flight, -2 if dropped. */
  public static final class Entry {
    final long sendMicros;
    long deliverMicros = -1;
    final String from;
    final String to;
    final String label;
    final long opId;
    String dropReason;

    Entry(long sendMicros, String from, String to, String label, long opId) {
      this.sendMicros = sendMicros;
      this.from = from;
      this.to = to;
      this.label = label;
      this.opId = opId;
    }

    /** When it was sent (a message) or happened (an operation's invocation or completion, a crash, a restart). */
    public long sendMicros() {
      return sendMicros;
    }

    /** When it was delivered: -1 if never (still in flight at the end), -2 if dropped; for a note, its time. */
    public long deliverMicros() {
      return deliverMicros;
    }

    /** The sender (a message), or the process it happened in (a note or an operation). */
    public String from() {
      return from;
    }

    /** The receiver of a message; null for a note or an operation. */
    public String to() {
      return to;
    }

    /** The message type, or the note ({@code CRASH}) or the operation ({@code invoke get(k1)}). */
    public String label() {
      return label;
    }

    /** The history id of the operation (an invocation or completion line), or -1. */
    public long opId() {
      return opId;
    }

    /** Why a dropped message was lost (and when), or null. */
    public String dropReason() {
      return dropReason;
    }

    /** A message (sender and receiver), not a note or an operation. */
    public boolean isMessage() {
      return to != null;
    }
  }

  /**
   * One row of a diagram: the send or the receipt of message {@code entry}, or a note or an operation in its
   * process's column.
   *
   * @param micros the row's time
   * @param entry index into {@link #entries()}
   * @param receive the receipt of a message (else its send, or a note/operation)
   * @param focus the row belongs to the operations the diagram is centred on (their own lines, requests and replies)
   * @param process the column the row is in
   * @param text what the text diagram prints in that column
   */
  public record Row(long micros, int entry, boolean receive, boolean focus, String process, String text) {}

  /**
   * What a diagram shows: its columns (sessions first, then servers) and its rows in time order;
   * {@code hiddenBefore.get(i)} rows were left out just before row {@code i}, {@code hiddenAtEnd} after the last.
   */
  public record Layout(List<String> columns, List<Row> rows, List<Integer> hiddenBefore, int hiddenAtEnd) {
    public Layout {
      columns = List.copyOf(columns);
      rows = List.copyOf(rows);
      hiddenBefore = List.copyOf(hiddenBefore);
    }
  }

  /** Every line of the trace, in the order it was recorded (read-only). */
  public List<Entry> entries() {
    return java.util.Collections.unmodifiableList(entries);
  }

  Trace(boolean enabled) {
    this.enabled = enabled;
  }

  public boolean enabled() {
    return enabled;
  }

  public int size() {
    return entries.size();
  }

  long send(long now, String from, String to, Message m) {
    if (!enabled) {
      return -1;
    }
    entries.add(new Entry(now, from, to, m.getClass().getSimpleName(), -1));
    return entries.size() - 1;
  }

  void deliver(long id, long now) {
    if (id >= 0) {
      entries.get((int) id).deliverMicros = now;
    }
  }

  void drop(long id, long now, String reason) {
    if (id >= 0) {
      Entry e = entries.get((int) id);
      e.deliverMicros = -2;
      e.dropReason = reason + " at " + Fault.ms(now);
    }
  }

  void note(long now, String process, String what) {
    if (enabled) {
      Entry e = new Entry(now, process, null, what, -1);
      e.deliverMicros = now;
      entries.add(e);
    }
  }

  void op(long now, String session, String what, long opId) {
    if (enabled) {
      Entry e = new Entry(now, session, null, what, opId);
      e.deliverMicros = now;
      entries.add(e);
    }
  }

  /** A hash of the whole trace, for determinism tests. */
  public long fingerprint() {
    long h = 1125899906842597L;
    for (Entry e : entries) {
      h = 31 * h + e.sendMicros;
      h = 31 * h + e.deliverMicros;
      h = 31 * h + e.from.hashCode();
      h = 31 * h + (e.to == null ? 0 : e.to.hashCode());
      h = 31 * h + e.label.hashCode();
    }
    return h;
  }

  /**
   * A text Lamport diagram centred on the operations {@code ops} (a violation's): columns for their
   * sessions and for the servers those sessions called while the operations ran, time flowing down,
   * from the first invocation to the last completion. When that holds more than {@code maxRows} rows,
   * the rows of the operations themselves (invocation, completion, their requests and replies) are
   * always shown, the rest of the budget goes to the rows nearest to them, and each gap says how many
   * rows it hides. Server columns whose clock is skewed ({@code faults}) carry a "clock" line under
   * their name, so the diagram shows what the protocol's timestamps were up against.
   */
  public String diagram(List<org.kvlab.history.Operation> ops, List<Fault> faults, int maxRows) {
    if (!enabled) {
      return "(tracing was off; rerun with tracing on to see messages)\n";
    }
    if (ops.isEmpty()) {
      return "";
    }
    Layout layout = layout(ops, maxRows);
    List<String> columns = layout.columns();
    int width = 28;
    StringBuilder out = new StringBuilder();
    out.append(String.format("%10s", "t (ms)"));
    for (String c : columns) {
      out.append(" | ").append(pad(c, width));
    }
    out.append('\n');
    StringBuilder clocks = new StringBuilder(String.format("%10s", "clock"));
    boolean skewed = false;
    for (String c : columns) {
      String note = "";
      for (Fault f : faults) {
        if (f instanceof Fault.Skew k && k.node().toString().equals(c)) {
          note = String.format("%+.1fms %+.0fppm", k.skewMicros() / 1000.0, k.driftPpm());
          skewed = true;
        }
      }
      clocks.append(" | ").append(pad(note, width));
    }
    if (skewed) {
      out.append(clocks).append('\n');
    }
    for (int r = 0; r < layout.rows().size(); r++) {
      int hidden = layout.hiddenBefore().get(r);
      if (hidden > 0) {
        out.append(String.format("%10s   (%d rows not shown)%n", "...", hidden));
      }
      Row row = layout.rows().get(r);
      Entry e = entries.get(row.entry());
      out.append(String.format("%10.3f", row.micros() / 1000.0));
      for (String c : columns) {
        out.append(" | ").append(pad(c.equals(row.process()) ? row.text() : "", width));
      }
      out.append(row.focus() && e.to == null && e.opId >= 0 ? "  <" : "").append('\n');
    }
    if (layout.hiddenAtEnd() > 0) {
      out.append(String.format("%10s   (%d rows not shown)%n", "...", layout.hiddenAtEnd()));
    }
    return out.toString();
  }

  /**
   * The layout of {@link #diagram}: the columns and rows of a diagram centred on {@code ops} (their sessions and
   * the servers those called while they ran, from the first invocation to the last completion), at most
   * {@code maxRows} rows, chosen as the text diagram chooses them. Graphical views draw this.
   */
  public Layout layout(List<org.kvlab.history.Operation> ops, int maxRows) {
    if (ops.isEmpty()) {
      return new Layout(List.of(), List.of(), List.of(), 0);
    }
    java.util.Map<String, List<long[]>> windows = new java.util.LinkedHashMap<>(); // session -> [invoke, complete]
    java.util.Set<Long> opIds = new java.util.HashSet<>();
    long from = Long.MAX_VALUE;
    long to = Long.MIN_VALUE;
    for (org.kvlab.history.Operation op : ops) {
      windows.computeIfAbsent(sessionName(op), k -> new ArrayList<>())
          .add(new long[] {op.invokeMicros(), op.completeMicros()});
      opIds.add(op.id());
      from = Math.min(from, op.invokeMicros());
      to = Math.max(to, op.completeMicros());
    }
    java.util.TreeSet<String> servers = servers(windows);
    List<String> columns = new ArrayList<>(windows.keySet());
    columns.addAll(servers);
    return layout(columns, from, to, windows, opIds, maxRows);
  }

  /**
   * Every row of the trace in time order, one column per process: the sessions (by number), then the servers;
   * rows of {@code focusOps} (their own lines, their requests and replies) are marked {@link Row#focus()}.
   */
  public Layout layoutAll(List<org.kvlab.history.Operation> focusOps) {
    java.util.Map<String, List<long[]>> windows = new java.util.LinkedHashMap<>();
    java.util.Set<Long> opIds = new java.util.HashSet<>();
    for (org.kvlab.history.Operation op : focusOps) {
      windows.computeIfAbsent(sessionName(op), k -> new ArrayList<>())
          .add(new long[] {op.invokeMicros(), op.completeMicros()});
      opIds.add(op.id());
    }
    java.util.TreeSet<String> sessions = new java.util.TreeSet<>(java.util.Comparator
        .comparingInt((String p) -> Integer.parseInt(p.substring(1, p.indexOf('@')))).thenComparing(p -> p));
    java.util.TreeSet<String> servers = new java.util.TreeSet<>();
    for (Entry e : entries) {
      for (String p : e.to == null ? new String[] {e.from} : new String[] {e.from, e.to}) {
        (isSession(p) ? sessions : servers).add(p);
      }
    }
    List<String> columns = new ArrayList<>(sessions);
    columns.addAll(servers);
    return layout(columns, Long.MIN_VALUE, Long.MAX_VALUE, windows, opIds, Integer.MAX_VALUE);
  }

  private static boolean isSession(String process) {
    return process.startsWith("s") && process.contains("@dc");
  }

  private Layout layout(List<String> columns, long from, long to, java.util.Map<String, List<long[]>> windows,
      java.util.Set<Long> opIds, int maxRows) {
    Set<String> cols = new LinkedHashSet<>(columns);
    List<long[]> rows = new ArrayList<>(); // time, entry index, kind (0 send/op/note, 1 receive)
    List<Boolean> focus = new ArrayList<>();
    for (int i = 0; i < entries.size(); i++) {
      Entry e = entries.get(i);
      boolean fromIn = cols.contains(e.from);
      boolean toIn = e.to != null && cols.contains(e.to);
      boolean ofOp = e.to == null ? e.opId >= 0 && opIds.contains(e.opId)
          : inOp(windows, e.from, e.sendMicros) || inOp(windows, e.to, e.sendMicros);
      if (e.sendMicros >= from && e.sendMicros <= to && fromIn && (e.to == null || toIn)) {
        rows.add(new long[] {e.sendMicros, i, 0});
      }
      if (e.to != null && e.deliverMicros >= from && e.deliverMicros <= to && toIn && fromIn) {
        rows.add(new long[] {e.deliverMicros, i, 1});
      }
      while (focus.size() < rows.size()) {
        focus.add(ofOp);
      }
    }
    Integer[] order = new Integer[rows.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    java.util.Arrays.sort(order, (a, b) -> rows.get(a)[0] != rows.get(b)[0] ? Long.compare(rows.get(a)[0], rows.get(b)[0])
        : rows.get(a)[1] != rows.get(b)[1] ? Long.compare(rows.get(a)[1], rows.get(b)[1])
        : Long.compare(rows.get(a)[2], rows.get(b)[2]));
    List<long[]> sorted = new ArrayList<>();
    List<Boolean> sortedFocus = new ArrayList<>();
    for (int i : order) {
      sorted.add(rows.get(i));
      sortedFocus.add(focus.get(i));
    }
    boolean[] shown = choose(sorted, sortedFocus, maxRows);
    List<Row> out = new ArrayList<>();
    List<Integer> hiddenBefore = new ArrayList<>();
    int hidden = 0;
    for (int r = 0; r < sorted.size(); r++) {
      if (!shown[r]) {
        hidden++;
        continue;
      }
      long[] row = sorted.get(r);
      Entry e = entries.get((int) row[1]);
      out.add(new Row(row[0], (int) row[1], row[2] == 1, sortedFocus.get(r), row[2] == 0 ? e.from : e.to,
          text(e, row[2])));
      hiddenBefore.add(hidden);
      hidden = 0;
    }
    return new Layout(columns, out, hiddenBefore, hidden);
  }

  /** The servers involved in {@code ops}: those their sessions sent requests to (or got replies from) while they ran. */
  public java.util.SortedSet<String> serversOf(List<org.kvlab.history.Operation> ops) {
    java.util.Map<String, List<long[]>> windows = new java.util.LinkedHashMap<>();
    for (org.kvlab.history.Operation op : ops) {
      windows.computeIfAbsent(sessionName(op), k -> new ArrayList<>())
          .add(new long[] {op.invokeMicros(), op.completeMicros()});
    }
    return servers(windows);
  }

  private java.util.TreeSet<String> servers(java.util.Map<String, List<long[]>> windows) {
    java.util.TreeSet<String> servers = new java.util.TreeSet<>();
    for (Entry e : entries) {
      if (e.to != null && (inOp(windows, e.from, e.sendMicros) || inOp(windows, e.to, e.sendMicros))) {
        servers.add(windows.containsKey(e.from) ? e.to : e.from);
      }
    }
    servers.removeAll(windows.keySet());
    return servers;
  }

  /** The rows to show: every focus row (operations first), then those nearest to them, up to {@code maxRows}. */
  private boolean[] choose(List<long[]> rows, List<Boolean> focus, int maxRows) {
    int n = rows.size();
    boolean[] shown = new boolean[n];
    if (n <= maxRows) {
      java.util.Arrays.fill(shown, true);
      return shown;
    }
    int budget = Math.max(1, maxRows);
    List<Integer> anchors = new ArrayList<>();
    for (int pass = 0; pass < 2; pass++) { // the operations' own rows, then their requests and replies
      for (int i = 0; i < n && budget > 0; i++) {
        Entry e = entries.get((int) rows.get(i)[1]);
        boolean opRow = e.to == null;
        if (focus.get(i) && !shown[i] && (pass == 0) == opRow) {
          shown[i] = true;
          anchors.add(i);
          budget--;
        }
      }
    }
    for (int d = 1; budget > 0 && d < n; d++) {
      for (int a : anchors) {
        for (int i : new int[] {a - d, a + d}) {
          if (budget > 0 && i >= 0 && i < n && !shown[i]) {
            shown[i] = true;
            budget--;
          }
        }
      }
    }
    return shown;
  }

  private static boolean inOp(java.util.Map<String, List<long[]>> windows, String process, long t) {
    List<long[]> w = process == null ? null : windows.get(process);
    if (w != null) {
      for (long[] x : w) {
        if (x[0] <= t && t <= x[1]) {
          return true;
        }
      }
    }
    return false;
  }

  private static String text(Entry e, long kind) {
    if (e.to == null) {
      return (e.opId >= 0 ? "" : "** ") + e.label;
    }
    return kind == 0 ? "send " + e.label + " → " + e.to + (e.deliverMicros == -2 ? " (LOST: " + e.dropReason + ")" : "")
        : "recv " + e.label + " ← " + e.from;
  }

  /** The trace's name of an operation's session, e.g. {@code s3@dc1}. */
  static String sessionName(org.kvlab.history.Operation op) {
    return "s" + op.session() + "@dc" + op.dc();
  }

  private static String pad(String s, int width) {
    if (s.length() > width) {
      return s.substring(0, width - 1) + "…";
    }
    return s + " ".repeat(width - s.length());
  }
}
