package org.kvlab.host;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
  private static final int WAIT = 6;
  private static final int CALL = 7;
  private static final int CALL_REPLY = 8;
  private static final int FORWARDED = 9;
  private static final int FORWARD_REPLY = 10;
  private static final int CALLBACK = 11;
  private static final int PEER_RESTART = 12;

  private final HostDriver driver;
  private final HostDriver.Env env;
  private final MessageTypes types;
  private final String[] typeNames;
  private final long[] handled;
  private final Handlers.RequestHandler<?>[] requestHandlers;
  private final Handlers.RequestHandler<?>[] callHandlers;
  private final Handlers.MessageHandler<?>[] messageHandlers;
  private final List<Periodic> periodics = new ArrayList<>();
  private final long incarnation;
  private final long run;
  private Server<?> server;

  // The event being dispatched: its kind, message type (or -1) and sender (or null).
  private int siteKind;
  private int siteType = -1;
  private NodeId siteFrom;

  private final ArrayList<WaitImpl> waits = new ArrayList<>();
  private final ArrayList<Runnable> deferred = new ArrayList<>();
  private final HashMap<Long, Outstanding> outstanding = new HashMap<>();
  private final Map<NodeId, Long> peerIncarnations = new HashMap<>();
  private final Map<CallKey, RemoteRequest> unanswered = new HashMap<>(); // calls from others being handled here
  private long nextSeq = 1;
  private final Map<Class<?>, SlotImpl<?>> slots = new HashMap<>();
  private final ArrayList<SlotImpl<?>> dirty = new ArrayList<>();
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
      case CALL -> onCall(f, from);
      case FORWARD -> onForwarded(f, from);
      case CALL_REPLY, FORWARD_REPLY -> onAnswer(f, from);
      default -> throw new IllegalArgumentException("unknown kit frame " + f.kind());
    }
  }

  /**
   * The driver learnt that {@code peer} runs incarnation {@code incarnation} (the runtime from the peer's Welcome,
   * the simulator at its start): forwards it held from an earlier incarnation are answered unknown.
   */
  public void peerStarted(NodeId peer, long incarnation) {
    Long before = peerIncarnations.put(peer, incarnation);
    boolean restarted = before != null && before != incarnation;
    List<ForwardImpl> lost = null;
    for (Outstanding o : outstanding.values()) {
      if (o instanceof ForwardImpl f && f.to.equals(peer)) {
        if (f.targetIncarnation == 0) {
          f.targetIncarnation = incarnation;
        } else if (restarted && f.targetIncarnation != incarnation) {
          (lost == null ? lost = new ArrayList<>() : lost).add(f);
        }
      }
    }
    if (lost == null) {
      return;
    }
    lost.sort((a, b) -> Long.compare(a.seq, b.seq)); // deterministic order
    enter(PEER_RESTART, -1, peer);
    for (ForwardImpl f : lost) {
      outstanding.remove(f.seq);
      f.timer.cancel();
      try {
        f.original.unknown("server " + peer + " restarted (incarnation " + before + " -> " + incarnation
            + ") before answering the forwarded " + typeNames[f.original.type()] + "; it may have taken effect");
      } catch (RuntimeException e) {
        driver.failed("forward to " + peer, e, null);
      }
    }
    leave();
  }

  private void enter(int kind, int type, NodeId from) {
    siteKind = kind;
    siteType = type;
    siteFrom = from;
  }

  /** The end of an event: deferred callbacks, waits, slot writes, held sends; then the driver's hook. */
  private void leave() {
    if (!settling && (!deferred.isEmpty() || !waits.isEmpty() || !dirty.isEmpty() || !held.isEmpty())) {
      settle();
    }
    siteKind = OUTSIDE;
    siteFrom = null;
    driver.eventDone();
  }

  private void settle() {
    if (settling) {
      return;
    }
    settling = true;
    try {
      boolean progress = true;
      while (progress) {
        progress = false;
        while (!deferred.isEmpty()) {
          Runnable r = deferred.remove(0);
          enter(CALLBACK, -1, null);
          try {
            r.run();
          } catch (RuntimeException e) {
            driver.failed("call callback", e, null);
          }
          progress = true;
        }
        if (!waits.isEmpty() && checkWaits()) {
          progress = true;
        }
      }
      if (!dirty.isEmpty()) {
        for (SlotImpl<?> s : dirty) {
          s.write();
        }
        dirty.clear();
        driver.stateWritten();
      }
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
      default -> "outside any event";
    };
    return ANSWERS[how] + " " + where;
  }

  private String name(int t) {
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

  private void sendKit(NodeId to, KitFrame frame) {
    if (holding()) {
      hold(to, null, frame);
    } else {
      driver.sendKit(to, frame);
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
      driver.failed(kind == PERIODIC ? "periodic task" : kind == WAIT ? "wait action" : "timer", e, null);
    }
    leave();
  }

  // ---------------------------------------------------------------------------------------------
  // Waits

  @Override
  public Wait waitUntil(BooleanSupplier condition, Runnable action) {
    return waitFor(condition, null, action, null);
  }

  @Override
  public Wait waitUntil(BooleanSupplier condition, Duration timeout, Runnable action, Runnable onTimeout) {
    java.util.Objects.requireNonNull(timeout, "timeout");
    java.util.Objects.requireNonNull(onTimeout, "onTimeout");
    return waitFor(condition, timeout, action, onTimeout);
  }

  private Wait waitFor(BooleanSupplier condition, Duration timeout, Runnable action, Runnable onTimeout) {
    java.util.Objects.requireNonNull(condition, "condition");
    java.util.Objects.requireNonNull(action, "action");
    WaitImpl w = new WaitImpl(condition, action);
    if (condition.getAsBoolean()) {
      w.done = true;
      action.run(); // at once, inside the caller's event
      return w;
    }
    waits.add(w);
    if (timeout != null) {
      w.timer = after(timeout, () -> {
        if (!w.done) {
          w.done = true;
          onTimeout.run();
        }
      });
    }
    return w;
  }

  /** One pass over the waits in registration order; true if an action ran. No allocation when none holds. */
  private boolean checkWaits() {
    boolean ran = false;
    for (int i = 0; i < waits.size(); i++) {
      WaitImpl w = waits.get(i);
      if (w.done) {
        continue;
      }
      boolean holds;
      enter(WAIT, -1, null);
      try {
        holds = w.condition.getAsBoolean();
      } catch (RuntimeException e) {
        w.done = true;
        driver.failed("wait condition", e, null);
        continue;
      }
      if (holds) {
        w.done = true;
        if (w.timer != null) {
          w.timer.cancel();
        }
        ran = true;
        try {
          w.action.run();
        } catch (RuntimeException e) {
          driver.failed("wait action", e, null);
        }
      }
    }
    waits.removeIf(w -> w.done); // allocation-free when nothing is removed? removeIf allocates only a BitSet if needed
    return ran;
  }

  @Override
  public Wait waitUntilClock(long micros, Runnable action) {
    java.util.Objects.requireNonNull(action, "action");
    ClockWait w = new ClockWait(micros, action);
    long now = env.clock().micros();
    if (now >= micros) {
      w.done = true;
      action.run();
      return w;
    }
    w.arm(micros - now);
    return w;
  }

  private static final class WaitImpl implements Wait {
    final BooleanSupplier condition;
    final Runnable action;
    Timer timer;
    boolean done;

    WaitImpl(BooleanSupplier condition, Runnable action) {
      this.condition = condition;
      this.action = action;
    }

    @Override
    public void cancel() {
      if (!done) {
        done = true;
        if (timer != null) {
          timer.cancel();
        }
      }
    }

    @Override
    public boolean done() {
      return done;
    }
  }

  /** A wait on the node's clock: a timer for the remaining time, re-armed if the clock (its drift) fell short. */
  private final class ClockWait implements Wait {
    final long micros;
    final Runnable action;
    Timer timer;
    boolean done;

    ClockWait(long micros, Runnable action) {
      this.micros = micros;
      this.action = action;
    }

    void arm(long remainingMicros) {
      timer = after(Duration.ofNanos(Math.multiplyExact(remainingMicros, 1000L)), () -> {
        if (done) {
          return;
        }
        long now = env.clock().micros();
        if (now >= micros) {
          done = true;
          action.run();
        } else {
          arm(micros - now);
        }
      });
    }

    @Override
    public void cancel() {
      if (!done) {
        done = true;
        timer.cancel();
      }
    }

    @Override
    public boolean done() {
      return done;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Calls: the caller's side

  /** A call or forward of this node, waiting for its answer under its sequence number. */
  private abstract class Outstanding {
    final long seq;
    final NodeId to;
    Timer timer;

    Outstanding(long seq, NodeId to) {
      this.seq = seq;
      this.to = to;
    }

    abstract void answered(KitFrame f, NodeId from);
  }

  @Override
  public <P extends Message> Call<P> call(NodeId to, Message request, Class<P> replyType, Duration timeout) {
    CallImpl<P> c = newCall(to, request, replyType, timeout);
    c.send(true);
    return c;
  }

  private <P extends Message> CallImpl<P> newCall(NodeId to, Message request, Class<P> replyType, Duration timeout) {
    java.util.Objects.requireNonNull(to, "to");
    Invariants.check(!to.equals(env.self()), "server %s called itself (a call goes to another server)", to);
    Invariants.check(timeout != null && !timeout.isNegative() && !timeout.isZero(),
        "a call needs a positive timeout, got %s", timeout);
    types.idOf(request.getClass()); // registered types only, as send
    types.idOf(replyType);
    return new CallImpl<>(nextSeq++, to, request, replyType, timeout);
  }

  private final class CallImpl<P extends Message> extends Outstanding implements Call<P> {
    final Message request;
    final Class<P> replyType;
    final Duration timeout;
    java.util.function.Consumer<? super P> onReply;
    java.util.function.Consumer<? super org.kvlab.api.CallFailure> onFailure;
    boolean retry;
    boolean done;

    CallImpl(long seq, NodeId to, Message request, Class<P> replyType, Duration timeout) {
      super(seq, to);
      this.request = request;
      this.replyType = replyType;
      this.timeout = timeout;
    }

    /** Sends the request (again) and arms the timeout. */
    void send(boolean first) {
      if (first) {
        outstanding.put(seq, this);
      }
      timer = after(timeout, this::timedOut);
      try {
        sendKit(to, new KitFrame(KitFrame.Kind.CALL, run, seq, incarnation, request, null, false, false));
      } catch (BackPressureException e) {
        if (first) { // the callbacks are not set yet: decide after the caller's handler returns
          deferred.add(() -> {
            if (!done && !retry) {
              fail(org.kvlab.api.CallFailure.Kind.BACK_PRESSURE, e.getMessage());
            }
          });
        }
        // a resend that found the channel full waits for the next timeout
      }
    }

    private void timedOut() {
      if (done) {
        return;
      }
      if (retry) {
        env.metrics().count("kit.callRetries");
        send(false);
      } else {
        fail(org.kvlab.api.CallFailure.Kind.TIMEOUT, "no answer from " + to + " to " + request.getClass().getSimpleName()
            + " within " + timeout);
      }
    }

    @Override
    void answered(KitFrame f, NodeId from) {
      if (done) {
        return;
      }
      if (f.error() != null) {
        fail(f.unknown() ? org.kvlab.api.CallFailure.Kind.UNKNOWN : org.kvlab.api.CallFailure.Kind.FAILED,
            from + ": " + f.error());
      } else if (!replyType.isInstance(f.body())) {
        fail(org.kvlab.api.CallFailure.Kind.UNKNOWN, from + " answered " + f.body().getClass().getSimpleName()
            + " where " + replyType.getSimpleName() + " was expected");
      } else {
        end();
        if (onReply != null) {
          onReply.accept(replyType.cast(f.body()));
        }
      }
    }

    void fail(org.kvlab.api.CallFailure.Kind kind, String reason) {
      end();
      if (onFailure != null) {
        onFailure.accept(new org.kvlab.api.CallFailure(kind, reason));
      } else {
        env.metrics().count("kit.callFailures");
      }
    }

    private void end() {
      done = true;
      outstanding.remove(seq);
      if (timer != null) {
        timer.cancel();
      }
    }

    @Override
    public Call<P> onReply(java.util.function.Consumer<? super P> action) {
      this.onReply = action;
      return this;
    }

    @Override
    public Call<P> onFailure(java.util.function.Consumer<? super org.kvlab.api.CallFailure> action) {
      this.onFailure = action;
      return this;
    }

    @Override
    public Call<P> retryOnTimeout() {
      this.retry = true;
      return this;
    }

    @Override
    public void cancel() {
      if (!done) {
        end();
      }
    }

    @Override
    public boolean done() {
      return done;
    }
  }

  @Override
  public <P extends Message> QuorumCall<P> callAll(Collection<NodeId> to, Message request, Class<P> replyType,
      int needed, Duration timeout) {
    List<NodeId> targets = new ArrayList<>(new java.util.LinkedHashSet<>(to));
    if (needed < 0 || needed > targets.size()) {
      throw new IllegalArgumentException("callAll needs " + needed + " replies from " + targets.size()
          + " distinct servers: impossible. Fix: ask for between 0 and " + targets.size());
    }
    QuorumImpl<P> q = new QuorumImpl<>(targets.size(), needed);
    for (NodeId n : targets) {
      q.members.add(newCall(n, request, replyType, timeout));
    }
    for (CallImpl<P> m : q.members) {
      NodeId n = m.to;
      m.onReply(p -> q.replied(n, p)).onFailure(f -> q.memberFailed(n, f));
      m.send(true);
    }
    if (needed == 0) {
      deferred.add(q::complete); // never inside the handler that is still setting the callbacks
    }
    return q;
  }

  private final class QuorumImpl<P extends Message> implements QuorumCall<P> {
    final List<CallImpl<P>> members = new ArrayList<>();
    final int size;
    final int needed;
    final Map<NodeId, P> replies = new java.util.LinkedHashMap<>();
    int failed;
    boolean done;
    java.util.function.Consumer<? super Map<NodeId, P>> onQuorum;
    java.util.function.Consumer<? super org.kvlab.api.CallFailure> onFailure;

    QuorumImpl(int size, int needed) {
      this.size = size;
      this.needed = needed;
    }

    void replied(NodeId from, P reply) {
      if (done) {
        return;
      }
      replies.put(from, reply);
      if (replies.size() >= needed) {
        complete();
      }
    }

    void memberFailed(NodeId from, org.kvlab.api.CallFailure f) {
      if (done) {
        return;
      }
      if (f.kind() == org.kvlab.api.CallFailure.Kind.TIMEOUT) {
        end(new org.kvlab.api.CallFailure(f.kind(), replies.size() + " of " + needed + " replies within the timeout; "
            + f.reason()));
        return;
      }
      failed++;
      if (size - failed < needed) {
        end(new org.kvlab.api.CallFailure(f.kind(), "quorum of " + needed + " of " + size + " impossible: " + failed
            + " could not answer; the last: " + f.reason()));
      }
    }

    void complete() {
      if (done) {
        return;
      }
      stop();
      if (onQuorum != null) {
        onQuorum.accept(java.util.Collections.unmodifiableMap(replies));
      }
    }

    private void end(org.kvlab.api.CallFailure f) {
      stop();
      if (onFailure != null) {
        onFailure.accept(f);
      } else {
        env.metrics().count("kit.callFailures");
      }
    }

    private void stop() {
      done = true;
      for (CallImpl<P> m : members) {
        m.cancel();
      }
    }

    @Override
    public QuorumCall<P> onQuorum(java.util.function.Consumer<? super Map<NodeId, P>> action) {
      this.onQuorum = action;
      return this;
    }

    @Override
    public QuorumCall<P> onFailure(java.util.function.Consumer<? super org.kvlab.api.CallFailure> action) {
      this.onFailure = action;
      return this;
    }

    @Override
    public QuorumCall<P> retryOnTimeout() {
      for (CallImpl<P> m : members) {
        m.retryOnTimeout();
      }
      return this;
    }

    @Override
    public void cancel() {
      if (!done) {
        stop();
      }
    }

    @Override
    public boolean done() {
      return done;
    }

    @Override
    public Map<NodeId, P> replies() {
      return java.util.Collections.unmodifiableMap(replies);
    }
  }

  /** The answer to a call or forward of this node: matched by run and number, else dropped. */
  private void onAnswer(KitFrame f, NodeId from) {
    Outstanding o = f.run() == run ? outstanding.get(f.seq()) : null;
    if (o == null || !o.to.equals(from)
        || (f.kind() == KitFrame.Kind.CALL_REPLY) != (o instanceof CallImpl<?>)) {
      env.metrics().count("kit.staleAnswers"); // an earlier incarnation's, a cancelled or answered one
      driver.eventDone();
      return;
    }
    enter(o instanceof CallImpl<?> ? CALL_REPLY : FORWARD_REPLY, f.body() == null ? -1 : types.idOf(f.body().getClass()), from);
    try {
      o.answered(f, from);
    } catch (RuntimeException e) {
      driver.failed(o instanceof CallImpl<?> ? "call callback" : "forward answer", e, null);
    }
    leave();
  }

  // ---------------------------------------------------------------------------------------------
  // Calls: the callee's side

  /**
   * A call from another server: handled once while unanswered. A repeat of it (the same caller, run and number, e.g.
   * sent by {@code retryOnTimeout}) that arrives before the answer is dropped, so retries do not pile up waits here;
   * one that arrives after the answer is handled again, as a new call (the first answer may be lost with a crash of
   * either side; keeping every answer for such repeats would need a rule for when to forget it, and a call handler
   * must already be safe to run again, since a restarted callee forgets the calls it answered).
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private void onCall(KitFrame f, NodeId from) {
    int t = types.idOf(f.body().getClass());
    Handlers.RequestHandler handler = callHandlers[t];
    CallKey key = new CallKey(from, f.run(), f.seq());
    if (unanswered.containsKey(key)) {
      env.metrics().count("kit.repeatCallsDropped");
      driver.eventDone();
      return;
    }
    RemoteRequest req = new RemoteRequest(KitFrame.Kind.CALL_REPLY, from, f, t);
    unanswered.put(key, req);
    if (handler == null) {
      enter(CALL, t, from);
      req.fail("server " + env.self() + " has no call handler for " + typeNames[t]);
      leave();
      return;
    }
    handled[t]++;
    enter(CALL, t, from);
    try {
      handler.handle(req);
    } catch (RuntimeException e) {
      driver.failed("call handler of " + typeNames[t], e, req);
    }
    leave();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private void onForwarded(KitFrame f, NodeId from) {
    int t = types.idOf(f.body().getClass());
    Handlers.RequestHandler handler = requestHandlers[t];
    RemoteRequest req = new RemoteRequest(KitFrame.Kind.FORWARD_REPLY, from, f, t);
    enter(FORWARDED, t, from);
    if (handler == null) {
      req.fail("server " + env.self() + " has no handler for the forwarded request " + typeNames[t]);
    } else {
      handled[t]++;
      try {
        handler.handle(req);
      } catch (RuntimeException e) {
        driver.failed("handler of " + typeNames[t] + " forwarded by " + from, e, req);
      }
    }
    leave();
  }

  /** A call as its callee tells it apart from others: the caller, the caller's run and its number for the call. */
  private record CallKey(NodeId from, long run, long seq) {}

  /** A call from another server, or a client request it forwarded: answered by a kit frame back. */
  private final class RemoteRequest extends BaseHostRequest {
    final KitFrame.Kind answerKind;
    final NodeId from;
    final KitFrame asked;

    RemoteRequest(KitFrame.Kind answerKind, NodeId from, KitFrame asked, int type) {
      super(ProtocolHost.this, type, asked.body());
      this.answerKind = answerKind;
      this.from = from;
      this.asked = asked;
    }

    @Override
    public Optional<NodeId> from() {
      return answerKind == KitFrame.Kind.CALL_REPLY ? Optional.of(from) : Optional.empty();
    }

    @Override
    protected void deliver(Message reply, String error, boolean unknown, boolean overloaded) {
      if (answerKind == KitFrame.Kind.CALL_REPLY) {
        unanswered.remove(new CallKey(from, asked.run(), asked.seq()));
      }
      try {
        sendKit(from, new KitFrame(answerKind, asked.run(), asked.seq(), incarnation, reply, error, unknown, overloaded));
      } catch (BackPressureException e) {
        env.metrics().count("kit.answersDropped"); // the asking server's timeout answers for it
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Forwards

  @Override
  public <Q extends Message> void forward(NodeId to, Request<Q> request, Duration timeout) {
    if (!(request instanceof HostRequest original)) {
      throw new IllegalArgumentException("forward takes a request this server is handling, not a " + request.getClass()
          .getName());
    }
    Invariants.check(!to.equals(env.self()), "server %s forwarded a request to itself", to);
    Invariants.check(timeout != null && !timeout.isNegative() && !timeout.isZero(),
        "a forward needs a positive timeout, got %s", timeout);
    Invariants.check(!original.answered(), "forwarding request %s, which was answered already", name(original.type()));
    long seq = nextSeq++;
    Long known = peerIncarnations.get(to);
    ForwardImpl f = new ForwardImpl(seq, to, original, known == null ? 0 : known);
    try {
      sendKit(to, new KitFrame(KitFrame.Kind.FORWARD, run, seq, incarnation, original.body(), null, false, false));
    } catch (BackPressureException e) {
      original.fail("server " + env.self() + " could not forward " + name(original.type()) + " to " + to + ": "
          + e.getMessage());
      return;
    }
    outstanding.put(seq, f);
    f.timer = after(timeout, () -> {
      if (outstanding.remove(seq) != null) {
        original.unknown("no answer from " + to + " within " + timeout + " to the forwarded " + name(original.type())
            + "; it may still take effect");
      }
    });
  }

  private final class ForwardImpl extends Outstanding {
    final HostRequest original;
    long targetIncarnation; // 0: not known when it was sent

    ForwardImpl(long seq, NodeId to, HostRequest original, long targetIncarnation) {
      super(seq, to);
      this.original = original;
      this.targetIncarnation = targetIncarnation;
    }

    @Override
    void answered(KitFrame f, NodeId from) {
      outstanding.remove(seq);
      timer.cancel();
      if (f.error() == null) {
        original.reply(f.body());
      } else if (f.overloaded()) {
        original.refuseOverloaded(f.error());
      } else if (f.unknown()) {
        original.unknown(f.error());
      } else {
        original.fail(f.error());
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Slots

  @Override
  @SuppressWarnings("unchecked")
  public <S extends Message> Slot<S> slot(S defaultInstance) {
    SlotImpl<?> existing = slots.get(defaultInstance.getClass());
    if (existing != null) {
      return (Slot<S>) existing;
    }
    String name = "slot/" + defaultInstance.getDescriptorForType().getFullName();
    byte[] stored = driver.state().get(name);
    S value = defaultInstance;
    if (stored != null) {
      try {
        value = (S) defaultInstance.getParserForType().parseFrom(stored);
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalStateException("the stored slot " + name + " of server " + env.self()
            + " does not parse: " + e.getMessage() + ". Fix: a changed message type needs a fresh store", e);
      }
    }
    SlotImpl<S> s = new SlotImpl<>(name, value);
    slots.put(defaultInstance.getClass(), s);
    return s;
  }

  private final class SlotImpl<S extends Message> implements Slot<S> {
    final String name;
    S value;
    boolean isDirty;

    SlotImpl(String name, S value) {
      this.name = name;
      this.value = value;
    }

    @Override
    public S get() {
      return value;
    }

    @Override
    public void set(S v) {
      java.util.Objects.requireNonNull(v, "a slot's value");
      value = v;
      if (!isDirty) {
        isDirty = true;
        dirty.add(this);
        if (siteKind == OUTSIDE) { // set outside any event (a test on the loop): write now
          settle();
        }
      }
    }

    void write() {
      isDirty = false;
      driver.state().put(name, value.toByteArray());
    }
  }
}
