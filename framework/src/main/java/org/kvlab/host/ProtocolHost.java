package org.kvlab.host;

import com.google.protobuf.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.kvlab.api.BackPressureException;
import org.kvlab.api.Call;
import org.kvlab.api.Clock;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.Invariants.InvariantViolation;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Metrics;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.api.QuorumCall;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.api.ServerContext;
import org.kvlab.api.Slot;
import org.kvlab.api.SlotMap;
import org.kvlab.api.Timer;
import org.kvlab.api.Topology;
import org.kvlab.api.Wait;
import org.kvlab.store.VersionedStore;
import org.slf4j.Logger;

/**
 * The one host of a protocol server, driven by both the runtime's {@code Node} and the simulator's node: the handler
 * table, the request lifecycle (answered exactly once, and "answered twice" names both sites), timers (one-shot and
 * periodic, with one alignment rule), the protocol kit (waits, calls between servers, forwards, durable slots,
 * the incarnation), the invariant guard and the per-type counters. It is the server's {@link ServerContext}.
 *
 * <p>A driver delivers each event of the node through one of the {@code on...} methods (or a timer it scheduled for
 * the host); the host notes which event it is dispatching (its <i>site</i>), runs the handler, and at the event's
 * end runs what the event deferred (callbacks that must not run inside the handler that set them up), re-checks
 * the waits, writes the slots the event set and releases the sends it held behind them. Single-threaded: every
 * method runs on the node's event loop.
 *
 * <p>This class keeps the handler table, the dispatch of events, the answer-once guard, timers, sends and the
 * counters; the kit's parts live beside it: {@link Waits}, {@link Calls} (calls, quorum calls, the matching of
 * answers, the callee's side), {@link Forwards}, {@link Slots} and {@link RemoteRequest}.
 */
public final class ProtocolHost implements ServerContext {
  /** How a request was answered (in {@link HostRequest#answerRecord()}). */
  public static final int REPLY = 1;
  public static final int FAIL = 2;
  public static final int UNKNOWN = 3;
  /** The {@code where} of {@link HostDriver#failed} for a failure in the server's {@code onStart}: halts the server. */
  public static final String START_SITE = "start";
  private static final String[] ANSWERS = {"?", "reply", "fail", "unknown"};

  // The kinds of event (sites).
  private static final int OUTSIDE = 0;
  private static final int START = 1;
  private static final int REQUEST = 2;
  private static final int MESSAGE = 3;
  private static final int TIMER = 4;
  private static final int PERIODIC = 5;
  static final int WAIT = 6;
  static final int CALL = 7;
  static final int CALL_REPLY = 8;
  static final int FORWARDED = 9;
  static final int FORWARD_REPLY = 10;
  private static final int CALLBACK = 11;
  static final int PEER_RESTART = 12;
  private static final int OFFLOADED = 13;

  final HostDriver driver;
  final HostDriver.Env env;
  final MessageTypes types;
  final String[] typeNames;
  final long[] handled;
  final Handlers.RequestHandler<?>[] requestHandlers;
  final Handlers.RequestHandler<?>[] callHandlers;
  private final IdleBackoff backoff = new IdleBackoff(this, this::announceLease);
  private final Handlers.MessageHandler<?>[] messageHandlers;
  private final List<Periodic> periodics = new ArrayList<>();
  final long incarnation;
  final long run;
  private Server<?> server;

  // The event being dispatched: its kind, message type (or -1) and sender (or null).
  private int siteKind;
  private int siteType = -1;
  private NodeId siteFrom;

  private final Waits waits = new Waits(this);
  final java.util.ArrayDeque<Runnable> deferred = new java.util.ArrayDeque<>(); // callbacks run after the current handler, in order
  private final Calls calls = new Calls(this);
  private final Forwards forwards = new Forwards(this, calls);
  private final Slots slots = new Slots(this);
  private final ArrayList<Held> held = new ArrayList<>();
  private boolean settling;

  private record Periodic(Duration period, Runnable task) {}

  /** A send held until the turn's slot writes (see {@link HostDriver#holdSendsBehindState()}). */
  private record Held(NodeId to, Message message, KitFrame frame) {}

  /**
   * @param incarnation this start's incarnation ({@link ServerContext#incarnation()})
   * @param run the tag answers to this start's calls and forwards must carry: the incarnation in the simulator, a
   *     random number in the runtime (where a store kept in memory starts every run at incarnation 1)
   */
  public ProtocolHost(HostDriver driver, HostDriver.Env env, MessageTypes types, long incarnation, long run) {
    this.driver = driver;
    this.env = env;
    this.types = types;
    this.incarnation = incarnation;
    this.run = run;
    int n = types.size();
    this.typeNames = new String[n];
    this.handled = new long[n];
    this.requestHandlers = new Handlers.RequestHandler<?>[n];
    this.callHandlers = new Handlers.RequestHandler<?>[n];
    this.messageHandlers = new Handlers.MessageHandler<?>[n];
    for (int i = 0; i < n; i++) {
      typeNames[i] = types.typeOf(i).getSimpleName();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Registration and start

  /** Binds {@code server} to this host and collects its handlers ({@link Server#register}). */
  public void bind(Server<?> server) {
    this.server = server;
    server.bind(this, new Handlers() {
      @Override
      public <Q extends Message> void request(Class<Q> type, RequestHandler<Q> handler) {
        int t = types.idOf(type);
        Invariants.check(requestHandlers[t] == null, "two request handlers for %s", type.getSimpleName());
        requestHandlers[t] = handler;
      }

      @Override
      public <Q extends Message> void call(Class<Q> type, RequestHandler<Q> handler) {
        int t = types.idOf(type);
        Invariants.check(callHandlers[t] == null, "two call handlers for %s", type.getSimpleName());
        callHandlers[t] = handler;
      }

      @Override
      public <M extends Message> void message(Class<M> type, MessageHandler<M> handler) {
        int t = types.idOf(type);
        Invariants.check(messageHandlers[t] == null, "two message handlers for %s", type.getSimpleName());
        messageHandlers[t] = handler;
      }

      @Override
      public void every(Duration period, Runnable task) {
        Invariants.check(!period.isNegative() && !period.isZero(), "timer period must be positive, got %s", period);
        periodics.add(new Periodic(period, task));
      }

      @Override
      public void every(Duration fast, Duration idle, Duration idleAfter, Runnable task) {
        backoff.add(fast, idle, idleAfter, task);
      }
    });
  }

  /** Runs the server's {@code onStart} as the node's first event, then starts its periodic tasks. */
  public void start() {
    enter(START, -1, null);
    try {
      server.start();
    } catch (RuntimeException e) {
      driver.failed(START_SITE, e, null);
    }
    settle();
    siteKind = OUTSIDE;
    for (Periodic p : periodics) {
      every(p.period(), p.task());
    }
    backoff.start();
  }

  public Server<?> server() {
    return server;
  }

  // ---------------------------------------------------------------------------------------------
  // Events from the driver

  /** Whether the protocol handles client requests of wire type {@code t}. */
  public boolean handlesRequest(int t) {
    return t >= 0 && t < requestHandlers.length && requestHandlers[t] != null;
  }

  /** Whether the protocol handles peer messages of wire type {@code t}. */
  public boolean handlesMessage(int t) {
    return t >= 0 && t < messageHandlers.length && messageHandlers[t] != null;
  }

  /** Runs the handler of a client request (of a type {@link #handlesRequest handled}). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public void onRequest(HostRequest req) {
    int t = req.type();
    Handlers.RequestHandler handler = requestHandlers[t];
    handled[t]++;
    enter(REQUEST, t, null);
    try {
      backoff.clientRequest(req);
      handler.handle(req);
    } catch (RuntimeException e) {
      driver.failed("handler of " + typeNames[t], e, req);
    }
    leave();
  }

  /** Runs the handler of a peer's message of type {@code t} (of a type {@link #handlesMessage handled}). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public void onMessage(int t, Message message, NodeId from) {
    Handlers.MessageHandler handler = messageHandlers[t];
    handled[t]++;
    enter(MESSAGE, t, from);
    try {
      handler.handle(message, from);
    } catch (RuntimeException e) {
      driver.failed("handler of " + typeNames[t], e, null);
    }
    leave();
  }

  /** A kit frame from {@code from}: a call or forward to run here, or the answer to one of this node's. */
  public void onKit(KitFrame f, NodeId from) {
    switch (f.kind()) {
      case CALL -> calls.onCall(f, from);
      case FORWARD -> forwards.onForwarded(f, from);
      case CALL_REPLY, FORWARD_REPLY -> calls.onAnswer(f, from);
      case LEASE -> runEvent(PERIODIC, () -> backoff.peerLease(f.seq()));
      default -> throw new IllegalArgumentException("unknown kit frame " + f.kind());
    }
  }

  /**
   * The driver learnt that {@code peer} runs incarnation {@code incarnation} (the runtime from the peer's Welcome,
   * the simulator at its start): forwards it held from an earlier incarnation are answered unknown.
   */
  public void peerStarted(NodeId peer, long incarnation) {
    forwards.peerStarted(peer, incarnation);
  }

  void enter(int kind, int type, NodeId from) {
    siteKind = kind;
    siteType = type;
    siteFrom = from;
  }

  /** The end of an event: deferred callbacks, waits, slot writes, held sends; then the driver's hook. */
  void leave() {
    if (!settling && (!deferred.isEmpty() || !waits.isEmpty() || slots.anyDirty() || !held.isEmpty())) {
      settle();
    }
    siteKind = OUTSIDE;
    siteFrom = null;
    driver.eventDone();
  }

  void settle() {
    if (settling) {
      return;
    }
    settling = true;
    try {
      boolean progress = true;
      while (progress) {
        progress = false;
        while (!deferred.isEmpty()) {
          Runnable r = deferred.poll();
          enter(CALLBACK, -1, null);
          try {
            r.run();
          } catch (RuntimeException e) {
            driver.failed("call callback", e, null);
          }
          progress = true;
        }
        if (!waits.isEmpty() && waits.check()) {
          progress = true;
        }
      }
      slots.writeDirty();
      if (!held.isEmpty()) {
        Held[] out = held.toArray(new Held[0]);
        held.clear();
        for (Held h : out) {
          try {
            if (h.frame() != null) {
              driver.sendKit(h.to(), h.frame());
            } else {
              driver.send(h.to(), h.message());
            }
          } catch (BackPressureException e) {
            env.metrics().count("kit.heldSendsDropped"); // room was checked when it was held
          }
        }
      }
    } finally {
      settling = false;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Requests: the answer-once guard

  /**
   * Claims the answer of {@code r} by {@code how} ({@link #REPLY}, {@link #FAIL}, {@link #UNKNOWN}) in the event
   * being dispatched; an invariant violation naming both answers' sites if it was answered before.
   */
  public void claim(HostRequest r, int how) {
    long first = r.answerRecord();
    if (first != 0) {
      throw new InvariantViolation("request " + name(r.type()) + " answered twice: first " + describe(first)
          + ", then " + describe(record(how)));
    }
    r.answerRecord(record(how));
  }

  /** The answer {@code how} in the current event, in one number: how, the site's kind, type and sender. */
  private long record(int how) {
    long from = siteFrom == null ? 0 : env.topology().indexOf(siteFrom) + 1;
    return how | ((long) siteKind << 4) | ((long) (siteType + 1) << 12) | (from << 32);
  }

  private String describe(long record) {
    int how = (int) (record & 0xF);
    int kind = (int) ((record >>> 4) & 0xFF);
    int type = (int) ((record >>> 12) & 0xFFFFF) - 1;
    int fromIndex = (int) (record >>> 32) - 1;
    NodeId from = fromIndex < 0 ? null : env.topology().allNodes().get(fromIndex);
    String t = type >= 0 ? typeNames[type] : null;
    String where = switch (kind) {
      case START -> "in onStart";
      case REQUEST -> "in the handler of request " + t;
      case MESSAGE -> "in the handler of message " + t + " from " + from;
      case TIMER -> "in a timer";
      case PERIODIC -> "in a periodic task";
      case WAIT -> "in a wait's action";
      case CALL -> "in the handler of call " + t + " from " + from;
      case CALL_REPLY -> "in a call's callback (answer from " + from + ")";
      case FORWARDED -> "in the handler of request " + t + " forwarded by " + from;
      case FORWARD_REPLY -> "by the answer of " + from + " to a forward";
      case CALLBACK -> "in a call's callback";
      case PEER_RESTART -> "when " + from + " restarted";
      case OFFLOADED -> "in an offloaded computation's result";
      default -> "outside any event";
    };
    return ANSWERS[how] + " " + where;
  }

  String name(int t) {
    return t >= 0 && t < typeNames.length ? typeNames[t] : "type #" + t;
  }

  /** Checks that {@code m}'s type is one of the protocol's (as the channels do). */
  void checkType(Message m) {
    types.idOf(m.getClass());
  }

  // ---------------------------------------------------------------------------------------------
  // Counters

  /** How many requests and messages of each wire type the node handled (indexed by type). */
  public long[] handled() {
    return handled;
  }

  public String typeName(int t) {
    return typeNames[t];
  }

  // ---------------------------------------------------------------------------------------------
  // ServerContext: the node

  @Override
  public NodeId self() {
    return env.self();
  }

  @Override
  public Topology topology() {
    return env.topology();
  }

  @Override
  public Params params() {
    return env.params();
  }

  @Override
  public Clock clock() {
    return env.clock();
  }

  @Override
  public Random random() {
    return env.random();
  }

  @Override
  @SuppressWarnings("unchecked")
  public <R extends Message> VersionedStore<R> store() {
    return (VersionedStore<R>) (VersionedStore<?>) env.store();
  }

  @Override
  public Metrics metrics() {
    return env.metrics();
  }

  @Override
  public Logger log() {
    return env.log();
  }

  @Override
  public long incarnation() {
    return incarnation;
  }

  @Override
  public void send(NodeId to, Message message) {
    if (holding()) {
      hold(to, message, null);
    } else {
      driver.send(to, message);
    }
  }

  void sendKit(NodeId to, KitFrame frame) {
    if (holding()) {
      hold(to, null, frame);
    } else {
      driver.sendKit(to, frame);
    }
  }

  /** Tells every other server that this node is engaged until {@code lease} ({@link IdleBackoff}). */
  private void announceLease(long lease) {
    for (NodeId n : env.topology().allNodes()) {
      if (!n.equals(env.self())) {
        try {
          sendKit(n, new KitFrame(KitFrame.Kind.LEASE, run, lease, incarnation, null, null, false, false));
        } catch (BackPressureException e) {
          env.metrics().count("kit.leasesDropped"); // the peer is down or slow: its own pace is not urgent
        }
      }
    }
  }

  /**
   * Whether this event's sends wait for its end, behind its slot writes: for a protocol that has slots, when the
   * driver asks for it (the runtime under sync, whose durable outbox would otherwise keep a message without the
   * state it follows). Replies need nothing: the runtime seals them behind the turn's writes.
   */
  private boolean holding() {
    return siteKind != OUTSIDE && !slots.isEmpty() && driver.holdSendsBehindState();
  }

  private void hold(NodeId to, Message message, KitFrame frame) {
    if (message != null) {
      types.idOf(message.getClass()); // the same check the channel makes
    }
    int before = 0;
    for (Held h : held) {
      before += h.to().equals(to) ? 1 : 0;
    }
    if (driver.room(to) <= before) {
      throw new BackPressureException("channel " + env.self() + " -> " + to + " is full with the " + before
          + " messages this turn holds until its slot writes; the peer is down or too slow: bring it back, slow the "
          + "workload, or raise limits.peerQueueMessagesMax");
    }
    held.add(new Held(to, message, frame));
  }

  // ---------------------------------------------------------------------------------------------
  // Timers

  @Override
  public Timer after(Duration delay, Runnable task) {
    return driver.schedule(Math.max(0, delay.toNanos()), () -> runEvent(TIMER, task));
  }

  /**
   * Runs {@code task} every {@code period}: the runs fall on multiples of the period on the driver's timer clock,
   * the first at least one period from now (one rule for both drivers; see {@link ServerContext#every}).
   */
  @Override
  public Timer every(Duration period, Runnable task) {
    long p = period.toNanos();
    Invariants.check(p > 0, "timer period must be positive, got %s", period);
    long first = p + Math.floorMod(-driver.timerNanos(), p);
    return driver.scheduleRepeating(first, p, () -> runEvent(PERIODIC, task));
  }

  private void runEvent(int kind, Runnable task) {
    enter(kind, -1, null);
    try {
      task.run();
    } catch (RuntimeException e) {
      driver.failed(kind == PERIODIC ? "periodic task" : kind == WAIT ? "wait action" : kind == OFFLOADED
          ? "offloaded computation" : "timer", e, null);
    }
    leave();
  }

  // ---------------------------------------------------------------------------------------------
  // Work off the loop, and its cost

  @Override
  @SuppressWarnings("unchecked")
  public <T> void offload(java.util.function.Supplier<T> work, java.util.function.Consumer<T> then) {
    java.util.Objects.requireNonNull(work, "work");
    java.util.Objects.requireNonNull(then, "then");
    Object[] result = new Object[1];
    RuntimeException[] error = new RuntimeException[1];
    driver.offload(() -> {
      try {
        result[0] = work.get();
      } catch (RuntimeException e) {
        error[0] = e;
      }
    }, () -> runEvent(OFFLOADED, () -> {
      if (error[0] != null) {
        throw error[0];
      }
      then.accept((T) result[0]);
    }));
  }

  @Override
  public void chargeMicros(long micros) {
    Invariants.check(micros >= 0, "a charge must be >= 0 µs, got %s", micros);
    driver.charge(micros);
  }

  // ---------------------------------------------------------------------------------------------
  // Waits

  @Override
  public Wait waitUntil(BooleanSupplier condition, Runnable action) {
    return waits.add(condition, null, action, null);
  }

  @Override
  public Wait waitUntil(BooleanSupplier condition, Duration timeout, Runnable action, Runnable onTimeout) {
    java.util.Objects.requireNonNull(timeout, "timeout");
    java.util.Objects.requireNonNull(onTimeout, "onTimeout");
    return waits.add(condition, timeout, action, onTimeout);
  }

  @Override
  public Wait waitUntilClock(long micros, Runnable action) {
    return waits.untilClock(micros, action);
  }

  // ---------------------------------------------------------------------------------------------
  // Calls and forwards (Calls, Forwards)

  @Override
  public <P extends Message> Call<P> call(NodeId to, Message request, Class<P> replyType, Duration timeout) {
    return calls.call(to, request, replyType, timeout);
  }

  @Override
  public <P extends Message> QuorumCall<P> callAll(Collection<NodeId> to, Message request, Class<P> replyType,
      int needed, Duration timeout) {
    return calls.callAll(to, request, replyType, needed, timeout);
  }

  @Override
  public <Q extends Message> void forward(NodeId to, Request<Q> request, Duration timeout) {
    forwards.forward(to, request, timeout);
  }

  // ---------------------------------------------------------------------------------------------
  // Slots

  @Override
  public <S extends Message> Slot<S> slot(S defaultInstance) {
    return slots.get(defaultInstance);
  }

  @Override
  public <S extends Message> SlotMap<S> slotMap(String name, S defaultInstance) {
    return slots.map(name, defaultInstance);
  }

  /** Whether an event is being dispatched (false for code run on the loop outside any, e.g. a test's). */
  boolean inEvent() {
    return siteKind != OUTSIDE;
  }
}
