package org.kvlab.sim;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import java.time.Duration;
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
import org.kvlab.api.Client;
import org.kvlab.api.ClientContext;
import org.kvlab.api.Clock;
import org.kvlab.api.Invariants;
import org.kvlab.api.Invariants.InvariantViolation;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Metrics;
import org.kvlab.api.NodeId;
import org.kvlab.api.OperationException;
import org.kvlab.api.Params;
import org.kvlab.api.Protocol;
import org.kvlab.api.ReadOnlyTransactions;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.api.Timer;
import org.kvlab.api.Topology;
import org.kvlab.history.History;
import org.kvlab.host.HostDriver;
import org.kvlab.host.HostRequest;
import org.kvlab.host.KitFrame;
import org.kvlab.host.ProtocolHost;
import org.kvlab.history.Operation;
import org.kvlab.store.Durability;
import org.kvlab.store.KitState;
import org.kvlab.store.VersionedStore;
import org.slf4j.Logger;
import org.slf4j.helpers.NOPLogger;
import org.kvlab.wire.Kit;

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

  private final SimSpec spec;
  private final Protocol protocol;
  private final MessageTypes types;
  private final long seed;
  private final Random random;
  private final PriorityQueue<Event> queue = new PriorityQueue<>();
  /**
   * The clients' timeouts, kept apart from {@link #queue}: each is due a fixed time after it is scheduled, so they
   * come due in the order they were added and a FIFO holds them in (time, seq) order. Every request has one, so in
   * the queue they doubled its size; the loop takes whichever of the two heads comes first, the same order as one
   * queue would give.
   */
  private final java.util.ArrayDeque<Event> timeouts = new java.util.ArrayDeque<>();
  private final Map<NodeId, SimNode> nodes = new TreeMap<>();
  private final long[][] lastDelivery;
  private final List<Fault> faults = new ArrayList<>();
  /** The partitions and slow nodes among {@link #faults}, in its order (set once the faults are drawn). */
  private Fault.Partition[] partitions = new Fault.Partition[0];
  private Fault.Slow[] slows = new Fault.Slow[0];
  private final History.Recorder history = new History.Recorder();
  private final Trace trace;
  private final List<String> failures = new ArrayList<>();
  private final List<SimResult.StartFailure> startFailures = new ArrayList<>();
  private final TreeSet<String> writtenKeys = new TreeSet<>();
  /** The same keys, for the membership test of every PUT (a hash lookup instead of a walk down the sorted set). */
  private final java.util.HashSet<String> writtenKeySet = new java.util.HashSet<>();
  private List<List<String>> keysByPartition;
  private org.kvlab.api.TxnPartners partners;

  /** The workload's keys ({@code k0 ..}) grouped by the partition that holds them. */
  private List<List<String>> keysByPartition() {
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

  private org.kvlab.api.TxnPartners partners(Workload.Txns t) {
    if (partners == null) {
      partners = new org.kvlab.api.TxnPartners(spec.topology().partitions(), t.partner(), t.zipfS());
    }
    return partners;
  }
  private final List<SimSession> sessions = new ArrayList<>();
  private long now;
  private long seq;
  private long deliveries;
  private long events;
  private long valueCounter;
  private boolean stopped;
  private boolean done;
  private int readersPending;

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
    int n = spec.topology().size();
    this.lastDelivery = new long[n][n];
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

  private StateProbe probe;

  /** Whether a server class overrides {@code toString()} (its state for {@link NodeState#protocol()}). */
  private static final ClassValue<Boolean> OVERRIDES_TO_STRING = new ClassValue<>() {
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

  void at(long time, Runnable action) {
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
    Topology topology = spec.topology();
    for (NodeId id : topology.allNodes()) {
      nodes.put(id, new SimNode(id));
    }
    faults.addAll(FaultPlan.draw(spec, random));
    faults.addAll(spec.faults());
    // every message asks which partitions and slow nodes delay it: keep them apart, in the same order
    partitions = faults.stream().filter(f -> f instanceof Fault.Partition).toArray(Fault.Partition[]::new);
    slows = faults.stream().filter(f -> f instanceof Fault.Slow).toArray(Fault.Slow[]::new);
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
    if (scripts.isEmpty()) {
      for (int dc = 0; dc < topology.datacenters(); dc++) {
        for (int s = 0; s < spec.workload().sessionsPerDc(); s++) {
          SimSession session = new SimSession(sessionId++, dc, keys);
          at(random.nextInt(1000), session::next);
        }
      }
    } else {
      scriptsRunning = scripts.size();
      for (Script script : scripts) {
        SimSession session = new SimSession(sessionId++, script.dc(), keys);
        at(script.startMicros(), () -> session.runScript(script.steps(), 0));
      }
    }
    long end = spec.durationMicros() + spec.settleMicros();
    final int firstReader = sessionId;
    at(end, () -> finalReads(firstReader));
    long limit = end + 60_000_000; // final reads get a minute of virtual time
    while ((!queue.isEmpty() || !timeouts.isEmpty()) && !stopped && !done) {
      Event e = nextEvent();
      if (e.time > limit) {
        failures.add("final reads did not finish within 60 simulated seconds after the run");
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
    return new SimResult(seed, history.build(), List.copyOf(faults), List.copyOf(failures), trace, deliveries, events,
        now, System.nanoTime() - wallStart, mx.getCurrentThreadCpuTime() - cpuStart, new TreeMap<>(counters),
        List.copyOf(startFailures));
  }

  /** The servers' metrics, summed over servers (see {@link SimResult#counters()}). */
  private final Map<String, Long> counters = new TreeMap<>();

  private final Metrics simMetrics = new Metrics() {
    @Override
    public void count(String name) {
      counters.merge(name, 1L, Long::sum);
    }

    @Override
    public void record(String name, long value) {
      counters.merge(name + ".sum", value, Long::sum);
      counters.merge(name + ".count", 1L, Long::sum);
    }
  };

  private int scriptsRunning;

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
    int id = firstSessionId;
    readersPending = spec.topology().datacenters();
    for (int dc = 0; dc < spec.topology().datacenters(); dc++) {
      SimSession reader = new SimSession(id++, dc, null);
      reader.readAll(new ArrayList<>(writtenKeys), 0);
    }
  }

  /** The client's own timeout: no answer by then, the outcome is unknown (it may still take effect). */
  private void timeOut(CompletableFuture<Message> reply, NodeId server, Message request, long deadline) {
    Runnable action = () -> {
      if (reply.isDone()) {
        return; // answered in time: completing it would do nothing, so the exception is not even built
      }
      reply.completeExceptionally(OperationException.unknown(request.getClass().getSimpleName() + " to " + server
          + ": no answer within " + Fault.ms(SimSpec.CLIENT_TIMEOUT_MICROS)
          + " (client timeout; it may still take effect)"));
    };
    long time = Math.max(now, deadline);
    Event last = timeouts.peekLast();
    if (last != null && time < last.time) {
      at(time, action); // not in FIFO order (a shorter deadline than an earlier one): the general queue
    } else {
      timeouts.addLast(new Event(time, seq++, action));
    }
  }

  private void fail(String what) {
    failures.add(String.format("t=%s %s", Fault.ms(now), what));
    stopped = true;
  }

  // ---------------------------------------------------------------------------------------------
  // Network

  private int index(NodeId id) {
    return spec.topology().indexOf(id);
  }

  private long wanDelay(int fromDc, int toDc, long sendTime, long latency) {
    long t = sendTime + latency;
    boolean moved = true;
    while (moved) {
      moved = false;
      for (Fault.Partition p : partitions) {
        if (fromDc != toDc
            && ((p.dcA() == fromDc && p.dcB() == toDc) || (p.dcA() == toDc && p.dcB() == fromDc))
            && p.startMicros() <= t && sendTime < p.endMicros() && t > p.startMicros() - latency) {
          long released = p.endMicros() + latency;
          if (released > t) {
            t = released;
            moved = true;
          }
        }
      }
    }
    return t;
  }

  /** Extra delay of a message a slow server {@code from} sends at {@code time}. */
  private long slowExtra(NodeId from, long time) {
    long extra = 0;
    for (Fault.Slow s : slows) {
      if (s.node().equals(from) && s.startMicros() <= time && time < s.endMicros()) {
        extra += s.delayMicros();
      }
    }
    return extra;
  }

  private void sendServerMessage(SimNode from, NodeId to, Message message) {
    types.idOf(message.getClass()); // same rule as the real runtime: the type must be registered
    sendOnLink(from, to, message, message);
  }

  /**
   * Sends {@code payload} (a protocol message, or a kit frame of the framework) from {@code from} to {@code to} on
   * their FIFO link, with the network's faults; the trace shows it as {@code shown}.
   */
  private void sendOnLink(SimNode from, NodeId to, Object payload, Message shown) {
    SimNode target = nodes.get(to);
    if (target == null || to.equals(from.id)) {
      throw new IllegalArgumentException("server " + from.id + " has no channel to " + to);
    }
    Object message = payload;
    long latency = spec.network().sample(from.id, to, random) + slowExtra(from.id, now);
    long t = wanDelay(from.id.dc(), to.dc(), now, latency);
    int a = index(from.id);
    int b = index(to);
    t = Math.max(t, lastDelivery[a][b]); // FIFO per link
    lastDelivery[a][b] = t;
    long sent = now;
    int senderIncarnation = from.incarnation;
    long traceId = trace.enabled() ? trace.send(now, from.id.toString(), to.toString(), shown) : -1;
    at(t, () -> deliver(from, senderIncarnation, target, message, sent, traceId));
  }

  private void deliver(SimNode from, int senderIncarnation, SimNode target, Object message, long sent, long traceId) {
    long cost = spec.network().receiveMicros();
    if (cost > 0 && !target.down) { // the receiver takes in one message at a time (FIFO per link is kept)
      long done = Math.max(now, target.receiveBusyUntil) + cost;
      target.receiveBusyUntil = done;
      at(done, () -> take(from, senderIncarnation, target, message, sent, traceId));
      return;
    }
    take(from, senderIncarnation, target, message, sent, traceId);
  }

  private void take(SimNode from, int senderIncarnation, SimNode target, Object message, long sent, long traceId) {
    if (from.incarnation != senderIncarnation && spec.durability() == Durability.NONE) {
      trace.drop(traceId, now, "sender crashed before delivery (durability none)");
      return; // the crashed sender's in-memory queue is gone
    }
    if (target.down) {
      target.heldWhileDown.add(() -> take(from, senderIncarnation, target, message, sent, traceId));
      return;
    }
    deliveries++;
    trace.deliver(traceId, now);
    if (message instanceof KitFrame kit) {
      target.onKit(kit, from.id);
    } else {
      target.onMessage((Message) message, from.id);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Servers

  /** One simulated server: the protocol's Server instance behind a virtual-time ServerContext. */
  final class SimNode implements HostDriver {
    final NodeId id;
    long receiveBusyUntil;
    final List<Runnable> heldWhileDown = new ArrayList<>();
    final SimStore<Message> store;
    final Random nodeRandom;
    long skewMicros;
    double driftPpm;
    int incarnation;
    boolean down;
    /** What the first start (incarnation 0) threw, if it did. */
    RuntimeException startFailure;
    Server<?> server;
    /** The host of the current incarnation's server (null before the first start). */
    ProtocolHost host;
    final SimKitState kitState;
    final HostDriver.Env env;
    /** When the current incarnation started: the origin of its timer clock. */
    long startedMicros;
    final Clock clock = new Clock() {
      @Override
      public long millis() {
        return Math.floorDiv(micros(), 1000L);
      }

      @Override
      public long micros() {
        return clockMicros();
      }
    };

    SimNode(NodeId id) {
      this.id = id;
      this.nodeRandom = new SimRandom(random.nextLong());
      @SuppressWarnings("unchecked")
      SimStore<Message> s = (SimStore<Message>) new SimStore<>(protocol.record(), spec.durability());
      this.store = s;
      this.kitState = new SimKitState(spec.durability());
      this.env = new HostDriver.Env(id, spec.topology(), spec.params(), clock, nodeRandom, store, simMetrics,
          NOPLogger.NOP_LOGGER);
    }

    void skew(Fault.Skew s) {
      skewMicros = s.skewMicros();
      driftPpm = s.driftPpm();
    }

    long clockMicros() {
      double elapsed = now * (1 + driftPpm / 1e6);
      return EPOCH_MILLIS * 1000L + (long) Math.floor(elapsed + skewMicros);
    }

    void start() {
      startedMicros = now;
      try {
        server = protocol.newServer();
        // ids of calls and forwards carry the incarnation: deterministic, and never those of an earlier one
        host = new ProtocolHost(this, env, types, incarnation + 1, incarnation + 1);
        host.bind(server);
        host.start();
      } catch (RuntimeException e) {
        failed("start", e);
      }
      report();
      for (SimNode other : nodes.values()) { // what the runtime's peers learn from this node's Welcome, and it from theirs
        if (other != this && !other.down && other.host != null) {
          other.host.peerStarted(id, incarnation + 1);
          host.peerStarted(other.id, other.incarnation + 1);
        }
      }
      if (spec.durability() == Durability.NONE) {
        int inc = incarnation;
        at(now + SimSpec.FLUSH_INTERVAL_MICROS, () -> flushLoop(inc));
      }
    }

    private void flushLoop(int inc) {
      if (inc == incarnation && !down) {
        store.flush();
        kitState.flush();
        at(now + SimSpec.FLUSH_INTERVAL_MICROS, () -> flushLoop(inc));
      }
    }

    void crash() {
      if (down) {
        return;
      }
      down = true;
      incarnation++;
      server = null;
      host = null;
      store.crash();
      kitState.crash();
      pending.clear(); // lost with the server: each client's own timeout answers (INFO)
      trace.note(now, id.toString(), "CRASH");
      report();
    }

    void restart() {
      if (!down) {
        return;
      }
      down = false;
      trace.note(now, id.toString(), "RESTART");
      start();
      List<Runnable> held = new ArrayList<>(heldWhileDown);
      heldWhileDown.clear();
      for (Runnable r : held) {
        r.run();
      }
      report();
    }

    /** What {@link #guarded} does when {@code what} threw {@code e}: the run fails, naming it. */
    private void failed(String what, RuntimeException e) {
      if (what.equals("start") && incarnation == 0 && startFailure == null) {
        startFailure = e;
      }
      if (e instanceof InvariantViolation) {
        fail("server " + id + ": invariant violated in " + what + ": " + e.getMessage());
      } else {
        fail("server " + id + ": " + what + " threw " + e);
      }
    }

    private long storeChangesSeen = -1;
    private List<String> storeLines = List.of();

    /** Hands this server's state to the probe, if one observes the run. */
    void report() {
      if (probe == null) {
        return;
      }
      if (store.changes() != storeChangesSeen) {
        storeChangesSeen = store.changes();
        List<String> lines = new ArrayList<>();
        for (String key : writtenKeys) {
          if (spec.topology().partitionOf(key) != id.partition()) {
            continue;
          }
          if (lines.size() == STORE_LINES_MAX) {
            lines.add("...");
            break;
          }
          List<Message> versions = store.versions(key);
          if (!versions.isEmpty()) {
            String newest = com.google.protobuf.TextFormat.printer().emittingSingleLine(true)
                .printToString(versions.get(0));
            if (newest.length() > 120) {
              newest = newest.substring(0, 119) + "…";
            }
            lines.add(key + ": " + newest + (versions.size() > 1 ? " (" + versions.size() + " versions)" : ""));
          }
        }
        storeLines = List.copyOf(lines);
      }
      String own = null;
      if (server != null && OVERRIDES_TO_STRING.get(server.getClass())) {
        try {
          own = server.toString();
        } catch (RuntimeException e) {
          own = "(toString() threw " + e + ")";
        }
      }
      probe.state(new NodeState(id.toString(), now, !down, incarnation, pending.size(), heldWhileDown.size(),
          storeLines, own));
    }

    void onMessage(Message m, NodeId from) {
      int t = types.idOf(m.getClass());
      if (!host.handlesMessage(t)) {
        fail("server " + id + " has no handler for " + m.getClass().getSimpleName() + " from " + from);
        return;
      }
      host.onMessage(t, m, from);
    }

    void onKit(KitFrame frame, NodeId from) {
      host.onKit(frame, from);
    }

    /** Requests received and not yet answered: lost if this server crashes. */
    final java.util.LinkedHashMap<Request<Message>, CompletableFuture<Message>> pending = new java.util.LinkedHashMap<>();

    void onRequest(Message body, SimSession session, CompletableFuture<Message> reply, long traceId) {
      int t = types.idOf(body.getClass());
      SimRequest req = new SimRequest(host, t, body, session, reply);
      if (!host.handlesRequest(t)) {
        req.fail("server " + id + " has no handler for " + body.getClass().getSimpleName());
        return;
      }
      pending.put(req, reply);
      trace.deliver(traceId, now);
      host.onRequest(req);
    }

    /** A client's request to this server; its answer crosses the network back to the session. */
    private final class SimRequest implements HostRequest {
      private final ProtocolHost host;
      private final int type;
      private final Message body;
      private final SimSession session;
      private final CompletableFuture<Message> reply;
      private final int inc = incarnation;
      private long answer;
  
      SimRequest(ProtocolHost host, int type, Message body, SimSession session, CompletableFuture<Message> reply) {
        this.host = host;
        this.type = type;
        this.body = body;
        this.session = session;
        this.reply = reply;
      }

      @Override
      public Message body() {
        return body;
      }

      @Override
      public int type() {
        return type;
      }

      @Override
      public long answerRecord() {
        return answer;
      }

      @Override
      public void answerRecord(long record) {
        answer = record;
      }

      @Override
      public void reply(Message r) {
        answer(ProtocolHost.REPLY, r, null, false);
      }

      @Override
      public void fail(String reason) {
        answer(ProtocolHost.FAIL, null, reason == null ? "null" : reason, false);
      }

      @Override
      public void unknown(String reason) {
        answer(ProtocolHost.UNKNOWN, null, reason == null ? "null" : reason, true);
      }

      @Override
      public void refuseOverloaded(String reason) {
        fail(reason); // the simulator's clients see a definite failure, as the runtime's do
      }

      private void answer(int how, Message r, String error, boolean outcomeUnknown) {
        host.claim(this, how);
        pending.remove(this);
        if (inc != incarnation || down) {
          return; // answered by a previous life of this server: lost with it
        }
        if (r != null) {
          types.idOf(r.getClass());
        }
        // The reply crosses the same network as server links: latency and partitions; to a client of
        // another datacenter (a WAN link, like a server link) also a slow server's delay. A client of
        // this server's own datacenter is local: slowness models slow replication, not slow answers.
        long latency = spec.network().sample(id.dc(), session.home, random)
            + (session.home != id.dc() ? slowExtra(id, now) : 0);
        long t = wanDelay(id.dc(), session.home, now, latency);
        long replyTrace = trace.enabled() ? trace.send(now, id.toString(), session.name(), r != null ? r : body) : -1;
        at(t, () -> {
          deliveries++;
          trace.deliver(replyTrace, now);
          if (error != null) {
            reply.completeExceptionally(outcomeUnknown ? OperationException.unknown(error) : new OperationException(error));
          } else {
            reply.complete(r);
          }
        });
      }
    }

    // HostDriver

    @Override
    public void send(NodeId to, Message message) {
      sendServerMessage(this, to, message);
    }

    @Override
    public void sendKit(NodeId to, KitFrame frame) {
      sendOnLink(this, to, frame, frame.body() != null ? frame.body() : Kit.getDefaultInstance());
    }

    @Override
    public int room(NodeId to) {
      return Integer.MAX_VALUE; // the simulated links hold any number of messages
    }

    @Override
    public Timer schedule(long delayNanos, Runnable task) {
      int inc = incarnation;
      boolean[] cancelled = new boolean[1];
      long d = Math.max(0, (delayNanos + 999) / 1000);
      at(now + d, () -> {
        if (!cancelled[0] && inc == incarnation && !down) {
          task.run();
        }
      });
      return () -> cancelled[0] = true;
    }

    @Override
    public Timer scheduleRepeating(long firstNanos, long periodNanos, Runnable task) {
      int inc = incarnation;
      boolean[] cancelled = new boolean[1];
      long p = Math.max(1, periodNanos / 1000);
      Runnable[] tick = new Runnable[1];
      tick[0] = () -> {
        if (!cancelled[0] && inc == incarnation && !down) {
          task.run();
          at(now + p, tick[0]);
        }
      };
      at(now + Math.max(1, firstNanos / 1000), tick[0]);
      return () -> cancelled[0] = true;
    }

    /** Virtual time since this incarnation started. */
    @Override
    public long timerNanos() {
      return (now - startedMicros) * 1000;
    }

    @Override
    public void failed(String where, RuntimeException e, HostRequest request) {
      failed(where, e);
    }

    @Override
    public void eventDone() {
      report();
    }

    @Override
    public KitState state() {
      return kitState;
    }

    @Override
    public void stateWritten() {}

    @Override
    public boolean holdSendsBehindState() {
      return false; // a crash falls between events: a turn's slot writes and sends are never split
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Clients

  /** A client session: the protocol's Client over a virtual-time ClientContext, closed loop. */
  final class SimSession implements ClientContext {
    final int id;
    /** The datacenter of the session's current operation: its home, or another for a remote operation. */
    int dc;
    final int home;
    final Workload.KeyChooser keys;
    final Client client;
    final Random sessionRandom;
    final Clock clock = new Clock() {
      @Override
      public long millis() {
        return EPOCH_MILLIS + now / 1000;
      }

      @Override
      public long micros() {
        return EPOCH_MILLIS * 1000L + now;
      }
    };
    int issued;

    SimSession(int id, int dc, Workload.KeyChooser keys) {
      this.id = id;
      this.dc = dc;
      this.home = dc;
      this.keys = keys;
      this.sessionRandom = new SimRandom(random.nextLong());
      this.client = protocol.newClient();
      sessions.add(this);
      client.bind(this);
    }

    String name() {
      return "s" + id + "@dc" + dc;
    }

    /** Issues the next workload operation, or stops when the workload's time is over. */
    void next() {
      if (now >= spec.durationMicros() || stopped) {
        return;
      }
      Workload w = spec.workload();
      if (w.remoteRatio() > 0 && spec.topology().datacenters() > 1) {
        // a session that switches datacenters: this operation at another one, the next back home (or away again)
        dc = home;
        if (sessionRandom.nextDouble() < w.remoteRatio()) {
          int other = sessionRandom.nextInt(spec.topology().datacenters() - 1);
          dc = other >= home ? other + 1 : other;
        }
      }
      double u = sessionRandom.nextDouble();
      if (w.custom() != null) {
        CompletableFuture<?> custom = w.custom().maybeStart(client, sessionRandom, keys);
        if (custom != null) {
          custom.whenComplete((r, e) -> thinkThenNext());
          return;
        }
      }
      if (w.txn().ratio() > 0 && client instanceof org.kvlab.api.Transactions
          && sessionRandom.nextDouble() < w.txn().ratio()) {
        txn(randomTxn(w.txn()), this::thinkThenNext);
      } else if (u < w.rotxRatio() && client instanceof ReadOnlyTransactions) {
        rotx(keys.distinct(sessionRandom, w.rotxKeys()), this::thinkThenNext);
      } else if (sessionRandom.nextDouble() < w.getRatio()) {
        get(keys.next(sessionRandom), this::thinkThenNext);
      } else {
        String key = keys.next(sessionRandom);
        put(key, ByteString.copyFromUtf8("s" + id + "." + (issued + 1) + "#" + (valueCounter++)), this::thinkThenNext);
      }
    }

    private void thinkThenNext() {
      long think = spec.workload().thinkMicros() == 0 ? 0 : sessionRandom.nextLong(spec.workload().thinkMicros() + 1);
      at(now + think, this::next);
    }

    void runScript(List<Script.Step> steps, int i) {
      if (i >= steps.size() || stopped) {
        scriptsRunning--;
        return;
      }
      Runnable next = () -> runScript(steps, i + 1);
      Script.Step step = steps.get(i);
      if (step instanceof Script.Step.Put p) {
        put(p.key(), ByteString.copyFromUtf8(p.value()), next);
      } else if (step instanceof Script.Step.Get g) {
        get(g.key(), next);
      } else if (step instanceof Script.Step.Rotx r) {
        rotx(r.keys(), next);
      } else if (step instanceof Script.Step.Pause p) {
        at(now + p.micros(), next);
      } else if (step instanceof Script.Step.AwaitValue a) {
        await(a, now + a.giveUpAfterMicros(), next);
      } else if (step instanceof Script.Step.MoveTo m) {
        if (m.dc() < 0 || m.dc() >= spec.topology().datacenters()) {
          throw new IllegalArgumentException("script moves session " + name() + " to datacenter " + m.dc()
              + ", which the " + spec.topology().datacenters() + "-datacenter topology does not have");
        }
        dc = m.dc(); // the session stays where it is on the network (its home); its operations go to m.dc()
        next.run();
      }
    }

    private void await(Script.Step.AwaitValue a, long giveUp, Runnable next) {
      get(a.key(), () -> {
        Operation last = lastOp;
        boolean seen = last != null && last.ok() && last.readValue().map(v -> v.toStringUtf8().equals(a.value())).orElse(false);
        if (seen || now >= giveUp) {
          next.run();
        } else {
          at(now + a.pollMicros(), () -> await(a, giveUp, next));
        }
      });
    }

    void readAll(List<String> all, int from) {
      if (from >= all.size()) {
        if (--readersPending == 0) {
          done = true;
        }
        return;
      }
      get(all.get(from), () -> readAll(all, from + 1));
    }

    void get(String key, Runnable then) {
      issued++;
      long opId = history.nextId();
      long invoked = now;
      if (trace.enabled()) {
        trace.op(now, name(), "invoke get(" + key + ")", opId);
      }
      invoked(opId, Operation.Type.GET, key, null);
      client.get(key).whenComplete((v, e) -> {
        record(new Operation(opId, id, dc, Operation.Type.GET, key, null,
            e == null ? Map.of(key, v) : null, invoked, now, outcome(e), e == null ? null : message(e)));
        then.run();
      });
    }

    void put(String key, ByteString value, Runnable then) {
      issued++;
      if (writtenKeySet.add(key)) {
        writtenKeys.add(key);
      }
      long opId = history.nextId();
      long invoked = now;
      if (trace.enabled()) {
        trace.op(now, name(), "invoke put(" + key + ")=" + value.toStringUtf8(), opId);
      }
      invoked(opId, Operation.Type.PUT, key, value);
      client.put(key, value).whenComplete((v, e) -> {
        record(new Operation(opId, id, dc, Operation.Type.PUT, key, value, null, invoked, now, outcome(e),
            e == null ? null : message(e)));
        then.run();
      });
    }

    /** A transaction per the workload: partitions by {@link org.kvlab.api.TxnPartners}, keys in each. */
    org.kvlab.api.TxnRequest randomTxn(Workload.Txns t) {
      int n = spec.topology().partitions();
      List<List<String>> byPartition = keysByPartition();
      List<Integer> parts = partners(t).choose(sessionRandom, sessionRandom.nextInt(n), t.partitions());
      List<String> keys = new ArrayList<>();
      for (int p : parts) {
        List<String> in = byPartition.get(p);
        for (int i = 0; i < t.keysPerPartition() && !in.isEmpty(); i++) {
          String k = in.get(sessionRandom.nextInt(in.size()));
          if (!keys.contains(k)) {
            keys.add(k);
          }
        }
      }
      if (sessionRandom.nextDouble() < t.procedureRatio()) {
        return org.kvlab.api.TxnRequest.procedure("add", keys, "1");
      }
      Map<String, ByteString> writes = new TreeMap<>();
      for (String k : keys) {
        writes.put(k, ByteString.copyFromUtf8("s" + id + "." + (issued + 1) + "#" + (valueCounter++)));
      }
      return org.kvlab.api.TxnRequest.of(keys, writes);
    }

    void txn(org.kvlab.api.TxnRequest request, Runnable then) {
      issued++;
      for (String k : request.keys()) {
        if (writtenKeySet.add(k)) {
          writtenKeys.add(k);
        }
      }
      long opId = history.nextId();
      long invoked = now;
      if (trace.enabled()) {
        trace.op(now, name(), "invoke " + request.describe(), opId);
      }
      inFlight.put(opId, new Operation(opId, id, dc, Operation.Type.TXN, null, null, null, now, now,
          Operation.Outcome.INFO, null, new Operation.Txn(request, null)));
      ((org.kvlab.api.Transactions) client).transact(request).whenComplete((r, e) -> {
        record(new Operation(opId, id, dc, Operation.Type.TXN, null, null, e == null ? new TreeMap<>(r.reads()) : null,
            invoked, now, outcome(e), e == null ? null : message(e), new Operation.Txn(request, e == null ? r : null)));
        then.run();
      });
    }

    void rotx(List<String> keyList, Runnable then) {
      issued++;
      long opId = history.nextId();
      long invoked = now;
      if (trace.enabled()) {
        trace.op(now, name(), "invoke rotx" + keyList, opId);
      }
      invoked(opId, Operation.Type.ROTX, null, null);
      ((ReadOnlyTransactions) client).readOnlyTx(keyList).whenComplete((v, e) -> {
        record(new Operation(opId, id, dc, Operation.Type.ROTX, null, null,
            e == null ? new TreeMap<>(v) : null, invoked, now, outcome(e), e == null ? null : message(e)));
        then.run();
      });
    }

    private Operation lastOp;
    /** Operations invoked and not yet completed: id → the operation as invoked. */
    private final java.util.LinkedHashMap<Long, Operation> inFlight = new java.util.LinkedHashMap<>();

    private void invoked(long opId, Operation.Type type, String key, ByteString value) {
      inFlight.put(opId, new Operation(opId, id, dc, type, key, value, null, now, now, Operation.Outcome.INFO, null));
    }

    /** At the end of the run: every operation still without an outcome goes into the history as INFO. */
    void recordUnanswered() {
      for (Operation op : new ArrayList<>(inFlight.values())) {
        record(new Operation(op.id(), id, dc, op.type(), op.key(), op.value(), null, op.invokeMicros(), now,
            Operation.Outcome.INFO, "no answer when the simulation ended at " + Fault.ms(now), op.txn()));
      }
    }

    private void record(Operation op) {
      if (inFlight.remove(op.id()) == null) {
        return; // already recorded (completed after the run was cut short)
      }
      lastOp = op;
      history.add(op);
      if (trace.enabled()) {
        trace.op(now, name(), "complete " + op.describe(), op.id());
      }
    }

    /** The one rule of every history ({@link History#outcomeOf}): the exception's flag, never its words. */
    private Operation.Outcome outcome(Throwable e) {
      return History.outcomeOf(e);
    }

    private String message(Throwable e) {
      return History.errorText(e);
    }

    // ClientContext

    @Override
    public int dc() {
      return dc;
    }

    @Override
    public Topology topology() {
      return spec.topology();
    }

    @Override
    public Params params() {
      return spec.params();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <R extends Message> CompletableFuture<R> call(NodeId server, Message request, Class<R> replyType) {
      CompletableFuture<Message> reply = new CompletableFuture<>();
      types.idOf(request.getClass());
      SimNode target = nodes.get(server);
      if (target == null) {
        throw new IllegalArgumentException("session " + name() + " called " + server + ", which is not a server of the "
            + spec.topology().datacenters() + "x" + spec.topology().partitions()
            + (spec.topology().replicas() > 1 ? "x" + spec.topology().replicas() : "") + " topology");
      }
      // Same faults as a server link: latency of the datacenter pair, partitions (wait for the heal).
      // The session sits in its home datacenter: a remote operation crosses the WAN.
      long latency = spec.network().sample(home, server.dc(), random);
      long t = wanDelay(home, server.dc(), now, latency);
      long traceId = trace.enabled() ? trace.send(now, name(), server.toString(), request) : -1;
      timeOut(reply, server, request, now + SimSpec.CLIENT_TIMEOUT_MICROS);
      at(t, () -> {
        if (target.down) {
          trace.drop(traceId, now, "server down");
          return; // lost with the server: the client's timeout answers
        }
        deliveries++;
        target.onRequest(request, this, reply, traceId);
      });
      return reply.thenApply(r -> {
        if (!replyType.isInstance(r)) {
          throw OperationException.unknown("server " + server + " answered " + r.getClass().getSimpleName()
              + " where " + replyType.getSimpleName() + " was expected");
        }
        return (R) r;
      });
    }

    @Override
    public Clock clock() {
      return clock;
    }

    @Override
    public Random random() {
      return sessionRandom;
    }

    @Override
    public Logger log() {
      return NOPLogger.NOP_LOGGER;
    }
  }

  /** For tests that drive a simulation by hand. */
  Map<NodeId, SimNode> nodes() {
    return new HashMap<>(nodes);
  }

  static Optional<String> none() {
    return Optional.empty();
  }
}
