package org.kvlab.sim;

import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What happened on the simulated network: every message (sender, receiver, type, send and delivery
 * times), crashes and client operations. Renders a text Lamport diagram of a time window, one column
 * per process, for violation reports.
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
   * A text Lamport diagram of everything the given processes did between {@code fromMicros} and
   * {@code toMicros}: one column per process, time flowing down; a message shows as "send X → p" in its
   * sender's column at its send time and "recv X ← p" in its receiver's column at its delivery time.
   */
  public String diagram(Collection<String> processes, long fromMicros, long toMicros, int maxRows) {
    if (!enabled) {
      return "(tracing was off; rerun with tracing on to see messages)\n";
    }
    Set<String> cols = new LinkedHashSet<>(processes);
    // Include the servers the processes talked to in the window.
    for (Entry e : entries) {
      if (e.to != null && e.sendMicros >= fromMicros && e.sendMicros <= toMicros && cols.contains(e.from)) {
        cols.add(e.to);
      }
    }
    List<String> columns = new ArrayList<>(cols);
    int width = 28;
    List<long[]> rows = new ArrayList<>(); // time, entry index, kind (0 send/op/note, 1 receive)
    for (int i = 0; i < entries.size(); i++) {
      Entry e = entries.get(i);
      boolean fromIn = cols.contains(e.from);
      boolean toIn = e.to != null && cols.contains(e.to);
      if (e.sendMicros >= fromMicros && e.sendMicros <= toMicros && fromIn && (e.to == null || toIn)) {
        rows.add(new long[] {e.sendMicros, i, 0});
      }
      if (e.to != null && e.deliverMicros >= fromMicros && e.deliverMicros <= toMicros && toIn && fromIn) {
        rows.add(new long[] {e.deliverMicros, i, 1});
      }
    }
    rows.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    StringBuilder out = new StringBuilder();
    out.append(String.format("%10s", "t (ms)"));
    for (String c : columns) {
      out.append(" | ").append(pad(c, width));
    }
    out.append('\n');
    if (rows.size() > maxRows) {
      // The end of the window holds the violating operation: show the rows leading up to it.
      out.append(String.format("... %d earlier rows%n", rows.size() - maxRows));
      rows = rows.subList(rows.size() - maxRows, rows.size());
    }
    for (long[] r : rows) {
      Entry e = entries.get((int) r[1]);
      String col = r[2] == 0 ? e.from : e.to;
      String text;
      if (e.to == null) {
        text = (e.opId >= 0 ? "" : "** ") + e.label;
      } else if (r[2] == 0) {
        text = "send " + e.label + " → " + e.to + (e.deliverMicros == -2 ? " (LOST: " + e.dropReason + ")" : "");
      } else {
        text = "recv " + e.label + " ← " + e.from;
      }
      out.append(String.format("%10.3f", r[0] / 1000.0));
      for (String c : columns) {
        out.append(" | ").append(pad(c.equals(col) ? text : "", width));
      }
      out.append('\n');
    }
    return out.toString();
  }

  private static String pad(String s, int width) {
    if (s.length() > width) {
      return s.substring(0, width - 1) + "…";
    }
    return s + " ".repeat(width - s.length());
  }
}
