package org.kvlab.runtime;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.kvlab.api.Client;
import org.kvlab.api.ClientContext;
import org.kvlab.api.Clock;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.NodeId;
import org.kvlab.api.OperationException;
import org.kvlab.api.Params;
import org.kvlab.api.Protocol;
import org.kvlab.api.Session;
import org.kvlab.api.Topology;
import org.kvlab.clock.PhysicalClock;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Hello;
import org.kvlab.wire.Reply;
import org.kvlab.wire.Role;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side of the real runtime: one per client process. It keeps one connection per server,
 * shared by all sessions and pipelined with request ids, and runs each {@link Session} on one of its
 * event loop threads. Thread-safe.
 */
public final class ClientRuntime implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClientRuntime.class);
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  private final ClusterConfig config;
  private final Protocol protocol;
  private final MessageTypes types;
  private final Transport transport;
  private final EventLoopGroup group;
  /**
   * One connection per (server, client event loop): a session's requests are written and its replies
   * completed on the session's own thread, with no hand-off between threads (the RPC benchmark showed
   * the hand-offs cost 20-40% of the throughput of a single session).
   */
  private final ConcurrentHashMap<ConnectionKey, Connection> connections = new ConcurrentHashMap<>();
  private final EventLoop toolLoop;

  private record ConnectionKey(NodeId server, EventLoop loop) {}
  private final Clock clock = PhysicalClock.system();
  private final AtomicLong sessions = new AtomicLong();
  private volatile boolean closed;
  private volatile org.kvlab.history.History.Recorder recorder;

  /**
   * Records every operation of sessions opened from now on into {@code recorder} (the simulator's
   * history format), so the consistency checkers can judge a real run. Pass null to stop.
   */
  public void recordHistory(org.kvlab.history.History.Recorder recorder) {
    this.recorder = recorder;
  }

  /**
   * A client runtime with {@code threads} event loops on the transport this JVM's {@value Transport#PROPERTY} names
   * ({@link Transport#configured()}; an unknown value is an {@link IllegalArgumentException} naming the fix).
   */
  public ClientRuntime(ClusterConfig config, Protocol protocol, int threads) {
    this(config, protocol, threads, Transport.configured());
  }

  ClientRuntime(ClusterConfig config, Protocol protocol, int threads, Transport transport) {
    this.config = config;
    this.protocol = protocol;
    this.types = protocol.messages();
    this.transport = transport;
    this.group = transport.newGroup(threads, new DefaultThreadFactory("kvlab-client", true));
    this.toolLoop = group.next();
    LOG.debug("client runtime: {} event loop(s), transport {}", threads, transport);
  }

  public ClientRuntime(ClusterConfig config, Protocol protocol) {
    this(config, protocol, defaultThreads());
  }

  /**
   * One client event loop per two cores (at most 4): the callers' threads and the kernel need the rest, and
   * fewer loops batch more requests per write. On 2 cores with 30 blocking sessions, 1 loop gave 105k ops/s
   * against 96k with 2 (RpcBenchmark, one Eventual server; docs/benchmarks/rpc.md).
   */
  public static int defaultThreads() {
    return Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));
  }

  public ClusterConfig config() {
    return config;
  }

  public Protocol protocol() {
    return protocol;
  }

  /** A new session attached to datacenter {@code dc}, with the default 10 s operation timeout. */
  public Session openSession(int dc) {
    return openSession(dc, DEFAULT_TIMEOUT);
  }

  public Session openSession(int dc, Duration timeout) {
    if (dc < 0 || dc >= config.topology().datacenters()) {
      throw new IllegalArgumentException("datacenter " + dc + " does not exist: cluster '" + config.name() + "' has "
          + config.topology().datacenters() + " (0.." + (config.topology().datacenters() - 1) + ")");
    }
    EventLoop thread = group.next();
    Client client = protocol.newClient();
    long n = sessions.incrementAndGet();
    SessionContext ctx = new SessionContext(dc, thread, new Random(System.nanoTime() ^ n),
        LoggerFactory.getLogger("kvlab." + protocol.name() + ".client"));
    try {
      CompletableFuture.runAsync(() -> client.bind(ctx), thread).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new OperationException("cannot start a " + protocol.name() + " session: " + e, e);
    }
    return new Session(client, thread, timeout, protocol.name(), null, recorder, (int) n, dc, ctx::moveTo,
        thread::inEventLoop);
  }

  /**
   * Sends one raw protocol request outside any session (tools and tests); the future completes on a
   * client event loop thread.
   */
  public <R extends Message> CompletableFuture<R> call(NodeId server, Message request, Class<R> replyType) {
    CompletableFuture<R> result = new CompletableFuture<>();
    connection(server, toolLoop).call(request, replyType, result, Runnable::run);
    return result;
  }

  private Connection connection(NodeId server, EventLoop loop) {
    return connections.computeIfAbsent(new ConnectionKey(server, loop), k -> new Connection(config.server(server), loop));
  }

  private final class SessionContext implements ClientContext {
    private int dc; // session thread only (Session.moveTo runs moveTo there)
    private final EventLoop thread;
    private final Random random;
    private final Logger log;
    /**
     * The connections this session used, by server (session thread only): a lookup without the runtime map's key
     * object per call. The runtime keeps every connection it made for its whole life, so an entry never goes stale.
     */
    private final java.util.HashMap<NodeId, Connection> used = new java.util.HashMap<>();

    SessionContext(int dc, EventLoop thread, Random random, Logger log) {
      this.dc = dc;
      this.thread = thread;
      this.random = random;
      this.log = log;
    }

    @Override
    public int dc() {
      return dc;
    }

    void moveTo(int to) {
      if (to < 0 || to >= config.topology().datacenters()) {
        throw new org.kvlab.api.OperationException("datacenter " + to + " does not exist: cluster '" + config.name()
            + "' has " + config.topology().datacenters() + " (0.." + (config.topology().datacenters() - 1) + ")");
      }
      dc = to;
    }

    @Override
    public Topology topology() {
      return config.topology();
    }

    @Override
    public Params params() {
      return config.params();
    }

    @Override
    public <R extends Message> CompletableFuture<R> call(NodeId server, Message request, Class<R> replyType) {
      CompletableFuture<R> result = new CompletableFuture<>();
      if (closed) {
        result.completeExceptionally(new OperationException("client runtime closed"));
        return result;
      }
      Connection c;
      if (thread.inEventLoop()) {
        c = used.get(server);
        if (c == null) {
          c = connection(server, thread);
          used.put(server, c);
        }
      } else {
        c = connection(server, thread);
      }
      c.call(request, replyType, result, thread);
      return result;
    }

    @Override
    public Clock clock() {
      return clock;
    }

    @Override
    public Random random() {
      return random;
    }

    @Override
    public Logger log() {
      return log;
    }
  }

  /** An outstanding request. */
  private record Pending(Class<? extends Message> replyType, CompletableFuture<Message> future, Executor session) {}

  /** A reply frame the connection's decoder parsed in place ({@link Wire.FrameDecoder#parseReplies}). */
  private record ParsedReply(long id, int type, Message body) {}

  /** The connection to one server, opened on first use and reopened after it breaks. */
  private final class Connection {
    private final ServerSpec spec;
    private final EventLoop loop;
    private final ConcurrentHashMap<Long, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private CompletableFuture<Channel> ready; // guarded by this
    /** The channel of {@link #ready} once it is open: requests are written to it without taking the lock. */
    private volatile Channel channel;

    Connection(ServerSpec spec, EventLoop loop) {
      this.spec = spec;
      this.loop = loop;
    }

    private synchronized CompletableFuture<Channel> ready() {
      if (ready == null || ready.isCompletedExceptionally()
          || (ready.isDone() && !ready.join().isActive())) {
        channel = null;
        ready = open();
        ready.thenAccept(ch -> channel = ch);
      }
      return ready;
    }

    private CompletableFuture<Channel> open() {
      CompletableFuture<Channel> opened = new CompletableFuture<>();
      Bootstrap b = transport.applyTo(new Bootstrap().group(loop))
          .option(ChannelOption.TCP_NODELAY, true)
          .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 3000)
          .handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
              Wire.install(ch.pipeline(), config.limits().frameBytesMax(), "client")
                  .parseReplies(Connection.this::replyParser, ParsedReply::new);
              ch.pipeline().addLast(new Handler(opened));
            }
          });
      b.connect(spec.host(), spec.port()).addListener(f -> {
        if (!f.isSuccess()) {
          opened.completeExceptionally(new OperationException("cannot reach server " + spec.id() + " at "
              + spec.host() + ":" + spec.port() + " (" + f.cause().getMessage() + "): is the cluster running? "
              + "Check with ./kvlab local status"));
        }
      });
      return opened;
    }

    @SuppressWarnings("unchecked")
    void call(Message request, Class<? extends Message> replyType, CompletableFuture<? extends Message> result,
        Executor session) {
      int type;
      try {
        type = types.idOf(request.getClass());
      } catch (IllegalArgumentException e) {
        result.completeExceptionally(new OperationException(e.getMessage()));
        return;
      }
      if (pending.size() >= config.limits().clientRequestsInFlightMax()) {
        result.completeExceptionally(new org.kvlab.api.OverloadedException("too many requests in flight to server " + spec.id()
            + " (limits.clientRequestsInFlightMax = " + config.limits().clientRequestsInFlightMax() + ")"));
        return;
      }
      long id = ids.incrementAndGet();
      CompletableFuture<Message> f = (CompletableFuture<Message>) result;
      pending.put(id, new Pending(replyType, f, session));
      Wire.RequestFrame frame = new Wire.RequestFrame(id, type, request);
      Channel open = channel;
      if (open != null && open.isActive()) {
        write(open, frame, id); // the common case: no lock, no future to chain on
      } else {
        ready().whenComplete((ch, err) -> {
          if (err != null) {
            Pending p = pending.remove(id);
            if (p != null) {
              completeExceptionally(p, err instanceof OperationException ? err : new OperationException(err.getMessage(), err));
            }
            return;
          }
          write(ch, frame, id);
        });
      }
      // Forget requests whose caller gave up (timeouts cancel the future).
      f.whenComplete((r, e) -> {
        if (e != null) {
          pending.remove(id);
        }
      });
    }

    private void write(Channel ch, Wire.RequestFrame frame, long id) {
      ch.writeAndFlush(frame).addListener(w -> {
        if (!w.isSuccess()) {
          Pending p = pending.remove(id);
          if (p != null) {
            // Part of the frame may have left: the server may have the request.
            completeExceptionally(p, OperationException.unknown("sending to server " + spec.id() + " failed: "
                + w.cause().getMessage(), w.cause()));
          }
        }
      });
    }

    private void completeExceptionally(Pending p, Throwable t) {
      p.session().execute(() -> p.future().completeExceptionally(t));
    }

    /**
     * The parser of reply type {@code t}'s bodies, or null if the protocol has no such type: what the connection's
     * decoder parses plain replies with ({@link Wire.FrameDecoder#parseReplies}).
     */
    private com.google.protobuf.Parser<? extends Message> replyParser(int t) {
      return t >= 0 && t < types.size() ? types.parser(t) : null;
    }

    private final class Handler extends SimpleChannelInboundHandler<Object> {
      private final CompletableFuture<Channel> opened;
      private Hello hello;

      Handler(CompletableFuture<Channel> opened) {
        this.opened = opened;
      }

      @Override
      public void channelActive(ChannelHandlerContext ctx) {
        hello = Hello.newBuilder()
            .setRole(Role.CLIENT)
            .setCluster(config.name())
            .setProtocol(protocol.name())
            .setFingerprint(types.fingerprint())
            .setNonce(Handshake.nonce()).build();
        ctx.writeAndFlush(Frame.newBuilder().setHello(hello).build());
      }

      @Override
      protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ParsedReply r) { // a plain reply, its body parsed by the decoder
          Pending p = pending.remove(r.id());
          if (p != null) {
            complete(p, r.body());
          }
          return;
        }
        Frame frame = (Frame) msg;
        if (frame.hasReply()) {
          onReply(frame.getReply());
        } else if (frame.hasChallenge()) {
          ClientHandshake.answer(ctx, config, spec, hello, frame.getChallenge(), opened);
        } else if (frame.hasWelcome()) {
          if (frame.getWelcome().getError().isEmpty()) {
            opened.complete(ctx.channel());
          } else {
            opened.completeExceptionally(new OperationException("server " + spec.id() + " refused the connection: "
                + Wire.printable(frame.getWelcome().getError())));
            ctx.close();
          }
        } else if (!frame.hasPong()) {
          LOG.warn("closing connection to {}: unexpected {} frame", spec.id(), Wire.kind(frame));
          ctx.close();
        }
      }

      private void onReply(Reply reply) {
        Pending p = pending.remove(reply.getId());
        if (p == null) {
          return; // timed out and forgotten
        }
        if (!reply.getError().isEmpty()) {
          completeExceptionally(p, reply.getOverloaded() ? new org.kvlab.api.OverloadedException(reply.getError())
              : reply.getOutcomeUnknown() ? OperationException.unknown(reply.getError())
              : new OperationException(reply.getError()));
          return;
        }
        Message body;
        try {
          body = types.parse(reply.getType(), reply.getBody());
        } catch (InvalidProtocolBufferException e) {
          // The server handled the request; what it did is unknown.
          completeExceptionally(p, OperationException.unknown("malformed reply from server " + spec.id() + ": "
              + e.getMessage()));
          return;
        }
        complete(p, body);
      }

      private void complete(Pending p, Message body) {
        if (!p.replyType().isInstance(body)) {
          completeExceptionally(p, OperationException.unknown("server " + spec.id() + " answered "
              + body.getClass().getSimpleName() + " where " + p.replyType().getSimpleName() + " was expected"));
          return;
        }
        if (p.session() instanceof EventLoop el && el.inEventLoop()) {
          p.future().complete(body);
        } else {
          p.session().execute(() -> p.future().complete(body));
        }
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        opened.completeExceptionally(new OperationException("server " + spec.id() + " closed the connection"));
        for (Long id : pending.keySet()) {
          Pending p = pending.remove(id);
          if (p != null) {
            completeExceptionally(p, OperationException.unknown("connection to server " + spec.id() + " at " + spec.host()
                + ":" + spec.port() + " lost; the operation may or may not have taken effect"));
          }
        }
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!closed) {
          LOG.warn("closing connection to server {}: {}", spec.id(), Wire.reason(cause));
        }
        ctx.close();
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}
