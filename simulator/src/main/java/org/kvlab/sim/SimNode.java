package org.kvlab.sim;

import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Clock;
import org.kvlab.api.Invariants.InvariantViolation;
import org.kvlab.api.NodeId;
import org.kvlab.api.OperationException;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.api.Timer;
import org.kvlab.host.HostDriver;
import org.kvlab.host.BaseHostRequest;
import org.kvlab.host.HostRequest;
import org.kvlab.host.KitFrame;
import org.kvlab.host.ProtocolHost;
import org.kvlab.store.Durability;
import org.kvlab.store.KitState;
import org.slf4j.helpers.NOPLogger;
import org.kvlab.wire.Kit;

/** One simulated server: the protocol's Server instance behind a virtual-time ServerContext. */
final class SimNode implements HostDriver {
  private final Simulation sim;
  final NodeId id;
  /** When this server's one CPU is free of the messages it took in or sent (the network model's costs). */
  long busyUntil;
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

  SimNode(Simulation sim, NodeId id) {
    this.sim = sim;
    this.id = id;
    this.nodeRandom = new SimRandom(sim.random.nextLong());
    @SuppressWarnings("unchecked")
    SimStore<Message> s = (SimStore<Message>) new SimStore<>(sim.protocol.record(), sim.spec.durability());
    this.store = s;
    this.kitState = new SimKitState(sim.spec.durability());
    this.env = new HostDriver.Env(id, sim.spec.topology(), sim.spec.params(), clock, nodeRandom, store, sim.metrics(id),
        NOPLogger.NOP_LOGGER);
  }

  void skew(Fault.Skew s) {
    skewMicros = s.skewMicros();
    driftPpm = s.driftPpm();
  }

  long clockMicros() {
    double elapsed = sim.clockNow() * (1 + driftPpm / 1e6);
    return Simulation.EPOCH_MILLIS * 1000L + (long) Math.floor(elapsed + skewMicros);
  }

  void start() {
    startedMicros = sim.clockNow();
    try {
      server = sim.protocol.newServer();
      // ids of calls and forwards carry the incarnation: deterministic, and never those of an earlier one
      host = new ProtocolHost(this, env, sim.types, incarnation + 1, incarnation + 1);
      host.bind(server);
      host.start();
    } catch (RuntimeException e) {
      failed(ProtocolHost.START_SITE, e);
    }
    report();
    for (SimNode other : sim.nodes.values()) { // what the runtime's peers learn from this node's Welcome, and it from theirs
      if (other != this && !other.down && other.host != null) {
        other.host.peerStarted(id, incarnation + 1);
        host.peerStarted(other.id, other.incarnation + 1);
      }
    }
    if (sim.spec.durability() == Durability.NONE) {
      int inc = incarnation;
      sim.at(sim.now + SimSpec.FLUSH_INTERVAL_MICROS, () -> flushLoop(inc));
    }
  }

  private void flushLoop(int inc) {
    if (inc == incarnation && !down) {
      store.flush();
      kitState.flush();
      sim.at(sim.now + SimSpec.FLUSH_INTERVAL_MICROS, () -> flushLoop(inc));
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
    sim.trace.note(sim.now, id.toString(), "CRASH");
    report();
  }

  void restart() {
    if (!down) {
      return;
    }
    down = false;
    sim.trace.note(sim.now, id.toString(), "RESTART");
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
    if (what.equals(ProtocolHost.START_SITE) && incarnation == 0 && startFailure == null) {
      startFailure = e;
    }
    if (e instanceof InvariantViolation) {
      sim.fail("server " + id + ": invariant violated in " + what + ": " + e.getMessage());
    } else {
      sim.fail("server " + id + ": " + what + " threw " + e);
    }
  }

  private long storeChangesSeen = -1;
  private List<String> storeLines = List.of();

  /** Hands this server's state to the sim.probe, if one observes the run. */
  void report() {
    if (sim.probe == null) {
      return;
    }
    if (store.changes() != storeChangesSeen) {
      storeChangesSeen = store.changes();
      List<String> lines = new ArrayList<>();
      for (String key : sim.writtenKeys) {
        if (sim.spec.topology().partitionOf(key) != id.partition()) {
          continue;
        }
        if (lines.size() == Simulation.STORE_LINES_MAX) {
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
    if (server != null && Simulation.OVERRIDES_TO_STRING.get(server.getClass())) {
      try {
        own = server.toString();
      } catch (RuntimeException e) {
        own = "(toString() threw " + e + ")";
      }
    }
    sim.probe.state(new Simulation.NodeState(id.toString(), sim.now, !down, incarnation, pending.size(), heldWhileDown.size(),
        storeLines, own));
  }

  /** Books {@code cost} µs of this server's CPU from when it is free; returns when that work is done. */
  long occupy(long cost) {
    busyUntil = Math.max(sim.now, busyUntil) + cost;
    return busyUntil;
  }

  // The service-time model (ServiceTime): inputs wait in arrival order and are handled one at a time

  /** An input waiting for the server's CPU: its service time and its handling. */
  private record Input(long cost, Runnable handle) {}

  private final java.util.ArrayDeque<Input> inbox = new java.util.ArrayDeque<>();
  /** Whether the head of {@link #inbox} is being served (an event is due when its service time has passed). */
  private boolean pumping;
  /** Whether an input's handler is running; what it charged so far ({@link #charge}). */
  private boolean serving;
  private long charged;

  /** Whether inputs queue for a service time: a model is set and the run is not under controlled scheduling. */
  boolean queues() {
    return sim.spec.serviceTime().enabled() && sim.control == null;
  }

  /**
   * Queues {@code handle}, the handling of {@code input} (null: of unknown type): it runs when the inputs before it are served and its own
   * service time has passed on the server's one CPU (shared with the network model's message costs).
   */
  void serve(Message input, Runnable handle) {
    inbox.add(new Input(sim.spec.serviceTime().of(input), handle));
    if (!pumping) {
      pumping = true;
      serveHead();
    }
  }

  private void serveHead() {
    sim.at(occupy(inbox.peek().cost()), this::finishHead);
  }

  private void finishHead() {
    Input in = inbox.poll();
    serving = true;
    charged = 0;
    try {
      in.handle().run();
    } finally {
      serving = false;
    }
    if (charged > 0) { // the handler's extra cost: the inputs behind it wait for it
      busyUntil = Math.max(busyUntil, sim.now + charged);
      charged = 0;
    }
    if (inbox.isEmpty()) {
      pumping = false;
    } else {
      serveHead();
    }
  }

  /** When a message sent now leaves: after what the running handler charged so far (now without charges). */
  long sendFloor() {
    return serving ? sim.now + charged : sim.now;
  }

  @Override
  public void charge(long micros) {
    if (!queues() || micros == 0) {
      return; // no model: handlers cost nothing
    }
    if (serving) {
      charged += micros;
    } else {
      occupy(micros); // a timer's or an offloaded result's work: the inputs arriving later wait for it
    }
  }

  @Override
  public void offload(Runnable work, Runnable done) {
    int inc = incarnation;
    work.run(); // deterministic: computed at once, on the simulating thread
    if (sim.control != null) { // explored runs have no service-time model: the result is the next timer here
      sim.control.timer(id.toString(), sim.control.clock(), done, () -> inc == incarnation && !down);
      return;
    }
    sim.at(sim.now + sim.spec.serviceTime().offloadMicros(), () -> {
      if (inc == incarnation && !down) {
        done.run();
      }
    });
  }

  void onMessage(Message m, NodeId from) {
    int t = sim.types.idOf(m.getClass());
    if (!host.handlesMessage(t)) {
      sim.fail("server " + id + " has no handler for " + m.getClass().getSimpleName() + " from " + from);
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
    int t = sim.types.idOf(body.getClass());
    SimRequest req = new SimRequest(host, t, body, session, reply);
    if (!host.handlesRequest(t)) {
      req.fail("server " + id + " has no handler for " + body.getClass().getSimpleName());
      return;
    }
    pending.put(req, reply);
    sim.trace.deliver(traceId, sim.now);
    host.onRequest(req);
  }

  /** A client's request to this server; its answer crosses the network back to the session. */
  private final class SimRequest extends BaseHostRequest {
    private final SimSession session;
    private final CompletableFuture<Message> reply;
    private final int inc = incarnation;

    SimRequest(ProtocolHost host, int type, Message body, SimSession session, CompletableFuture<Message> reply) {
      super(host, type, body);
      this.session = session;
      this.reply = reply;
    }

    /** An overloaded refusal is a definite failure for the simulator's clients, as for the runtime's. */
    @Override
    protected void deliver(Message r, String error, boolean outcomeUnknown, boolean overloaded) {
      pending.remove(this);
      if (inc != incarnation || down) {
        return; // answered by a previous life of this server: lost with it
      }
      if (sim.control != null) { // controlled: the reply waits on its link until it is chosen
        long replyTrace = sim.trace.enabled() ? sim.trace.send(sim.now, id.toString(), session.name(), r != null ? r : body())
            : -1;
        sim.control.message(id.toString(), session.name(), r != null ? r : body(), () -> {
          sim.deliveries++;
          sim.trace.deliver(replyTrace, sim.now);
          answer(r, error, outcomeUnknown);
        }, () -> true);
        return;
      }
      // The reply crosses the same network as server links: latency and partitions; to a client of
      // another datacenter (a WAN link, like a server link) also a slow server's delay. A client of
      // this server's own datacenter is local: slowness models slow replication, not slow answers.
      long cost = sim.spec.network().sendMicros();
      long sent = cost > 0 ? occupy(cost) : sim.now; // the reply leaves when the server's CPU has sent it
      sent = Math.max(sent, sendFloor());
      long latency = sim.spec.network().sample(id.dc(), session.home, sim.random)
          + (session.home != id.dc() ? sim.network.slowExtra(id, sim.now) : 0);
      long t = sim.network.wanDelay(id.dc(), session.home, sent, latency);
      long replyTrace = sim.trace.enabled() ? sim.trace.send(sim.now, id.toString(), session.name(), r != null ? r : body())
          : -1;
      sim.at(t, () -> {
        sim.deliveries++;
        sim.trace.deliver(replyTrace, sim.now);
        answer(r, error, outcomeUnknown);
      });
    }

    private void answer(Message r, String error, boolean outcomeUnknown) {
      if (error != null) {
        reply.completeExceptionally(outcomeUnknown ? OperationException.unknown(error) : new OperationException(error));
      } else {
        reply.complete(r);
      }
    }
  }

  // HostDriver

  @Override
  public void send(NodeId to, Message message) {
    sim.network.sendServerMessage(this, to, message);
  }

  @Override
  public void sendKit(NodeId to, KitFrame frame) {
    sim.network.sendOnLink(this, to, frame, frame.body() != null ? frame.body() : Kit.getDefaultInstance());
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
    if (sim.control != null) {
      sim.control.timer(id.toString(), sim.control.clock() + d, task, () -> !cancelled[0] && inc == incarnation && !down);
      return () -> cancelled[0] = true;
    }
    sim.at(sim.now + d, () -> {
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
    if (sim.control != null) {
      java.util.function.BooleanSupplier live = () -> !cancelled[0] && inc == incarnation && !down;
      tick[0] = () -> {
        task.run();
        sim.control.timer(id.toString(), sim.control.clock() + p, tick[0], live);
      };
      sim.control.timer(id.toString(), sim.control.clock() + Math.max(1, firstNanos / 1000), tick[0], live);
      return () -> cancelled[0] = true;
    }
    tick[0] = () -> {
      if (!cancelled[0] && inc == incarnation && !down) {
        task.run();
        sim.at(sim.now + p, tick[0]);
      }
    };
    sim.at(sim.now + Math.max(1, firstNanos / 1000), tick[0]);
    return () -> cancelled[0] = true;
  }

  /** Virtual time since this incarnation started. */
  @Override
  public long timerNanos() {
    return (sim.clockNow() - startedMicros) * 1000;
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
  }}
