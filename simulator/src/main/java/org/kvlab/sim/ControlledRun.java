package org.kvlab.sim;

import com.google.protobuf.Message;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.kvlab.api.NodeId;
import org.kvlab.api.Protocol;
import org.kvlab.history.History;

/**
 * One run of a {@link Simulation} whose next event is chosen from outside ({@code kvlab explore}; issue 35): the same
 * protocol code, hosts, stores, sessions and trace as an ordinary run, but instead of taking events in time order the
 * run lists the events enabled in its current state ({@link #enabled()}) and takes the one named ({@link #take}).
 *
 * <p>The events, each named by a label that stays the same across replays:
 * <ul>
 *   <li>{@code deliver A->B}: the oldest message on the FIFO link from A to B (servers {@code 0_1}, sessions
 *       {@code s0@dc0}): server messages, a client's requests, a server's replies. Enabled unless B is a crashed
 *       server (its messages wait for the restart, as in an ordinary run).</li>
 *   <li>{@code fire O}: the earliest-due timer of owner O (a server, {@code client} for the clients' timeouts,
 *       {@code sim} for anything else that waits). Only the timers due first are enabled: timers fire in the order of
 *       their due times, and firing one moves the clocks' time to its due time; a timer due after the run's
 *       horizon never fires (the bound on time, as the depth is the bound on events).</li>
 *   <li>{@code invoke s0@dc0}: the scripted session invokes its next operation.</li>
 *   <li>{@code crash N}, {@code restart N}: a server crashes (at most {@code maxCrashes} times in the run) and
 *       restarts.</li>
 * </ul>
 *
 * <p>Time. The servers' and clients' clocks and the timers see a time that advances only when a timer fires (to its
 * due time); delivering a message or invoking takes no time on the clocks, so any delivery may come before or after
 * any timer (an asynchronous network: every delay is possible). The history and the trace count events instead: the
 * k-th event taken happens at k ms ({@link #STEP_MICROS}), so real-time order in the history and the diagram is the
 * order chosen.
 * Partitions need no event of their own: a message not yet chosen is a message delayed, for as long as a partition
 * would hold it.
 */
public final class ControlledRun {
  /** How far the history's and the trace's time moves per event taken: 1 ms, so a diagram's t column counts events. */
  public static final long STEP_MICROS = 1000;

  private final Simulation sim;
  private final int maxCrashes;
  private final long horizonMicros;
  private long clock;
  private int crashes;
  private long timerSeq;
  private final List<String> taken = new ArrayList<>();
  /** Per link, the messages in flight, oldest first; links in the order of their labels. */
  final TreeMap<String, ArrayDeque<InFlight>> links = new TreeMap<>();
  final List<PendingTimer> timers = new ArrayList<>();
  final TreeMap<String, Runnable> invokes = new TreeMap<>();

  record InFlight(Message shown, Runnable deliver, BooleanSupplier ready) {}

  record PendingTimer(String owner, long due, long seq, Runnable fire, BooleanSupplier live) {}

  /**
   * A run of {@code scripts} over {@code spec}'s topology and parameters; the spec's drawn faults, network delays and
   * workload are not used (the choices replace them). Timers due after {@code horizonMicros} of clock time are never
   * enabled. The servers start here.
   */
  public ControlledRun(SimSpec spec, Protocol protocol, long seed, List<Script> scripts, int maxCrashes,
      long horizonMicros) {
    if (scripts.isEmpty()) {
      throw new IllegalArgumentException("a controlled run needs at least one scripted session");
    }
    this.sim = new Simulation(spec.withFaultKinds(java.util.Set.of()).withFaults(List.of()), protocol, seed, scripts);
    this.maxCrashes = maxCrashes;
    this.horizonMicros = horizonMicros;
    sim.control = new Simulation.Control() { // the hook, kept off this class's public face
      @Override
      public void message(String from, String to, Message shown, Runnable deliver, BooleanSupplier ready) {
        links.computeIfAbsent(from + "->" + to, k -> new ArrayDeque<>()).add(new InFlight(shown, deliver, ready));
      }

      @Override
      public void timer(String owner, long due, Runnable fire, BooleanSupplier live) {
        timers.add(new PendingTimer(owner, due, timerSeq++, fire, live));
      }

      @Override
      public void invoke(String session, Runnable next) {
        invokes.put(session, next);
      }

      @Override
      public long clock() {
        return clock;
      }
    };
    sim.setUp();
  }

  // Choosing

  /** The events enabled now, by label, in a fixed order; empty once the run failed. */
  public List<String> enabled() {
    List<String> out = new ArrayList<>();
    if (sim.stopped) {
      return out;
    }
    for (Map.Entry<String, ArrayDeque<InFlight>> e : links.entrySet()) {
      InFlight head = e.getValue().peekFirst();
      if (head != null && head.ready().getAsBoolean()) {
        out.add("deliver " + e.getKey());
      }
    }
    for (String s : invokes.keySet()) {
      out.add("invoke " + s);
    }
    timers.removeIf(t -> !t.live().getAsBoolean());
    long first = timers.stream().mapToLong(PendingTimer::due).min().orElse(Long.MAX_VALUE);
    for (PendingTimer t : timers) {
      String label = "fire " + t.owner();
      if (t.due() == first && first <= horizonMicros && !out.contains(label)) {
        out.add(label);
      }
    }
    for (SimNode n : sim.nodes.values()) {
      if (n.down) {
        out.add("restart " + n.id);
      } else if (crashes < maxCrashes) {
        out.add("crash " + n.id);
      }
    }
    return out;
  }

  /** Takes the enabled event {@code label}; false (and nothing happens) if it is not enabled now. */
  public boolean take(String label) {
    int space = label.indexOf(' ');
    if (space < 0) {
      return false;
    }
    String what = label.substring(0, space);
    String arg = label.substring(space + 1);
    if (!isEnabled(what, arg)) {
      return false;
    }
    sim.now += STEP_MICROS;
    taken.add(label);
    switch (what) {
      case "deliver" -> {
        ArrayDeque<InFlight> link = links.get(arg);
        InFlight m = link.pollFirst();
        if (link.isEmpty()) {
          links.remove(arg);
        }
        m.deliver().run();
      }
      case "invoke" -> invokes.remove(arg).run();
      case "fire" -> {
        PendingTimer t = null;
        for (PendingTimer c : timers) {
          if (c.owner().equals(arg) && (t == null || c.due() < t.due())) {
            t = c;
          }
        }
        timers.remove(t);
        clock = Math.max(clock, t.due());
        t.fire().run();
      }
      case "crash" -> {
        crashes++;
        sim.nodes.get(NodeId.parse(arg)).crash();
      }
      case "restart" -> sim.nodes.get(NodeId.parse(arg)).restart();
      default -> throw new IllegalStateException("unknown event " + label);
    }
    return true;
  }

  /**
   * Whether the event {@code what arg} is in {@link #enabled()} now, decided for that one event (a replay asks this
   * at every step, so it does not build the whole list).
   */
  private boolean isEnabled(String what, String arg) {
    if (sim.stopped) {
      return false;
    }
    switch (what) {
      case "deliver" -> {
        ArrayDeque<InFlight> link = links.get(arg);
        InFlight head = link == null ? null : link.peekFirst();
        return head != null && head.ready().getAsBoolean();
      }
      case "invoke" -> {
        return invokes.containsKey(arg);
      }
      case "fire" -> {
        timers.removeIf(t -> !t.live().getAsBoolean());
        long first = Long.MAX_VALUE;
        boolean owns = false;
        for (PendingTimer t : timers) {
          first = Math.min(first, t.due());
        }
        for (PendingTimer t : timers) {
          owns |= t.due() == first && t.owner().equals(arg);
        }
        return owns && first <= horizonMicros;
      }
      case "crash", "restart" -> {
        SimNode n = null;
        for (SimNode c : sim.nodes.values()) {
          n = c.id.toString().equals(arg) ? c : n;
        }
        return n != null && (what.equals("restart") ? n.down : !n.down && crashes < maxCrashes);
      }
      default -> {
        return false;
      }
    }
  }

  /** The labels taken so far, in order. */
  public List<String> taken() {
    return List.copyOf(taken);
  }

  /** Every scripted session has finished (its operations completed): the history is complete. */
  public boolean complete() {
    return sim.scriptsRunning == 0;
  }

  /** The run failed: a protocol invariant, a handler that threw (see {@link #failures()}). */
  public boolean failed() {
    return sim.stopped;
  }

  public List<String> failures() {
    return sim.failuresView();
  }

  public History history() {
    return sim.history.build();
  }

  public Trace trace() {
    return sim.trace;
  }

  /** The clocks' time (µs since the run began). */
  public long clockMicros() {
    return clock;
  }

  /** This run as an ordinary result (for checkers and the diagram): history so far, failures, trace. */
  public SimResult result() {
    return new SimResult(0, history(), List.of(), List.copyOf(failures()), sim.trace, sim.deliveries, taken.size(),
        sim.now, 0, 0);
  }

  /** The state's fingerprint (see {@link StateFingerprint}). */
  public long fingerprint() {
    return StateFingerprint.of(this);
  }

  /** The fingerprint's parts by name (each server, store, client; links and timers; sessions), for diagnosis. */
  public Map<String, Long> fingerprintParts() {
    return StateFingerprint.parts(this);
  }

  Simulation simulation() {
    return sim;
  }
}
