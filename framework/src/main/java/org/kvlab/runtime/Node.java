package org.kvlab.runtime;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.BindException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.kvlab.api.Clock;
import org.kvlab.api.Invariants;
import org.kvlab.api.Invariants.InvariantViolation;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.NodeId;
import org.kvlab.api.Protocol;
import org.kvlab.api.Server;
import org.kvlab.api.Timer;
import org.kvlab.clock.PhysicalClock;
import org.kvlab.host.HostDriver;
import org.kvlab.host.HostRequest;
import org.kvlab.host.KitFrame;
import org.kvlab.host.ProtocolHost;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.Limits;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.config.ClusterSecret;
import org.kvlab.store.ChannelLog;
import org.kvlab.store.Durability;
import org.kvlab.store.KitState;
import org.kvlab.store.Stores;
import org.kvlab.store.VersionedStore;
import org.kvlab.wire.Data;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Kit;
import org.kvlab.wire.PeerStatus;
import org.kvlab.wire.Reply;
import org.kvlab.wire.Status;
import org.kvlab.wire.Welcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server node of the real runtime. Everything of the node — its listening socket, its accepted
 * connections, its outgoing peer channels, its timers and every protocol handler — runs on one Netty
 * event loop thread, so protocol code needs no locks and a handler runs inline when its frame arrives.
 *
 * <p>A malformed, oversized or out-of-place frame closes only the connection that sent it, with a logged
 * reason. A failed {@link Invariants invariant} in protocol code halts the node (it is a bug).
 *
 * <p>Peers and control tools are admitted only after they proved knowledge of the cluster secret
 * ({@link Handshake}); clients too when the cluster has a client token. Until its handshake is done a
 * connection may send frames of at most {@link Limits#HANDSHAKE_FRAME_BYTES_MAX} bytes and must finish
 * within {@code limits.handshakeMillis}; client connections idle for {@code limits.clientIdleSeconds}
 * are closed.
 */
public final class Node implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Node.class);
  /** Refusals of the same host for the same reason: logged once a minute (a misconfigured peer retries every second). */
  final RepeatLimiter refusalLog = new RepeatLimiter(java.util.concurrent.TimeUnit.MINUTES.toNanos(1), 1024);
  private static final long DRAIN_MILLIS_MAX = 3000;

  final ClusterConfig config;
  final NodeId id;
  final Protocol protocol;
  final ClusterSecret secret;
  final ClusterSecret clientKey; // null: clients need no token
  final MessageTypes types;
  private final Transport transport;
  private final EventLoopGroup group;
  final EventLoop loop;
  private final VersionedStore<Message> store;
  final SyncBarrier sync;
  final ChannelLog channelLog; // null unless durability sync: durable channels
  private final Server<?> server;
  private final Clock clock;
  private final Random random;
  final NodeMetrics metrics = new NodeMetrics();
  final PartialFrames partialFrames;
  private final Logger protocolLog;
  private final long incarnation;
  private final long startedMillis = System.currentTimeMillis();
  private final Map<NodeId, PeerLink> links = new TreeMap<>();
  final Map<NodeId, InboundChannel> inbound = new HashMap<>();
  private final KitState kitState;
  final ProtocolHost host;
  final List<Channel> clients = new ArrayList<>();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private Channel listener;
  private volatile boolean closing;
  /** The worker that runs the protocol's offloaded computations ({@code ServerContext.offload}); made on first use. */
  private java.util.concurrent.ExecutorService offloadWorker;


  /**
   * Acknowledgements are coalesced: a receiver acknowledges a channel at most every ACK_DELAY_MILLIS,
   * or at once when ackBatch messages await one (so a sender's queue, bounded by
   * limits.peerQueueMessagesMax, never fills for want of an ack). An ack only lets the sender forget
   * messages, so delaying it costs the sender memory, never a guarantee (unacknowledged messages are
   * resent after a reconnect and the receiver drops duplicates).
   */
  static final long ACK_DELAY_MILLIS = 50;
  final long ackBatch;
  /** Connections written to in this event-loop turn and not yet flushed (see {@link #flushSoon}). */
  private final List<Channel> toFlush = new ArrayList<>();
  private boolean flushScheduled;
  private final Runnable flushAll = this::flushAll;

  private Node(ClusterConfig config, NodeId id, Protocol protocol, ClusterSecret secret, Transport transport) {
    this.config = config;
    this.transport = transport;
    this.id = id;
    this.protocol = protocol;
    this.secret = java.util.Objects.requireNonNull(secret, "secret");
    this.clientKey = config.security().clientKey();
    this.types = protocol.messages();
    this.ackBatch = Math.max(1, Math.min(1024, config.limits().peerQueueMessagesMax() / 4));
    this.partialFrames = new PartialFrames(config.limits().partialFrameBytesMax(), config.limits().frameBytesMax(),
        id.toString(), metrics);
    this.group = transport.newGroup(1, new DefaultThreadFactory("kvlab-node-" + id, true));
    this.loop = group.next();
    this.clock = new PhysicalClock(config.emulation().skewMillisOf(id));
    this.random = new Random(System.nanoTime() ^ ((long) id.hashCode() << 32));
    long freshIncarnation = System.currentTimeMillis() * 1000 + random.nextInt(1000);
    long kitIncarnation;
    this.protocolLog = LoggerFactory.getLogger("kvlab." + protocol.name() + "." + id);
    @SuppressWarnings("unchecked")
    VersionedStore<Message> opened = (VersionedStore<Message>) Stores.open(protocol.record(), config.storage(), config.name(), id);
    boolean durable = config.storage().durability() == Durability.SYNC;
    try {
      // Durable channels: the store's engine keeps the channel state, so one group fsync covers both.
      this.channelLog = durable ? Stores.channelLog(opened).orElseThrow(() -> new IllegalStateException(
          "durability sync needs a store that can keep channel state; " + opened + " cannot")) : null;
      this.incarnation = channelLog == null ? freshIncarnation : channelLog.incarnation(() -> freshIncarnation);
      if (channelLog != null) {
        recoverInbound();
      }
      this.kitState = KitState.of(opened);
      kitIncarnation = KitState.nextIncarnation(kitState);
      opened.sync(); // the count is durable before any id of this incarnation is used
    } catch (RuntimeException e) {
      opened.close();
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      throw e;
    }
    this.sync = durable ? new SyncBarrier(opened, loop, id.toString(), this::fatal) : null;
    this.store = sync == null ? opened : new CountingStore(opened, sync);
    // The run tag of this start's calls and forwards: random, since a store kept in memory starts every run at
    // incarnation 1 and a peer may still resend an answer to the run before.
    this.host = new ProtocolHost(new Driver(), new HostDriver.Env(id, config.topology(), config.params(), clock, random,
        store, metrics, protocolLog), types, kitIncarnation, random.nextLong() | 1);
    this.server = protocol.newServer();
  }

  /**
   * Durable channels: what this node delivered from each sender before it stopped, so that it answers a
   * returning sender's Welcome with the right number and drops what it already delivered.
   */
  private void recoverInbound() {
    for (Map.Entry<String, ChannelLog.Delivered> e : channelLog.deliveredMarkers().entrySet()) {
      NodeId sender;
      try {
        sender = NodeId.parse(e.getKey());
      } catch (IllegalArgumentException ex) {
        continue;
      }
      if (sender.equals(id) || config.servers().stream().noneMatch(s -> s.id().equals(sender))) {
        continue; // no longer a server of the cluster
      }
      InboundChannel state = new InboundChannel();
      state.known = true;
      state.incarnation = e.getValue().incarnation();
      state.delivered = e.getValue().seq();
      state.persisted = state.delivered;
      inbound.put(sender, state);
    }
  }

  /**
   * Starts node {@code id} of {@code config} with the cluster's secret ({@code config.security()}: the
   * in-memory one, or the secret file, created if it does not exist yet). See
   * {@link #start(ClusterConfig, NodeId, Protocol, ClusterSecret)}.
   */
  public static Node start(ClusterConfig config, NodeId id, Protocol protocol) throws StartException {
    return start(config, id, protocol, secretOf(config, id));
  }

  /** As {@link #start(ClusterConfig, NodeId, Protocol)} on the given transport ({@link LocalCluster}, tests). */
  static Node start(ClusterConfig config, NodeId id, Protocol protocol, Transport transport) throws StartException {
    return start(config, id, protocol, secretOf(config, id), null, transport);
  }

  private static ClusterSecret secretOf(ClusterConfig config, NodeId id) throws StartException {
    try {
      return config.security().loadOrCreate();
    } catch (ClusterSecret.SecretException e) {
      throw new StartException("server " + id + ": " + e.getMessage(), e);
    }
  }

  /**
   * Starts node {@code id} of {@code config}: opens its store, listens on its host and port, connects to
   * every other server, and starts the protocol. Peers and control tools must prove they know
   * {@code secret}. Throws {@link StartException} with a readable cause.
   */
  public static Node start(ClusterConfig config, NodeId id, Protocol protocol, ClusterSecret secret)
      throws StartException {
    return start(config, id, protocol, secret, null);
  }

  /**
   * As {@link #start(ClusterConfig, NodeId, Protocol, ClusterSecret)}, listening on {@code listenHost} instead of
   * the server's host in the cluster file when it is not null: for a host whose cluster-file address is on none
   * of its interfaces (an EC2 instance's public address). Peers and clients still dial the cluster file's address.
   */
  public static Node start(ClusterConfig config, NodeId id, Protocol protocol, ClusterSecret secret, String listenHost)
      throws StartException {
    Transport transport;
    try {
      transport = Transport.configured(true);
    } catch (IllegalArgumentException e) {
      throw new StartException("server " + id + ": " + e.getMessage(), e);
    }
    return start(config, id, protocol, secret, listenHost, transport);
  }

  /** As {@link #start(ClusterConfig, NodeId, Protocol, ClusterSecret, String)} on the given transport (tests). */
  static Node start(ClusterConfig config, NodeId id, Protocol protocol, ClusterSecret secret, String listenHost,
      Transport transport) throws StartException {
    ServerSpec listed = config.server(id);
    ServerSpec spec = listenHost == null ? listed : new ServerSpec(listed.id(), listenHost, listed.port());
    Node node;
    try {
      node = new Node(config, id, protocol, secret, transport);
    } catch (RuntimeException e) {
      throw new StartException("server " + id + ": cannot open storage in " + config.storage().dirOf(config.name(), id)
          + ": " + e.getMessage() + ". Fix: check the directory is writable and not used by another running server", e);
    }
    try {
      node.runOnLoop(node::bindProtocol).get(10, TimeUnit.SECONDS);
      node.listen(spec);
      node.runOnLoop(node::startProtocol).get(10, TimeUnit.SECONDS);
    } catch (StartException e) {
      node.close();
      throw e;
    } catch (ExecutionException e) {
      node.close();
      throw new StartException("server " + id + ": protocol " + protocol.name() + " failed to start: " + e.getCause(), e.getCause());
    } catch (InterruptedException | TimeoutException e) {
      node.close();
      throw new StartException("server " + id + ": start interrupted or timed out", e);
    }
    return node;
  }

  private void bindProtocol() {
    host.bind(server);
  }

  private void listen(ServerSpec spec) throws StartException {
    ServerBootstrap b = transport.applyTo(new ServerBootstrap().group(group))
        .option(ChannelOption.SO_REUSEADDR, true)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            Wire.FrameDecoder decoder = Wire.install(ch.pipeline(), config.limits().frameBytesMax(), id.toString(),
                metrics::count);
            decoder.limit(Limits.HANDSHAKE_FRAME_BYTES_MAX, "the limit of " + Limits.HANDSHAKE_FRAME_BYTES_MAX
                + " bytes before the handshake is done");
            decoder.budget(partialFrames);
            ch.pipeline().addLast(new InboundConnection(Node.this, decoder));
          }
        });
    ChannelFuture bound = b.bind(spec.host(), spec.port()).awaitUninterruptibly();
    if (!bound.isSuccess()) {
      Throwable cause = bound.cause();
      String why = cause instanceof BindException ? cause.getMessage() : String.valueOf(cause);
      throw new StartException("server " + id + ": cannot listen on " + spec.host() + ":" + spec.port() + ": " + why
          + ". Fix: stop whatever uses that port (another kvlab cluster? try ./kvlab local down) or change the port "
          + "in " + config.source(), cause);
    }
    listener = bound.channel();
  }

  private void startProtocol() {
    for (ServerSpec other : config.servers()) {
      if (!other.id().equals(id)) {
        long delay = config.emulation().oneWayDelayMillis(id.dc(), other.id().dc());
        PeerLink link = new PeerLink(this, other.id(), other, delay, config.limits().peerQueueMessagesMax());
        links.put(other.id(), link);
        link.connect();
      }
    }
    host.start();
    LOG.info("server {} ({}) listening on {} ({})", id, protocol.name(), listener.localAddress(), transport);
    long direct = io.netty.util.internal.PlatformDependent.maxDirectMemory();
    if (partialFrames.max() > direct / 2) {
      LOG.warn("server {}: partly received frames may hold {} bytes (limits.partialFrameBytesMax, at least "
          + "limits.frameBytesMax + 4), more than half of this JVM's direct memory limit ({} bytes): a flood of large "
          + "frames can exhaust it. Fix: lower limits.partialFrameBytesMax or raise -XX:MaxDirectMemorySize (or -Xmx)",
          id, partialFrames.max(), direct);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Accessors used by PeerLink and tests

  public NodeId id() {
    return id;
  }

  public ClusterConfig config() {
    return config;
  }

  Protocol protocol() {
    return protocol;
  }

  MessageTypes types() {
    return types;
  }

  /**
   * Flushes {@code ch} at the end of this event-loop turn: everything written to one connection during a
   * turn (messages of several timers or handlers, an ack) goes out in one write system call. Event loop only.
   */
  void flushSoon(Channel ch) {
    if (!toFlush.contains(ch)) { // a handful of connections at most
      toFlush.add(ch);
    }
    if (!flushScheduled) {
      flushScheduled = true;
      loop.execute(flushAll);
    }
  }

  /** Whether {@code ch} was written to in this turn and waits for its end-of-turn flush. Event loop only. */
  boolean flushPending(Channel ch) {
    return flushScheduled && toFlush.contains(ch);
  }

  private void flushAll() {
    flushScheduled = false;
    Channel[] chs = toFlush.toArray(new Channel[0]);
    toFlush.clear();
    for (Channel ch : chs) {
      ch.flush();
    }
  }

  EventLoop loop() {
    return loop;
  }

  /** The network transport of this node's listener, connections and peer links. */
  Transport transport() {
    return transport;
  }

  boolean closing() {
    return closing;
  }

  long incarnation() {
    return incarnation;
  }

  /** The cluster secret peers prove to each other. */
  ClusterSecret secret() {
    return secret;
  }

  /** The durable channel log, or null unless durability is sync. */
  ChannelLog channelLog() {
    return channelLog;
  }

  /** The group-commit barrier, or null unless durability is sync. */
  SyncBarrier syncBarrier() {
    return sync;
  }

  /** The outgoing channel to {@code peer} (tests; call only from the event loop). */
  PeerLink link(NodeId peer) {
    return links.get(peer);
  }

  public NodeMetrics metrics() {
    return metrics;
  }

  /** Completes when the node has stopped; exceptionally if it halted on an error. */
  public CompletableFuture<Void> terminated() {
    return terminated;
  }

  /** Runs {@code task} on the node's event loop (tests inspect protocol state this way). */
  public CompletableFuture<Void> runOnLoop(Runnable task) {
    return CompletableFuture.runAsync(task, loop);
  }

  /** Runs {@code task} on the node's event loop and waits for its result (tests). */
  public <T> T runOnLoopGet(java.util.function.Supplier<T> task) throws Exception {
    return CompletableFuture.supplyAsync(task, loop).get(10, TimeUnit.SECONDS);
  }

  /** The store, for tests; call only from {@link #runOnLoop}. */
  public VersionedStore<Message> store() {
    return store;
  }

  /**
   * Test hook: closes every peer connection of this node once, outgoing and incoming; the channels
   * reconnect and resend what was not acknowledged.
   */
  public CompletableFuture<Void> dropPeerConnections() {
    return runOnLoop(() -> {
      links.values().forEach(PeerLink::disconnect);
      inbound.values().forEach(s -> {
        if (s.channel != null) {
          s.channel.close();
        }
      });
    });
  }

  /** A snapshot of the node's status, taken on its event loop. */
  public CompletableFuture<Status> status() {
    return CompletableFuture.supplyAsync(this::statusNow, loop);
  }

  Status statusNow() {
    Status.Builder s = Status.newBuilder()
        .setNode(id.toString())
        .setCluster(config.name())
        .setProtocol(protocol.name())
        .setPeersExpected(links.size())
        .setClients(clients.size())
        .setUptimeMillis(System.currentTimeMillis() - startedMillis)
        .setDurability(config.storage().durability().name().toLowerCase(java.util.Locale.ROOT))
        .setRepliesWaitingForSync(sync == null ? 0 : sync.waiting())
        .setPid(ProcessHandle.current().pid())
        .setPartialFrameBytes(partialFrames.held())
        .setDirectMemoryBytes(directMemoryBytes());
    int connected = 0;
    for (PeerLink link : links.values()) {
      connected += link.connected() ? 1 : 0;
      s.addPeers(PeerStatus.newBuilder().setNode(link.peer().toString()).setConnected(link.connected())
          .setRttMillis(Double.isNaN(link.rttMillis()) ? -1 : link.rttMillis()).setQueued(link.queued()));
    }
    s.setPeersConnected(connected);
    long[] handled = host.handled();
    for (int i = 0; i < handled.length; i++) {
      if (handled[i] > 0) {
        s.putOperations(host.typeName(i), handled[i]);
      }
    }
    metrics.counters().forEach(s::putOperations);
    metrics.encodedHistograms().forEach((k, v) -> s.putHistograms(k, ByteString.copyFrom(v)));
    try {
      String role = server.role();
      if (role != null) {
        s.setRole(role);
      }
    } catch (RuntimeException e) {
      s.setRole("? (" + e + ")"); // a status is still given; the protocol's fault is shown where it is asked for
    }
    return s.build();
  }

  /** Direct memory in use in this JVM: Java's direct buffers (Netty's, by default) and Netty's own if it counts them. */
  static long directMemoryBytes() {
    long used = Math.max(0, io.netty.util.internal.PlatformDependent.usedDirectMemory());
    for (java.lang.management.BufferPoolMXBean pool
        : java.lang.management.ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        used += pool.getMemoryUsed();
      }
    }
    return used;
  }

  // ---------------------------------------------------------------------------------------------
  // Event dispatch

  /** Halts the node after an unrecoverable error (a violated invariant, a failing disk). */
  private void fatal(Throwable cause) {
    LOG.error("server {} halting: {}", id, cause.getMessage(), cause);
    terminated.completeExceptionally(cause);
    loop.execute(this::closeQuietly);
  }

  void closeQuietly() {
    try {
      close();
    } catch (RuntimeException e) {
      LOG.warn("{}: error while closing: {}", id, e.toString());
    }
  }

  /**
   * The parser of request type {@code t}'s bodies if this server handles it, else null: what the client connections'
   * decoders parse requests with ({@link Wire.FrameDecoder#parseRequests}).
   */
  com.google.protobuf.Parser<? extends Message> requestParser(int t) {
    return host.handlesRequest(t) ? types.parser(t) : null;
  }

  /**
   * The parser of peer message type {@code t}'s bodies if this server handles it, else null: what the incoming peer
   * channels' decoders parse Data messages with ({@link Wire.FrameDecoder#parsePeerData}).
   */
  com.google.protobuf.Parser<? extends Message> messageParser(int t) {
    return t == KitFrame.WIRE_TYPE ? Kit.parser() : host.handlesMessage(t) ? types.parser(t) : null;
  }

  /** A peer's Data message whose body the decoder parsed already (see {@link #messageParser}). */
  record PeerData(long seq, int type, Message body) {}


  void onRequest(Channel ch, org.kvlab.wire.Request frame) {
    int t = frame.getType(); // uint32 on the wire: 2^31 and above arrive negative
    if (!host.handlesRequest(t)) {
      String name = t >= 0 && t < types.size() ? host.typeName(t) : "type #" + Integer.toUnsignedString(t);
      ch.writeAndFlush(Frame.newBuilder().setReply(Reply.newBuilder().setId(frame.getId())
          .setError("server " + id + " (" + protocol.name() + ") has no handler for request " + name)).build());
      return;
    }
    Message body;
    try {
      body = types.parse(t, frame.getBody());
    } catch (InvalidProtocolBufferException e) {
      ch.writeAndFlush(Frame.newBuilder().setReply(Reply.newBuilder().setId(frame.getId())
          .setError("malformed " + host.typeName(t) + ": " + e.getMessage())).build());
      return;
    }
    handle(new RequestImpl(ch, frame.getId(), t, body));
  }

  /** Runs the handler of a request (of a type that has one). */
  void handle(RequestImpl req) {
    host.onRequest(req);
  }

  /** A peer's message of type {@code t}: {@code parsed}, or if null its bytes {@code body} (parsed here). */
  boolean onData(NodeId from, int t, Message parsed, com.google.protobuf.ByteString body) {
    if (t == KitFrame.WIRE_TYPE) {
      return onKit(from, parsed, body);
    }
    // t: uint32 on the wire, 2^31 and above arrive negative
    if (!host.handlesMessage(t)) {
      LOG.error("{}: peer {} sent {} but the protocol has no handler for it", id, from,
          t >= 0 && t < types.size() ? host.typeName(t) : "unknown type #" + Integer.toUnsignedString(t));
      return false;
    }
    Message message = parsed;
    if (message == null) {
      try {
        message = types.parse(t, body);
      } catch (InvalidProtocolBufferException e) {
        LOG.error("{}: malformed {} from {}: {}", id, host.typeName(t), from, e.getMessage());
        return false;
      }
    }
    host.onMessage(t, message, from);
    return true;
  }

  /** A kit frame (a call, a forward or an answer) from peer {@code from}. */
  private boolean onKit(NodeId from, Message parsed, com.google.protobuf.ByteString bytes) {
    KitFrame frame;
    try {
      frame = KitWire.decode(parsed != null ? (Kit) parsed : Kit.parseFrom(bytes), types);
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      LOG.error("{}: malformed kit frame from {}: {}", id, from, e.getMessage());
      return false;
    }
    host.onKit(frame, from);
    return true;
  }

  /**
   * A client request; its reply waits for pending writes to be synced under durability sync. It is also the frame of
   * its reply ({@link Wire.ReplyFrame}: the body is set when the protocol replies), one object per request.
   */
  final class RequestImpl extends Wire.ReplyFrame implements HostRequest {
    private final Channel channel;
    private final int requestType;
    private final Message body;
    private long answer; // the first answer's record (ProtocolHost.claim), 0 while unanswered

    RequestImpl(Channel channel, long requestId, int requestType, Message body) {
      super(requestId); // the request's id is the reply frame's (ReplyFrame.id): one field per request object
      this.channel = channel;
      this.requestType = requestType;
      this.body = body;
    }

    @Override
    public Message body() {
      return body;
    }

    @Override
    public int type() {
      return requestType;
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
    public void reply(Message reply) {
      // Encoded as Frame{reply: Reply{id, type, body}} with the body serialized straight into the socket's buffer.
      int replyType = types.idOf(reply.getClass());
      claim(ProtocolHost.REPLY);
      body(replyType, reply);
      write(this);
    }

    @Override
    public void fail(String reason) {
      answer(ProtocolHost.FAIL, Reply.newBuilder().setId(this.id).setError(reason));
    }

    @Override
    public void unknown(String reason) {
      answer(ProtocolHost.UNKNOWN, Reply.newBuilder().setId(this.id).setError(reason).setOutcomeUnknown(true));
    }

    /** Fails the request as refused for back-pressure: the client raises {@link org.kvlab.api.OverloadedException}. */
    @Override
    public void refuseOverloaded(String reason) {
      answer(ProtocolHost.FAIL, Reply.newBuilder().setId(this.id).setError(reason).setOverloaded(true));
    }

    private void answer(int how, Reply.Builder reply) {
      claim(how);
      write(Frame.newBuilder().setReply(reply).build());
    }

    /** Marks the request answered; fails if it was (naming both answers), or if this is not the event loop. */
    private void claim(int how) {
      if (!loop.inEventLoop()) {
        Invariants.check(false, "request %s answered off the event loop", host.typeName(requestType));
      }
      host.claim(this, how);
    }

    /** Writes the reply frame (a Frame or this); under durability sync, once what it follows is durable. */
    private void write(Object frame) {
      if (sync == null) {
        channel.writeAndFlush(frame, channel.voidPromise());
      } else {
        sync.afterSync(() -> channel.writeAndFlush(frame, channel.voidPromise()));
      }
    }
  }


  // ---------------------------------------------------------------------------------------------
  // The protocol's view of the world

  /** What the protocol host needs of this node. */
  private final class Driver implements HostDriver {
    @Override
    public void send(NodeId to, Message message) {
      link(to).send(types.idOf(message.getClass()), message);
    }

    @Override
    public void sendKit(NodeId to, KitFrame frame) {
      link(to).send(KitFrame.WIRE_TYPE, KitWire.encode(frame, types));
    }

    @Override
    public int room(NodeId to) {
      return link(to).room();
    }

    private PeerLink link(NodeId to) {
      PeerLink link = links.get(to);
      if (link == null) {
        throw new IllegalArgumentException("server " + id + " has no channel to " + to
            + (to.equals(id) ? " (a server cannot send to itself)" : " (not in the cluster)"));
      }
      return link;
    }

    @Override
    public Timer schedule(long delayNanos, Runnable task) {
      var f = loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
      return () -> f.cancel(false);
    }

    @Override
    public Timer scheduleRepeating(long firstNanos, long periodNanos, Runnable task) {
      var f = loop.scheduleAtFixedRate(task, firstNanos, periodNanos, TimeUnit.NANOSECONDS);
      return () -> f.cancel(false);
    }

    /** On the node's worker thread (one, so computations run in the order asked); the result back on the loop. */
    @Override
    public void offload(Runnable work, Runnable done) {
      java.util.concurrent.ExecutorService worker;
      synchronized (Node.this) {
        if (closing) {
          return; // the node is closing: the result would have no loop to run on
        }
        if (offloadWorker == null) {
          offloadWorker = java.util.concurrent.Executors.newSingleThreadExecutor(
              new DefaultThreadFactory("kvlab-offload-" + id, true));
        }
        worker = offloadWorker;
      }
      worker.execute(() -> {
        work.run(); // the host catches the computation's own failure and hands it to done
        try {
          loop.execute(done);
        } catch (java.util.concurrent.RejectedExecutionException e) {
          LOG.debug("{}: an offloaded result after the loop stopped is dropped", id);
        }
      });
    }

    /** The machine's monotonic clock: a node's timers of commensurate periods run in the same event-loop turn. */
    @Override
    public long timerNanos() {
      return System.nanoTime();
    }

    @Override
    public void failed(String where, RuntimeException e, HostRequest request) {
      if (e instanceof InvariantViolation) {
        fatal(new IllegalStateException("invariant violated in " + where + ": " + e.getMessage(), e));
      } else if (where.equals(ProtocolHost.START_SITE)) { // a server that did not start would run on half its state
        fatal(new IllegalStateException("server " + id + " failed to start: " + e, e));
      } else if (request == null) {
        LOG.error("{}: {} failed: {}", id, where, e.toString(), e);
      } else if (e instanceof org.kvlab.api.BackPressureException) {
        LOG.warn("{}: {} refused: {}", id, host.typeName(request.type()), e.getMessage());
        if (!request.answered()) {
          request.refuseOverloaded("server " + id + " is overloaded: " + e.getMessage());
        }
      } else {
        LOG.warn("{}: {} failed: {}", id, where, e.toString(), e);
        if (!request.answered()) {
          // The handler may have written or sent something before it threw: the outcome is unknown.
          request.unknown("server " + id + " failed handling " + host.typeName(request.type()) + ": " + e);
        }
      }
    }

    @Override
    public void eventDone() {}

    @Override
    public KitState state() {
      return kitState;
    }

    @Override
    public void stateWritten() {
      if (sync != null) {
        sync.onWrite();
      }
    }

    @Override
    public boolean holdSendsBehindState() {
      return sync != null;
    }

  }

  /** A peer's Welcome told its incarnation (the host answers forwards an earlier one of it never will). */
  void peerStarted(NodeId peer, long incarnation) {
    if (incarnation > 0) {
      host.peerStarted(peer, incarnation);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Shutdown

  /**
   * Stops the node: gives outgoing channels up to 3 s to deliver what they hold, closes every
   * connection, stops the event loop and closes the store (which makes its data durable).
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closing) {
        return;
      }
      closing = true;
    }
    if (!loop.inEventLoop() && !loop.isShuttingDown()) {
      long deadline = System.currentTimeMillis() + DRAIN_MILLIS_MAX;
      while (System.currentTimeMillis() < deadline) {
        try {
          boolean drained = CompletableFuture.supplyAsync(
              () -> links.values().stream().allMatch(l -> l.queued() == 0 || !l.connected()), loop).get(1, TimeUnit.SECONDS);
          if (drained) {
            break;
          }
          Thread.sleep(10);
        } catch (Exception e) {
          break;
        }
      }
    }
    Runnable closeChannels = () -> {
      links.values().forEach(PeerLink::close);
      if (listener != null) {
        listener.close();
      }
      new ArrayList<>(clients).forEach(Channel::close);
      inbound.values().forEach(s -> {
        if (s.channel != null) {
          s.channel.close();
        }
      });
    };
    if (loop.inEventLoop()) {
      closeChannels.run();
    } else if (!loop.isShuttingDown()) {
      try {
        CompletableFuture.runAsync(closeChannels, loop).get(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.debug("{}: closing channels: {}", id, e.toString());
      }
    }
    synchronized (this) {
      if (offloadWorker != null) {
        offloadWorker.shutdownNow(); // a computation still running is dropped with the node
      }
    }
    var shutdown = group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    if (!loop.inEventLoop()) {
      shutdown.awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
    if (sync != null) {
      sync.close();
    }
    store.close();
    LOG.info("server {} stopped", id);
    terminated.complete(null);
  }

  /** Store wrapper that tells the sync barrier about writes. */
  private static final class CountingStore extends org.kvlab.store.ForwardingStore<Message> {
    private final SyncBarrier sync;

    CountingStore(VersionedStore<Message> inner, SyncBarrier sync) {
      super(inner);
      this.sync = sync;
    }

    @Override
    public void put(String key, Message record) {
      inner.put(key, record);
      sync.onWrite();
    }
  }

  /** The node could not start; the message says why and how to fix it. */
  public static final class StartException extends Exception {
    public StartException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
