package org.kvlab.designer.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.kvlab.check.Checkers;
import org.kvlab.check.Violation;
import org.kvlab.history.Operation;
import org.kvlab.sim.Fault;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.Simulation;
import org.kvlab.sim.Trace;

/**
 * One traced, checked, observed run of one seed, as the Simulate tab shows it: the report (history, faults,
 * checkers' verdicts), the message trace laid out as a Lamport diagram (the whole run, or centred on a violation
 * as {@code kvlab sim} centres its text diagram), and the state of every process at any step. No JavaFX here.
 */
public final class SimRun {
  /** Rows of a diagram centred on a violation (the CLI prints 80; a scrolling view can hold more). */
  public static final int FOCUS_ROWS = 400;

  private final SimSettings settings;
  private final SeedReport report;
  private final Map<String, List<Simulation.NodeState>> states;
  private final List<Checkers.Reported> violations;

  private SimRun(SimSettings settings, SeedReport report, Map<String, List<Simulation.NodeState>> states) {
    this.settings = settings;
    this.report = report;
    this.states = states;
    this.violations = Checkers.distinct(report.checks());
  }

  /** Runs {@code seed} with tracing and a state probe, then checks it (on the calling thread: not the FX one). */
  public static SimRun run(SimSettings settings, org.kvlab.api.Protocol protocol, long seed) {
    Map<String, List<Simulation.NodeState>> states = new TreeMap<>();
    SeedReport r = SimRunner.run(settings.spec(), protocol, seed, settings.checkers(),
        s -> states.computeIfAbsent(s.node(), k -> new ArrayList<>()).add(s));
    return new SimRun(settings, r, states);
  }

  public SimSettings settings() {
    return settings;
  }

  public SeedReport report() {
    return report;
  }

  public long seed() {
    return report.seed();
  }

  /** Every distinct violation, with the checkers that found it. */
  public List<Checkers.Reported> violations() {
    return violations;
  }

  /** The operations a violation names, from the history. */
  public List<Operation> operations(Violation v) {
    List<Operation> ops = new ArrayList<>();
    for (long id : v.operations()) {
      ops.add(report.result().history().get(id));
    }
    return ops;
  }

  /**
   * The diagram to draw: centred on {@code focus} (its sessions, the servers they called, its time; the rows
   * {@code kvlab sim} would choose, with a larger budget) when {@code around} is set, else the whole run with
   * the violation's rows marked. {@code focus} null: the whole run, nothing marked.
   */
  public Trace.Layout layout(Violation focus, boolean around) {
    Trace trace = report.result().trace();
    if (focus == null) {
      return trace.layoutAll(List.of());
    }
    List<Operation> ops = operations(focus);
    return around && !ops.isEmpty() ? trace.layout(ops, FOCUS_ROWS) : trace.layoutAll(ops);
  }

  /** The faults injected in this run, one line each. */
  public List<String> faults() {
    return report.result().faults().stream().map(Fault::describe).toList();
  }

  /**
   * What each of {@code processes} was at {@code micros}: a server's liveness, clock, requests it holds,
   * messages in flight to it, its store and the protocol's own account (after its last event at or before that
   * time); a session's operation in progress and its last completed ones.
   */
  public String stateAt(long micros, List<String> processes) {
    StringBuilder out = new StringBuilder();
    List<Trace.Entry> entries = report.result().trace().entries();
    for (String p : processes) {
      out.append(p).append('\n');
      if (isSession(p)) {
        sessionState(out, p, micros, entries);
      } else {
        serverState(out, p, micros, entries);
      }
      out.append('\n');
    }
    return out.toString();
  }

  private void sessionState(StringBuilder out, String session, long micros, List<Trace.Entry> entries) {
    Map<Long, String> open = new TreeMap<>();
    List<String> done = new ArrayList<>();
    for (Trace.Entry e : entries) {
      if (e.isMessage() || e.opId() < 0 || !e.from().equals(session) || e.sendMicros() > micros) {
        continue;
      }
      if (e.label().startsWith("invoke ")) {
        open.put(e.opId(), String.format("#%d %s at %.3f ms", e.opId(), e.label().substring(7), e.sendMicros() / 1000.0));
      } else {
        open.remove(e.opId());
        done.add(String.format("%.3f ms %s", e.sendMicros() / 1000.0, e.label().replaceFirst("^complete ", "")));
      }
    }
    out.append("  in progress: ").append(open.isEmpty() ? "none" : String.join("; ", open.values())).append('\n');
    out.append("  last completed:").append(done.isEmpty() ? " none" : "").append('\n');
    for (String d : done.subList(Math.max(0, done.size() - 3), done.size())) {
      out.append("    ").append(d).append('\n');
    }
  }

  private void serverState(StringBuilder out, String server, long micros, List<Trace.Entry> entries) {
    Simulation.NodeState s = stateOf(server, micros);
    long skew = 0;
    double drift = 0;
    for (Fault f : report.result().faults()) {
      if (f instanceof Fault.Skew k && k.node().toString().equals(server)) {
        skew = k.skewMicros();
        drift = k.driftPpm();
      }
    }
    double clock = (micros * (1 + drift / 1e6) + skew) / 1000.0;
    out.append(String.format("  %s, clock reads %.3f ms (skew %+.1f ms, drift %+.0f ppm)%n",
        s == null || s.up() ? "up" : "DOWN (crashed)", clock, skew / 1000.0, drift));
    if (s != null) {
      out.append("  crashes so far: ").append(s.incarnation()).append(", client requests held: ")
          .append(s.pendingRequests()).append(s.heldMessages() > 0 ? ", messages waiting for its restart: "
              + s.heldMessages() : "").append('\n');
    }
    List<String> inFlight = new ArrayList<>();
    for (Trace.Entry e : entries) {
      if (e.isMessage() && server.equals(e.to()) && e.sendMicros() <= micros
          && (e.deliverMicros() == -1 || e.deliverMicros() > micros)) {
        inFlight.add(String.format("%s ← %s (sent %.3f ms)", e.label(), e.from(), e.sendMicros() / 1000.0));
      }
    }
    out.append("  messages in flight to it: ").append(inFlight.size()).append('\n');
    for (String m : inFlight.subList(0, Math.min(5, inFlight.size()))) {
      out.append("    ").append(m).append('\n');
    }
    if (inFlight.size() > 5) {
      out.append("    ... ").append(inFlight.size() - 5).append(" more\n");
    }
    if (s != null) {
      out.append("  store:").append(s.store().isEmpty() ? " empty" : "").append('\n');
      s.store().forEach(line -> out.append("    ").append(line).append('\n'));
      if (s.protocol() != null) {
        out.append("  protocol state: ").append(s.protocol()).append('\n');
      }
    }
  }

  /** The last state {@code server} reported at or before {@code micros}, or null if none yet. */
  public Simulation.NodeState stateOf(String server, long micros) {
    List<Simulation.NodeState> list = states.get(server);
    if (list == null) {
      return null;
    }
    int lo = 0;
    int hi = list.size() - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (list.get(mid).micros() <= micros) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found < 0 ? null : list.get(found);
  }

  static boolean isSession(String process) {
    return process.startsWith("s") && process.contains("@dc");
  }

  /** Operation ids named on the marked (red) rows of {@code layout}: the operations a violation's diagram highlights. */
  public java.util.SortedSet<Long> highlightedOperations(Trace.Layout layout) {
    java.util.TreeSet<Long> ids = new java.util.TreeSet<>();
    List<Trace.Entry> entries = report.result().trace().entries();
    for (Trace.Row row : layout.rows()) {
      Trace.Entry e = entries.get(row.entry());
      if (row.focus() && !e.isMessage() && e.opId() >= 0) {
        ids.add(e.opId());
      }
    }
    return ids;
  }

  static Map<String, Integer> index(List<String> columns) {
    Map<String, Integer> m = new HashMap<>();
    for (int i = 0; i < columns.size(); i++) {
      m.put(columns.get(i), i);
    }
    return m;
  }
}
