package org.kvlab.runtime;

import com.google.protobuf.InvalidProtocolBufferException;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.kvlab.api.BackPressureException;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.store.ChannelLog;
import org.kvlab.wire.Auth;
import org.kvlab.wire.Challenge;
import org.kvlab.wire.Data;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Hello;
import org.kvlab.wire.Ping;
import org.kvlab.wire.Role;
import org.kvlab.wire.Welcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outgoing reliable FIFO channel from one node to one peer. Every message gets a sequence number
 * and stays queued until the peer acknowledges it (cumulative acks). After a reconnect the peer says
 * what it delivered ({@link Welcome#getDelivered()}) and the link resends the rest in order, so
 * delivery is FIFO and exactly-once while both nodes stay up. The queue is bounded: when full,
 * {@link #send} throws {@link BackPressureException}. Optional emulated one-way delay holds each message
 * back before it is written. All methods run on the owning node's event loop.
 *
 * <p><b>Durable channels</b> (durability {@code sync} only; see docs/runtime.md, "Durability of
 * channels"). The link keeps its messages in the node's {@link ChannelLog} too: {@link #send} appends the
 * message to the outbox (a buffered JE put, no fsync on the event loop) and counts it as a write of the
 * node's {@link SyncBarrier}, so a client reply that follows waits for the group fsync that makes the
 * message durable. Acknowledgements record the acknowledged high-water mark and delete the acknowledged
 * messages. The node's incarnation is persistent, so after a crash the link reloads its outbox, resumes
 * its sequence numbers under the same incarnation and resends after the peer's Welcome. What keeps this
 * correct:
 * <ul>
 *   <li><b>A message is written to the network only once it is durable</b> (its outbox put is covered by
 *       a completed fsync). So a peer never sees a message the sender may forget in a crash.
 *   <li><b>No sequence number is ever reused under one incarnation.</b> After a restart the next number
 *       is one above {@link ChannelLog#highWater}: the largest number in the outbox or the acknowledged
 *       mark, which {@link ChannelLog#acknowledged} writes before deleting the acknowledged messages. By
 *       the first rule every number a peer saw was durably in the outbox, and it leaves the outbox only
 *       after the mark covering it was written, so after any crash the high-water mark is at least every
 *       number a peer saw. Checked on every Welcome: the peer cannot have delivered a number above it.
 * </ul>
 * Under durability {@code none} the log is not used and the link behaves as a purely in-memory channel.
 */
final class PeerLink {
  private static final Logger LOG = LoggerFactory.getLogger(PeerLink.class);
  private static final long BACKOFF_MIN_MILLIS = 20;
  private static final long BACKOFF_MAX_MILLIS = 1000;
  /**
   * Pings only estimate the round trip shown by {@code status} (nothing times out on them): one when the channel
   * comes up, then one every 10 s. At one a second, the pings and pongs of an idle 2 x 3 cluster's 30 channels were
   * most of its event-loop wakeups (docs/benchmarks/idle-cost.md).
   */
  private static final long PING_INTERVAL_MILLIS = 10_000;

  /**
   * A message not yet written: it may go out once its emulated delay has passed ({@code releaseNanos})
   * and, under durable channels, once the sync barrier has synced {@code durableAt} writes (0: already
   * durable, or no durable channel).
   */
  private record Pending(Wire.DataFrame data, long releaseNanos, long durableAt) {}

  private final Node node;
  private final NodeId peer;
  private final ServerSpec spec;
  private final long delayNanos;
  private final long flushNanos; // limits.peerFlushMicros: at most one network write per this period (0: per turn)
  private final boolean holds;   // emulated delay or pacing may hold a message back (else every message is due at once)
  private long nextWriteNanos;   // the earliest time the next write may go out (pacing; 0 before the first write)
  private LongAdder writes; // counter channel.writes, looked up at the first write
  private final int queueMax;
  private final ChannelLog log; // null unless durability sync
  private final SyncBarrier sync; // null unless durability sync
  private final String peerKey;
  private boolean awaitingSync;
  private final ArrayDeque<Pending> unsent = new ArrayDeque<>();
  private final ArrayDeque<Wire.DataFrame> unacked = new ArrayDeque<>();
  private long nextSeq = 1;
  private Channel channel;
  private boolean ready;
  private boolean closed;
  private boolean everConnected;
  private long backoffMillis = BACKOFF_MIN_MILLIS;
  private double rttMillis = Double.NaN;
  private ScheduledFuture<?> pingTask;
  private ScheduledFuture<?> flushTask;
  private long sent;
  private String lastRefusal; // the last handshake failure logged, so a refusal repeated on every retry logs once

  PeerLink(Node node, NodeId peer, ServerSpec spec, long delayMillis, int queueMax) {
    this.node = node;
    this.peer = peer;
    this.spec = spec;
    this.delayNanos = TimeUnit.MILLISECONDS.toNanos(delayMillis);
    this.flushNanos = TimeUnit.MICROSECONDS.toNanos(node.config().limits().peerFlushMicros());
    this.holds = delayNanos > 0 || flushNanos > 0;
    this.queueMax = queueMax;
    this.log = node.channelLog();
    this.sync = log == null ? null : node.syncBarrier();
    this.peerKey = peer.toString();
    if (log != null) {
      recover();
    }
  }

  /**
   * Durable channels: reloads the messages this node's previous run left unacknowledged (they are
   * resent after the next Welcome) and resumes numbering above everything it ever handed out.
   */
  private void recover() {
    long high = log.highWater(peerKey);
    for (ChannelLog.Entry e : log.pending(peerKey)) {
      Data d;
      try {
        d = Data.parseFrom(e.message());
      } catch (InvalidProtocolBufferException ex) {
        throw new IllegalStateException("channel " + node.id() + " -> " + peer + ": outbox message " + e.seq()
            + " is corrupt: " + ex.getMessage(), ex);
      }
      Invariants.check(d.getSeq() == e.seq() && (unacked.isEmpty() || d.getSeq() == unacked.peekLast().seq() + 1),
          "channel %s -> %s: outbox holds message %s under key %s after %s: the outbox must be a gap-free run",
          node.id(), peer, d.getSeq(), e.seq(), unacked.isEmpty() ? "none" : unacked.peekLast().seq());
      unacked.add(new Wire.DataFrame(d));
    }
    nextSeq = high + 1;
    if (!unacked.isEmpty()) {
      LOG.info("{}: channel to {} holds {} unacknowledged messages from before the restart; resending them "
          + "once connected", node.id(), peer, unacked.size());
    }
  }

  NodeId peer() {
    return peer;
  }

  boolean connected() {
    return ready;
  }

  double rttMillis() {
    return rttMillis;
  }

  int queued() {
    return unsent.size() + unacked.size();
  }

  long sent() {
    return sent;
  }

  /** How many more messages {@link #send} takes before it throws {@link BackPressureException}. */
  int room() {
    return Math.max(0, queueMax - queued());
  }

  /**
   * Sends protocol message {@code body} of wire type {@code type}. The message is kept (not its bytes) until the peer
   * acknowledges it and is serialized straight into the frame when written ({@link Wire.DataFrame}); protobuf
   * messages are immutable, so a resend writes the same bytes.
   */
  void send(int type, com.google.protobuf.MessageLite body) {
    if (queued() >= queueMax) {
      throw new BackPressureException("channel " + node.id() + " -> " + peer + " holds " + queued()
          + " unacknowledged messages (limits.peerQueueMessagesMax = " + queueMax + "): the peer is down or too "
          + "slow; bring it back, slow the workload, or raise the limit");
    }
    Wire.DataFrame data = new Wire.DataFrame(nextSeq, type, body);
    long durableAt = 0;
    if (log != null) {
      log.append(peerKey, data.seq(), data.toData().toByteArray()); // if this throws, the number stays unused
      sync.onWrite();
      durableAt = sync.written();
    }
    nextSeq++;
    sent++;
    if (!holds) {
      unsent.add(new Pending(data, 0, durableAt));
      if (ready) {
        writeReleased();
      }
    } else {
      // Emulated delay and write pacing both only hold a message back; release times never decrease along the queue
      // (nanoTime and nextWriteNanos only grow), so FIFO order is kept. Pacing holds a message until the period after
      // the channel's last write has passed, unless that write is still waiting for this turn's flush (then the
      // message joins it: nothing queued before it, nothing held).
      long now = System.nanoTime();
      long release = now + delayNanos;
      if (release < nextWriteNanos && !(delayNanos == 0 && unsent.isEmpty() && ready && node.flushPending(channel))) {
        release = nextWriteNanos;
      }
      unsent.add(new Pending(data, release, durableAt));
      if (ready) {
        if (release <= now) {
          writeReleased();
        } else if (flushTask == null) {
          flushTask = node.loop().schedule(this::onFlushTimer, release - now, TimeUnit.NANOSECONDS);
        }
      }
    }
  }

  private void onFlushTimer() {
    flushTask = null;
    if (ready) {
      writeReleased();
    }
  }

  /** Writes every queued message whose emulated delay has passed; re-arms the timer for the rest. */
  private void writeReleased() {
    long now = holds ? System.nanoTime() : 0;
    boolean wrote = false;
    while (!unsent.isEmpty()) {
      Pending next = unsent.peekFirst();
      if (next.releaseNanos() > now) {
        if (flushTask == null) {
          flushTask = node.loop().schedule(this::onFlushTimer, next.releaseNanos() - now, TimeUnit.NANOSECONDS);
        }
        break;
      }
      if (next.durableAt() > 0 && next.durableAt() > sync.synced()) {
        awaitSync(); // first rule of durable channels: nothing goes out before it is durable
        break;
      }
      unsent.pollFirst();
      unacked.add(next.data());
      channel.write(next.data(), channel.voidPromise());
      wrote = true;
    }
    if (wrote) {
      node.flushSoon(channel); // one write system call per connection and event-loop turn
      if (writes == null) {
        writes = node.metrics().counter("channel.writes");
      }
      writes.increment();
      if (flushNanos > 0) {
        nextWriteNanos = now + flushNanos; // what is sent before then waits for it and goes out in one write
      }
    }
  }

  /** Durable channels: writes what is queued once the sync barrier has made it durable. */
  private void awaitSync() {
    if (!awaitingSync) {
      awaitingSync = true;
      sync.afterSync(() -> {
        awaitingSync = false;
        if (ready) {
          writeReleased();
        }
      });
    }
  }

  /** The peer acknowledged every message up to {@code seq}. */
  private void onAck(long seq) {
    Invariants.check(seq < nextSeq, "channel %s -> %s: peer acknowledged message %s, but the last one sent is %s",
        node.id(), peer, seq, nextSeq - 1);
    boolean removed = false;
    while (!unacked.isEmpty() && unacked.peekFirst().seq() <= seq) {
      unacked.pollFirst();
      removed = true;
    }
    if (removed && log != null) {
      // No fsync needed: losing this in a crash only means resending messages the peer will drop.
      log.acknowledged(peerKey, seq);
    }
  }

  void connect() {
    if (closed) {
      return;
    }
    Bootstrap b = node.transport().applyTo(new Bootstrap().group(node.loop()))
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 2000)
        .handler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            Wire.install(ch.pipeline(), node.config().limits().frameBytesMax(), node.id().toString());
            ch.pipeline().addLast(new Handler());
          }
        });
    b.connect(spec.host(), spec.port()).addListener(f -> {
      if (!f.isSuccess()) {
        LOG.debug("{}: cannot reach peer {} at {}:{}: {}", node.id(), peer, spec.host(), spec.port(), f.cause().getMessage());
        scheduleReconnect();
      }
    });
  }

  private void scheduleReconnect() {
    if (closed || node.loop().isShuttingDown()) {
      return;
    }
    long wait = backoffMillis;
    backoffMillis = Math.min(BACKOFF_MAX_MILLIS, backoffMillis * 2);
    node.loop().schedule(this::connect, wait, TimeUnit.MILLISECONDS);
  }

  void close() {
    closed = true;
    if (channel != null) {
      channel.close();
    }
  }

  /** The current connection, or null (tests). */
  Channel channel() {
    return channel;
  }

  /** Drops the current connection (tests use it to force a reconnect). */
  void disconnect() {
    if (channel != null) {
      channel.close();
    }
  }

  /** Logs a handshake failure at ERROR the first time, at DEBUG while it repeats on every retry. */
  private void logRefusal(String message) {
    if (message.equals(lastRefusal)) {
      LOG.debug("{}", message);
    } else {
      LOG.error("{} (logged once while it repeats)", message);
      lastRefusal = message;
    }
  }

  private final class Handler extends SimpleChannelInboundHandler<Frame> {
    private Hello hello;
    private boolean authenticated;

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      channel = ctx.channel();
      hello = Hello.newBuilder()
          .setRole(Role.PEER)
          .setCluster(node.config().name())
          .setProtocol(node.protocol().name())
          .setFingerprint(node.types().fingerprint())
          .setNode(node.id().toString())
          .setIncarnation(node.incarnation())
          .setNonce(Handshake.nonce()).build();
      ctx.writeAndFlush(Frame.newBuilder().setHello(hello).build());
    }

    /** The peer proved it knows the cluster secret; this side answers with its own proof. */
    private void onChallenge(ChannelHandlerContext ctx, Challenge challenge) {
      String refusal = null;
      if (authenticated) {
        refusal = "second challenge";
      } else if (!challenge.getNode().equals(peer.toString())) {
        refusal = "the server at " + spec.host() + ":" + spec.port() + " is " + Wire.printable(challenge.getNode())
            + ", not " + peer + " (fix the servers list of " + node.config().source() + ")";
      } else if (!Handshake.checkServer(node.secret(), hello, peer.toString(), challenge.getNonce(), challenge.getProof())) {
        refusal = "the server at " + spec.host() + ":" + spec.port() + " does not know the secret of cluster '"
            + node.config().name() + "': another cluster of the same name (started from another directory or "
            + "checkout) listens there; stop it or change the ports";
      }
      if (refusal != null) {
        logRefusal(node.id() + ": not connecting to peer " + peer + ": " + refusal);
        ctx.writeAndFlush(Frame.newBuilder().setAuth(Auth.newBuilder().setError("server " + node.id()
            + " gives up: this server did not prove the cluster secret or is not " + peer)).build())
            .addListener(f -> ctx.close());
        return;
      }
      authenticated = true;
      ctx.writeAndFlush(Frame.newBuilder().setAuth(Auth.newBuilder().setProof(
          Handshake.connectorProof(node.secret(), hello, peer.toString(), challenge.getNonce()))).build());
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
      if (!authenticated && frame.getKindCase() != Frame.KindCase.CHALLENGE
          && !(frame.hasWelcome() && !frame.getWelcome().getError().isEmpty())) {
        // Only a server that proved the secret may welcome this channel or send it anything else.
        logRefusal(node.id() + ": not connecting to peer " + peer + ": the server at " + spec.host() + ":"
            + spec.port() + " answered " + Wire.kind(frame) + " without proving the cluster secret");
        ctx.close();
        return;
      }
      switch (frame.getKindCase()) {
        case CHALLENGE -> onChallenge(ctx, frame.getChallenge());
        case WELCOME -> onWelcome(ctx, frame.getWelcome());
        case ACK -> onAck(frame.getAck().getSeq());
        case PONG -> {
          double sample = (System.nanoTime() - frame.getPong().getNanos()) / 1e6;
          rttMillis = Double.isNaN(rttMillis) ? sample : 0.8 * rttMillis + 0.2 * sample;
        }
        default -> {
          LOG.warn("{}: closing channel to {}: unexpected {} frame", node.id(), peer, Wire.kind(frame));
          ctx.close();
        }
      }
    }

    private void onWelcome(ChannelHandlerContext ctx, Welcome welcome) {
      if (!welcome.getError().isEmpty()) {
        logRefusal(node.id() + ": peer " + peer + " refused the channel: " + Wire.printable(welcome.getError()));
        ctx.close();
        return;
      }
      lastRefusal = null;
      node.peerStarted(peer, welcome.getIncarnation());
      // Everything the peer delivered is done; everything else is resent in order, first. (onAck checks
      // the peer did not deliver a number this incarnation never handed out, e.g. reused after a crash.)
      onAck(welcome.getDelivered());
      // delivered == 0: the peer has no record of this incarnation (it restarted without a durable
      // record of it): it takes the first message it gets as the start of the sequence.
      Invariants.check(welcome.getDelivered() == 0 || unacked.isEmpty()
              || unacked.peekFirst().seq() == welcome.getDelivered() + 1,
          "channel %s -> %s: peer delivered up to %s but the oldest unacknowledged message is %s",
          node.id(), peer, welcome.getDelivered(), unacked.isEmpty() ? -1 : unacked.peekFirst().seq());
      ArrayDeque<Pending> resend = new ArrayDeque<>(unacked.size() + unsent.size());
      for (Wire.DataFrame d : unacked) {
        resend.add(new Pending(d, 0, 0)); // was written, so it is durable
      }
      resend.addAll(unsent);
      unacked.clear();
      unsent.clear();
      unsent.addAll(resend);
      ready = true;
      backoffMillis = BACKOFF_MIN_MILLIS;
      if (!everConnected) {
        LOG.debug("{}: channel to {} up", node.id(), peer);
      } else {
        node.metrics().count("channel.reconnects");
        LOG.info("{}: channel to {} re-established, resending {} messages", node.id(), peer, unsent.size());
      }
      everConnected = true;
      writeReleased();
      pingTask = ctx.executor().scheduleAtFixedRate(() -> ctx.writeAndFlush(
              Frame.newBuilder().setPing(Ping.newBuilder().setNanos(System.nanoTime())).build()),
          0, PING_INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      boolean wasReady = ready;
      ready = false;
      channel = null;
      if (pingTask != null) {
        pingTask.cancel(false);
        pingTask = null;
      }
      if (flushTask != null) {
        flushTask.cancel(false);
        flushTask = null;
      }
      if (!closed && wasReady && !node.closing()) {
        LOG.info("{}: lost channel to {}; {} messages queued, reconnecting", node.id(), peer, queued());
      }
      scheduleReconnect();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (!closed) {
        LOG.warn("{}: closing channel to {}: {}", node.id(), peer, Wire.reason(cause));
      }
      ctx.close();
    }
  }
}
