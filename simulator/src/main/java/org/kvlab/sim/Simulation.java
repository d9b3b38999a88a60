package org.kvlab.sim;

import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Invariants;
import org.kvlab.api.Invariants.InvariantViolation;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Metrics;
import org.kvlab.api.NodeId;
import org.kvlab.api.OperationException;
import org.kvlab.api.Protocol;
import org.kvlab.api.Request;
import org.kvlab.api.Topology;
import org.kvlab.history.History;

/**
 * A deterministic simulation of one cluster: the protocol's unchanged server and client classes on one
 * thread, with virtual time (microseconds) and one seeded random source. Same spec, same protocol, same
 * seed ⇒ the same run, bit for bit.
 *
 * <p>Network: per-datacenter-pair latency with jitter; each server-to-server link is FIFO and reliable
 * (as the real channels are): messages sent into a partition wait and flow after it heals, messages to a
 * crashed server are delivered after it restarts; a crashed server's undelivered messages are lost
 * under durability {@code none}. A client's request and its reply cross the same network: latency of
 * the datacenter pair, partitions between the client's and the server's datacenters (they wait for the
 * heal, as on a server link), a slow server's extra delay on its replies to clients of other
 * datacenters (not to its own datacenter's clients: the slow fault models slow replication, as in the
 * seed's "slow partition"). A request the client has no
 * answer to within {@link SimSpec#CLIENT_TIMEOUT_MICROS} (a crashed server, a partition, a server that
 * holds it) times out with its outcome unknown (INFO); an operation still without an outcome when the
 * run ends is recorded as INFO too. Outcomes follow {@link History#outcomeOf}: the protocol says
 * {@code fail} or {@code unknown}, never the words of its reason.
 */
public final class Simulation {
  static final long EPOCH_MILLIS = 1_700_000_000_000L;

  final SimSpec spec;
  final Protocol protocol;
  final MessageTypes types;
  private final long seed;
  final Random random;
  private final PriorityQueue<Event> queue = new PriorityQueue<>();
  /**
   * The clients' timeouts, kept apart from {@link #queue}: each is due a fixed time after it is scheduled, so they
   * come due in the order they were added and a FIFO holds them in (time, seq) order. Every request has one, so in
   * the queue they doubled its size; the loop takes whichever of the two heads comes first, the same order as one
   * queue would give.
   */
  private final java.util.ArrayDeque<Event> timeouts = new java.util.ArrayDeque<>();
  final Map<NodeId, SimNode> nodes = new TreeMap<>();
  private final List<Fault> faults = new ArrayList<>();
  /** The server links and the client-server paths, with their faults (set once the faults are drawn). */
  SimNetwork network;
  final History.Recorder history = new History.Recorder();
  final Trace trace;
  private final List<String> failures = new ArrayList<>();
  private final List<SimResult.StartFailure> startFailures = new ArrayList<>();
  final TreeSet<String> writtenKeys = new TreeSet<>();
  /** The same keys, for the membership test of every PUT (a hash lookup instead of a walk down the sorted set). */
  final java.util.HashSet<String> writtenKeySet = new java.util.HashSet<>();
  private List<List<String>> keysByPartition;
  private org.kvlab.api.TxnPartners partners;

  /** The workload's keys ({@code k0 ..}) grouped by the partition that holds them. */
  List<List<String>> keysByPartition() {
    if (keysByPartition == null) {
      keysByPartition = new ArrayList<>();
      for (int p = 0; p < spec.topology().partitions(); p++) {
        keysByPartition.add(new ArrayList<>());
      }
      for (int i = 0; i < spec.workload().keys(); i++) {
        keysByPartition.get(spec.topology().partitionOf("k" + i)).add("k" + i);
      }
    }
    return keysByPartition;
  }

  org.kvlab.api.TxnPartners partners(Workload.Txns t) {
    if (partners == null) {
      partners = new org.kvlab.api.TxnPartners(spec.topology().partitions(), t.partner(), t.zipfS());
    }
    return partners;
  }
  final List<SimSession> sessions = new ArrayList<>();
  /** The open-loop generators, one per datacenter (an open-loop workload only). */
  private final List<OpenLoop> openLoops = new ArrayList<>();
  long now;
  private long seq;
  long deliveries;
  private long events;
  long valueCounter;
  boolean stopped;
  boolean done;
  int readersPending;

  private final List<Script> scripts;

  public Simulation(SimSpec spec, Protocol protocol, long seed) {
    this(spec, protocol, seed, List.of());
  }

  /**
   * A run whose sessions follow {@code scripts} instead of the random workload (scenario tests). The
   * run lasts until every script has finished and the settle time has passed.
   */
  public Simulation(SimSpec spec, Protocol protocol, long seed, List<Script> scripts) {
    this.scripts = List.copyOf(scripts);
    this.spec = spec;
    this.protocol = protocol;
    this.types = protocol.messages();
    this.seed = seed;
    this.random = new SimRandom(seed);
    this.trace = new Trace(spec.trace());
    this.timeline = spec.timelineMicros() > 0 ? new Timeline.Recorder(spec.timelineMicros()) : null;
  }

  // ---------------------------------------------------------------------------------------------
  // State probe (step-by-step views)

  /**
   * What one server was at one moment of the run, for step-by-step views (the designer's Simulate tab).
   *
   * @param node the server, e.g. {@code 0_1}
   * @param micros the virtual time
   * @param up false while crashed
   * @param incarnation how many times it crashed so far
   * @param pendingRequests client requests it received and has not answered yet
   * @param heldMessages messages that arrived while it was down, waiting for its restart
   * @param store what its store holds: one line per key written in the run that its partition holds (newest
   *     version, number of versions), at most {@link #STORE_LINES_MAX}
   * @param protocol the protocol's own account of its state: its server's {@code toString()} if the server
   *     class overrides it (the hook for protocols that want their state shown), else null
   */
  public record NodeState(String node, long micros, boolean up, int incarnation, int pendingRequests,
      int heldMessages, List<String> store, String protocol) {}

  /** Most store lines in a {@link NodeState}. */
  public static final int STORE_LINES_MAX = 40;

  /** Sees a server's state after every event that ran its protocol code, and at its crashes and restarts. */
  @FunctionalInterface
  public interface StateProbe {
    void state(NodeState state);
  }

  StateProbe probe;

  /** Whether a server class overrides {@code toString()} (its state for {@link NodeState#protocol()}). */
  static final ClassValue<Boolean> OVERRIDES_TO_STRING = new ClassValue<>() {
    @Override
    protected Boolean computeValue(Class<?> type) {
      try {
        return type.getMethod("toString").getDeclaringClass() != Object.class;
      } catch (NoSuchMethodException e) {
        return false;
      }
    }
  };

  /**
   * Reports servers' states to {@code probe} while {@link #run} runs (on the simulating thread): after every
   * handler, timer or periodic task of a server, and at its crashes and restarts. Costs time; for views of one
   * run, not sweeps. The run itself is unchanged (same history, same trace). Returns this.
   */
  public Simulation observe(StateProbe probe) {
    this.probe = probe;
    return this;
  }

  // ---------------------------------------------------------------------------------------------
  // Event loop

  private static final class Event implements Comparable<Event> {
    final long time;
    final long seq;
    final Runnable action;

    Event(long time, long seq, Runnable action) {
      this.time = time;
      this.seq = seq;
      this.action = action;
    }

    @Override
    public int compareTo(Event o) {
      return time != o.time ? Long.compare(time, o.time) : Long.compare(seq, o.seq);
    }
  }

  /**
   * The hook of controlled scheduling ({@link ControlledRun}, {@code kvlab explore}): when set, messages, timers and
   * the scripted sessions' next operations are handed to it instead of the time-ordered queue, and it decides what
   * runs next. Null in an ordinary run, which is unchanged by it.
   */
  interface Control {
    /** A message (server to server, a client's request or a server's reply) on the FIFO link {@code from->to}. */
    void message(String from, String to, Message shown, Runnable deliver, java.util.function.BooleanSupplier ready);

    /** A timer of {@code owner}, due at {@code due} on the clocks' time; dead once {@code live} says false. */
    void timer(String owner, long due, Runnable fire, java.util.function.BooleanSupplier live);

    /** Scripted session {@code session} is ready to invoke its next operation. */
    void invoke(String session, Runnable next);

    /** The time the servers' and clients' clocks read (advances only when a timer fires). */
    long clock();
  }

  Control control;

  /** The time clocks and timers see: {@link #now}, except under {@link #control}, whose clock it is. */
  long clockNow() {
    return control == null ? now : control.clock();
  }

  void at(long time, Runnable action) {
    if (control != null) { // anything else that waits (a script's pause, a flush): a timer of the run
      control.timer("sim", control.clock() + Math.max(0, time - now), action, () -> true);
      return;
    }
    if (time < now) { // as Invariants.check, without boxing two longs for every event
      throw new Invariants.InvariantViolation(String.format("event scheduled in the past: %s < %s", time, now));
    }
    queue.add(new Event(time, seq++, action));
  }

  public long now() {
    return now;
  }

  /** The first event of {@link #queue} and {@link #timeouts} by (time, seq), removed; one of them is not empty. */
  private Event nextEvent() {
    Event t = timeouts.peekFirst();
    if (t == null) {
      return queue.poll();
    }
    Event q = queue.peek();
    return q == null || t.compareTo(q) < 0 ? timeouts.pollFirst() : queue.poll();
  }

  /** Runs the whole simulation: workload, faults, settling, final reads; returns what happened. */
  public SimResult run() {
    long wallStart = System.nanoTime();
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    long cpuStart = mx.getCurrentThreadCpuTime();
    int sessionId = setUp();
    long end = spec.durationMicros() + spec.settleMicros();
    final int firstReader = sessionId;
    at(end, () -> finalReads(firstReader));
    finalReadsLimit = end + FINAL_READS_MICROS; // until the final reads start and know how many keys they read
    while ((!queue.isEmpty() || !timeouts.isEmpty()) && !stopped && !done) {
      Event e = nextEvent();
      if (e.time > finalReadsLimit) {
        failures.add("final reads did not finish within " + Fault.ms(finalReadsLimit - end) + " of virtual time after"
            + " the run (a minute, plus a second per key read)");
        break;
      }
      now = e.time;
      events++;
      e.action.run();
    }
    for (SimSession s : sessions) {
      s.recordUnanswered(); // in the history as INFO: the run ended before the client knew the outcome
    }
    if (!stopped && failures.isEmpty()) {
      for (SimNode n : nodes.values()) {
        for (Request<Message> r : n.pending.keySet()) {
          failures.add("server " + n.id + " never answered a " + r.body().getClass().getSimpleName()
              + " (a request must be answered exactly once, now or later)");
          break;
        }
      }
    }
    for (OpenLoop o : openLoops) {
      counters.merge(OpenLoop.ISSUED, o.issued, Long::sum);
      counters.merge(OpenLoop.SKIPPED, o.skipped, Long::sum);
    }
    History built = history.build();
    return new SimResult(seed, built, List.copyOf(faults), List.copyOf(failures), trace, deliveries, events,
        now, System.nanoTime() - wallStart, mx.getCurrentThreadCpuTime() - cpuStart, new TreeMap<>(counters),
        List.copyOf(startFailures), timeline == null ? null : Timeline.of(spec.timelineMicros(), end, built,
            timeline));
  }

  /**
   * The run's beginning: servers, faults, sessions, their first events; returns the next free session id. An ordinary
   * run then takes events in time order ({@link #run}); a controlled one lets its {@link Control} choose.
   */
  int setUp() {
    Topology topology = spec.topology();
    for (NodeId id : topology.allNodes()) {
      nodes.put(id, new SimNode(this, id));
    }
    faults.addAll(FaultPlan.draw(spec, random));
    faults.addAll(spec.faults());
    network = new SimNetwork(this, faults);
    for (Fault f : faults) {
      if (f instanceof Fault.Skew s) {
        nodes.get(s.node()).skew(s);
      }
    }
    for (SimNode node : nodes.values()) {
      node.start();
      if (node.startFailure != null) {
        startFailures.add(new SimResult.StartFailure(node.id.toString(), node.startFailure));
      }
    }
    for (Fault f : faults) {
      if (f instanceof Fault.Crash c) {
        at(c.startMicros(), () -> nodes.get(c.node()).crash());
        at(c.endMicros(), () -> nodes.get(c.node()).restart());
      }
    }
    Workload.KeyChooser keys = new Workload.KeyChooser(spec.workload());
    int sessionId = 0;
    if (scripts.isEmpty() && spec.workload().openRatePerDc() > 0) {
      for (int dc = 0; dc < topology.datacenters(); dc++) {
        List<SimSession> pool = new ArrayList<>();
        for (int s = 0; s < spec.workload().sessionsPerDc(); s++) {
          pool.add(new SimSession(this, sessionId++, dc, keys));
        }
        openLoops.add(new OpenLoop(this, pool, spec.workload().openRatePerDc()));
      }
    } else if (scripts.isEmpty()) {
      for (int dc = 0; dc < topology.datacenters(); dc++) {
        for (int s = 0; s < spec.workload().sessionsPerDc(); s++) {
          SimSession session = new SimSession(this, sessionId++, dc, keys);
          at(random.nextInt(1000), session::next);
        }
      }
    } else {
      scriptsRunning = scripts.size();
      for (Script script : scripts) {
        SimSession session = new SimSession(this, sessionId++, script.dc(), keys);
        if (control != null) {
          control.invoke(session.name(), () -> session.runScript(script.steps(), 0));
        } else {
          at(script.startMicros(), () -> session.runScript(script.steps(), 0));
        }
      }
    }
    return sessionId;
  }

  /** The servers' metrics, summed over servers (see {@link SimResult#counters()}). */
  private final Map<String, Long> counters = new TreeMap<>();
  /** The counters' growth per bucket of the time series; null without one (the default: no cost per count). */
  private final Timeline.Recorder timeline;

  /** Server {@code node}'s metrics: summed over servers into the run's counters, and per server in the time series. */
  Metrics metrics(org.kvlab.api.NodeId node) {
    String name = node.toString();
    return new Metrics() {
      @Override
      public void count(String counter) {
        counters.merge(counter, 1L, Long::sum);
        if (timeline != null) {
          timeline.add(now, name, counter, 1);
        }
      }

      @Override
      public void record(String histogram, long value) {
        counters.merge(histogram + ".sum", value, Long::sum);
        counters.merge(histogram + ".count", 1L, Long::sum);
        if (timeline != null) {
          timeline.add(now, name, histogram + ".sum", value);
          timeline.add(now, name, histogram + ".count", 1);
        }
      }
    };
  }

  /** The generator of the workload family the sessions draw from (one per run: it may keep state). */
  private org.kvlab.workload.TxnFamily.Generator familyGenerator;

  org.kvlab.workload.TxnFamily.Generator familyGenerator(org.kvlab.workload.TxnFamily family) {
    if (familyGenerator == null) {
      familyGenerator = family.generator();
    }
    return familyGenerator;
  }

  int scriptsRunning;
  /** The final reads get a minute of virtual time, plus a second per key (one sequential read each, per datacenter). */
  static final long FINAL_READS_MICROS = 60_000_000;
  static final long FINAL_READ_PER_KEY_MICROS = 1_000_000;
  /** When the run gives up on the final reads. */
  private long finalReadsLimit;

  private void finalReads(int firstSessionId) {
    if (scriptsRunning > 0) {
      at(now + 100_000, () -> finalReads(firstSessionId)); // scripts still running: wait for them
      return;
    }
    if (!spec.finalReads()) {
      done = true; // the run ends here; in-flight operations are recorded as unanswered
      return;
    }
    // One reader per datacenter reads every key ever written, sequentially: the convergence check's input.
    finalReadsLimit = now + FINAL_READS_MICROS + FINAL_READ_PER_KEY_MICROS * writtenKeys.size();
    int id = firstSessionId;
    readersPending = spec.topology().datacenters();
    for (int dc = 0; dc < spec.topology().datacenters(); dc++) {
      SimSession reader = new SimSession(this, id++, dc, null);
      reader.readAll(new ArrayList<>(writtenKeys), 0);
    }
  }

  /**
   * The client's own timeout: no answer by then, the outcome is unknown (it may still take effect). The pending
   * timeout holds the reply only until it completes (a holder the reply clears), not the request: a timeout waits
   * 2 s, and holding every answered reply that long kept seconds of large replies (Chirper's timelines) alive.
   */
  void timeOut(CompletableFuture<Message> reply, NodeId server, Message request, long deadline) {
    java.util.concurrent.atomic.AtomicReference<CompletableFuture<Message>> pending =
        new java.util.concurrent.atomic.AtomicReference<>(reply);
    reply.whenComplete((r, e) -> pending.set(null));
    Class<?> type = request.getClass();
    Runnable action = () -> {
      CompletableFuture<Message> open = pending.get();
      if (open == null || open.isDone()) {
        return; // answered in time: completing it would do nothing, so the exception is not even built
      }
      open.completeExceptionally(OperationException.unknown(type.getSimpleName() + " to " + server
          + ": no answer within " + Fault.ms(SimSpec.CLIENT_TIMEOUT_MICROS)
          + " (client timeout; it may still take effect)"));
    };
    if (control != null) {
      control.timer("client", control.clock() + (deadline - now), action, () -> pending.get() != null);
      return;
    }
    long time = Math.max(now, deadline);
    Event last = timeouts.peekLast();
    if (last != null && time < last.time) {
      at(time, action); // not in FIFO order (a shorter deadline than an earlier one): the general queue
    } else {
      timeouts.addLast(new Event(time, seq++, action));
    }
  }

  /** The run's failures so far (read-only view, for {@link ControlledRun}). */
  List<String> failuresView() {
    return java.util.Collections.unmodifiableList(failures);
  }

  void fail(String what) {
    failures.add(String.format("t=%s %s", Fault.ms(now), what));
    stopped = true;
  }

  /** For tests that drive a simulation by hand. */
  Map<NodeId, SimNode> nodes() {
    return new HashMap<>(nodes);
  }

  static Optional<String> none() {
    return Optional.empty();
  }
}
