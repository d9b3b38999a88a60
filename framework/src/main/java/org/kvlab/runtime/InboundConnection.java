package org.kvlab.runtime;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.kvlab.api.NodeId;
import org.kvlab.config.ClusterSecret;
import org.kvlab.wire.Auth;
import org.kvlab.wire.Challenge;
import org.kvlab.wire.ControlReply;
import org.kvlab.wire.Data;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Hello;
import org.kvlab.wire.Pong;
import org.kvlab.wire.Role;
import org.kvlab.wire.Welcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection a {@link Node} accepted: its handshake ({@link Handshake}: Hello, Challenge, Auth, Welcome), then
 * its role's frames: a peer's channel (delivered through its {@link InboundChannel}), a client's requests, or a
 * control tool's status and shutdown. A malformed or out-of-place frame closes only this connection.
 */
final class InboundConnection extends SimpleChannelInboundHandler<Object> {
  private static final Logger LOG = LoggerFactory.getLogger(Node.class);
  private final Node node;
  private final Wire.FrameDecoder decoder;
  private Role role; // set once the handshake is done
  private NodeId peer;
  private InboundChannel state;
  private Hello hello; // the Hello of a handshake waiting for Auth
  private ByteString serverNonce;
  private boolean refused;
  private ScheduledFuture<?> deadline;

  InboundConnection(Node node, Wire.FrameDecoder decoder) {
    this.node = node;
    this.decoder = decoder;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    int millis = node.config.limits().handshakeMillis();
    deadline = ctx.executor().schedule(() -> {
      if (role == null && ctx.channel().isActive()) {
        LOG.warn("{}: closing connection from {}: no handshake within {} ms (limits.handshakeMillis)", node.id,
            ctx.channel().remoteAddress(), millis);
        node.metrics.count("security.handshakeTimeouts");
        ctx.close();
      }
    }, millis, TimeUnit.MILLISECONDS);
    ctx.fireChannelActive();
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
    if (refused) {
      return; // closing
    }
    if (msg instanceof Node.RequestImpl request) { // the decoder makes these only once this is a client's connection
      node.handle(request);
      return;
    }
    if (msg instanceof Node.PeerData d) { // and these only once this is a peer's channel
      onPeerData(ctx, d.seq(), d.type(), d.body(), null);
      return;
    }
    Frame frame = (Frame) msg;
    if (role == null) {
      if (hello == null) {
        onHello(ctx, frame);
      } else {
        onAuth(ctx, frame);
      }
      return;
    }
    switch (role) {
      case PEER -> {
        if (frame.hasData()) {
          Data data = frame.getData();
          onPeerData(ctx, data.getSeq(), data.getType(), null, data.getBody());
        } else if (frame.hasPing()) {
          ctx.writeAndFlush(Frame.newBuilder().setPong(Pong.newBuilder().setNanos(frame.getPing().getNanos())).build());
        } else {
          reject(ctx, "unexpected " + Wire.kind(frame) + " frame on a peer channel");
        }
      }
      case CLIENT -> {
        if (frame.hasRequest()) {
          node.onRequest(ctx.channel(), frame.getRequest());
        } else if (frame.hasPing()) {
          ctx.writeAndFlush(Frame.newBuilder().setPong(Pong.newBuilder().setNanos(frame.getPing().getNanos())).build());
        } else {
          reject(ctx, "unexpected " + Wire.kind(frame) + " frame on a client connection");
        }
      }
      case CONTROL -> onControl(ctx, frame);
      default -> reject(ctx, "unknown role");
    }
  }

  private void onHello(ChannelHandlerContext ctx, Frame frame) {
    if (!frame.hasHello()) {
      reject(ctx, "first frame must be hello, got " + Wire.kind(frame));
      return;
    }
    Hello h = frame.getHello();
    String error = checkHello(h);
    if (error != null) {
      refuse(ctx, h.getRole(), error);
      return;
    }
    ClusterSecret key = h.getRole() == Role.CLIENT ? node.clientKey : node.secret;
    if (key == null) {
      establish(ctx, h); // a client, and the cluster has no client token
      return;
    }
    if (h.getNonce().size() != Handshake.NONCE_BYTES) {
      refuse(ctx, h.getRole(), "the hello carries no " + Handshake.NONCE_BYTES + "-byte nonce for the "
          + "challenge-response: the other side runs an older kvlab build; run the same kvlab build on both sides");
      return;
    }
    hello = h;
    serverNonce = Handshake.nonce();
    ctx.writeAndFlush(Frame.newBuilder().setChallenge(Challenge.newBuilder().setNode(node.id.toString())
        .setNonce(serverNonce).setProof(Handshake.serverProof(key, h, node.id.toString(), serverNonce))).build());
  }

  /** Why {@code h} is refused before any proof, or null. Strings from the wire are escaped. */
  private String checkHello(Hello h) {
    if (h.getRole() != Role.PEER && h.getRole() != Role.CLIENT && h.getRole() != Role.CONTROL) {
      return "unknown role " + h.getRoleValue();
    }
    if (!h.getCluster().equals(node.config.name())) {
      return "this server (" + node.id + ") belongs to cluster '" + node.config.name() + "', not '"
          + Wire.printable(h.getCluster()) + "'";
    }
    if (!h.getProtocol().equals(node.protocol.name())
        || (h.getRole() != Role.CONTROL && h.getFingerprint() != node.types.fingerprint())) {
      return "protocol mismatch: server " + node.id + " runs " + node.protocol.name() + " (message fingerprint "
          + Long.toHexString(node.types.fingerprint()) + "), the other side " + Wire.printable(h.getProtocol()) + " ("
          + Long.toHexString(h.getFingerprint()) + "); run the same kvlab build on both sides";
    }
    if (h.getRole() == Role.PEER) {
      try {
        NodeId p = NodeId.parse(h.getNode());
        node.config.server(p);
        if (p.equals(node.id)) {
          return "a server cannot connect to itself";
        }
      } catch (IllegalArgumentException e) {
        return Wire.printable(e.getMessage());
      }
    }
    return null;
  }

  private void onAuth(ChannelHandlerContext ctx, Frame frame) {
    Role claimed = hello.getRole();
    if (!frame.hasAuth()) {
      refuse(ctx, claimed, "expected auth (the answer to the challenge), got " + Wire.kind(frame));
      return;
    }
    Auth auth = frame.getAuth();
    if (!auth.getError().isEmpty()) {
      LOG.warn("{}: {} connection from {} gave up the handshake: {}", node.id, roleName(claimed),
          ctx.channel().remoteAddress(), Wire.printable(auth.getError()));
      node.metrics.count("security.handshakesAbandoned");
      refused = true;
      ctx.close();
      return;
    }
    ClusterSecret key = claimed == Role.CLIENT ? node.clientKey : node.secret;
    if (!Handshake.checkConnector(key, hello, node.id.toString(), serverNonce, auth.getProof())) {
      refuse(ctx, claimed, claimed == Role.CLIENT
          ? "authentication failed: wrong client token (security.clientToken of cluster '" + node.config.name() + "')"
          : "authentication failed: the other side does not know the secret of cluster '" + node.config.name()
              + "' (a cluster of the same name started elsewhere, another directory or checkout?)");
      return;
    }
    establish(ctx, hello);
  }

  /** The handshake is done: the connection gets its role, the full frame limit and its Welcome. */
  private void establish(ChannelHandlerContext ctx, Hello h) {
    role = h.getRole();
    hello = null;
    serverNonce = null;
    if (deadline != null) {
      deadline.cancel(false);
    }
    decoder.limit(node.config.limits().frameBytesMax(), "limits.frameBytesMax = " + node.config.limits().frameBytesMax());
    decoder.rank = role == Role.CLIENT ? PartialFrames.Rank.CLIENT : PartialFrames.Rank.TRUSTED;
    Welcome.Builder welcome = Welcome.newBuilder().setNode(node.id.toString()).setIncarnation(node.host.incarnation());
    if (role == Role.PEER) {
      peer = NodeId.parse(h.getNode());
      state = node.inbound.computeIfAbsent(peer, p -> new InboundChannel());
      if (!state.known || state.incarnation != h.getIncarnation()) {
        state.known = false;
        state.incarnation = h.getIncarnation();
        state.delivered = 0;
        state.persisted = 0;
        state.acked = 0;
        state.ackDue = false;
      }
      if (state.channel != null && state.channel != ctx.channel()) {
        state.channel.close(); // the sender reconnected; the old connection is dead to it
      }
      state.channel = ctx.channel();
      welcome.setDelivered(state.delivered);
      decoder.parsePeerData(node::messageParser, Node.PeerData::new);
    } else if (role == Role.CLIENT) {
      node.clients.add(ctx.channel());
      Channel ch = ctx.channel();
      decoder.parseRequests(node::requestParser, (requestId, t, body) -> node.new RequestImpl(ch, requestId, t, body));
      int idle = node.config.limits().clientIdleSeconds();
      if (idle > 0) {
        ctx.pipeline().addFirst("idle", new ClientIdle(idle, TimeUnit.SECONDS));
      }
    }
    Frame answer = Frame.newBuilder().setWelcome(welcome).build();
    if (role == Role.PEER && node.sync != null) {
      // Welcome.delivered acknowledges like an Ack does, so it too waits until the delivered marker
      // (and what the handlers wrote) is durable.
      node.sync.afterSync(() -> ctx.writeAndFlush(answer));
    } else {
      ctx.writeAndFlush(answer);
    }
  }

  /** Refuses the handshake: logs why, tells the other side in Welcome.error, closes. */
  private void refuse(ChannelHandlerContext ctx, Role claimed, String error) {
    java.net.SocketAddress from = ctx.channel().remoteAddress();
    String host = from instanceof java.net.InetSocketAddress a ? a.getHostString() : String.valueOf(from);
    long held = node.refusalLog.admit(host + ' ' + claimed + ' ' + error, System.nanoTime());
    if (held >= 0) { // the same refusal from the same host is logged once a minute, with the count held back
      LOG.warn("{}: refusing {} connection from {}: {}{}", node.id, roleName(claimed), from, error,
          held == 0 ? "" : " (" + held + " more like it in the last minute, not logged)");
    }
    node.metrics.count("security.handshakesRefused");
    refused = true;
    ctx.writeAndFlush(Frame.newBuilder().setWelcome(Welcome.newBuilder().setNode(node.id.toString()).setError(error)).build())
        .addListener(f -> ctx.close());
  }

  private String roleName(Role r) {
    return r == Role.UNRECOGNIZED ? "unknown-role" : r.name().toLowerCase(java.util.Locale.ROOT);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent && role == Role.CLIENT) {
      LOG.info("{}: closing client connection from {}: idle for {} s (limits.clientIdleSeconds)", node.id,
          ctx.channel().remoteAddress(), node.config.limits().clientIdleSeconds());
      node.metrics.count("security.clientsIdleClosed");
      ctx.close();
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  /** Message {@code seq} of type {@code t} on a peer channel: {@code parsed}, or if null its bytes {@code body}. */
  private void onPeerData(ChannelHandlerContext ctx, long seq, int t, Message parsed, com.google.protobuf.ByteString body) {
    String refusal = state.deliver(node, peer, ctx.channel(), seq, t, parsed, body);
    if (refusal != null) {
      reject(ctx, refusal);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (role == Role.PEER && state != null) {
      state.readComplete(node, peer, ctx.channel());
    }
    ctx.fireChannelReadComplete();
  }

  private void onControl(ChannelHandlerContext ctx, Frame frame) {
    if (!frame.hasControl()) {
      reject(ctx, "unexpected " + Wire.kind(frame) + " frame on a control connection");
      return;
    }
    if (frame.getControl().hasShutdown()) {
      LOG.info("server {}: shutdown requested by {}", node.id, ctx.channel().remoteAddress());
      ctx.writeAndFlush(Frame.newBuilder().setControlReply(ControlReply.newBuilder().setShuttingDown(true)).build())
          .addListener(f -> new Thread(node::closeQuietly, "kvlab-shutdown-" + node.id).start());
    } else {
      ctx.writeAndFlush(Frame.newBuilder().setControlReply(ControlReply.newBuilder().setStatus(node.statusNow())).build());
    }
  }

  private void reject(ChannelHandlerContext ctx, String reason) {
    LOG.warn("{}: closing connection from {}: {}", node.id, ctx.channel().remoteAddress(), reason);
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (deadline != null) {
      deadline.cancel(false);
    }
    if (role == Role.CLIENT) {
      node.clients.remove(ctx.channel());
    }
    if (state != null && state.channel == ctx.channel()) {
      state.channel = null;
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (!node.closing()) {
      LOG.warn("{}: closing connection from {}: {}", node.id, ctx.channel().remoteAddress(), Wire.reason(cause));
    }
    ctx.close();
  }}
