package org.kvlab.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client half of the raw echo: {@code connections} Netty channels on {@code threads} NIO event loops,
 * the same pipeline as kvlab's client, and a blocking {@link #call} that sends one frame of the request size
 * and waits for its answer — the same shape as a kvlab session's blocking get/put (caller thread, future,
 * completion on an event loop), minus everything kvlab does in between. Thread-safe; requests are matched to
 * replies by the id in their first 8 bytes, so several sessions may share a connection.
 */
final class RawEchoClient implements AutoCloseable {
  private final EventLoopGroup group;
  private final List<Conn> conns = new ArrayList<>();
  private final int requestBytes;
  private final AtomicLong ids = new AtomicLong();

  private static final class Conn {
    final ConcurrentHashMap<Long, CompletableFuture<Void>> pending = new ConcurrentHashMap<>();
    Channel channel;
  }

  RawEchoClient(String host, int port, int threads, int connections, int requestBytes) throws InterruptedException {
    if (requestBytes < Long.BYTES) {
      throw new IllegalArgumentException("request size must be at least 8 bytes (the request id), got " + requestBytes);
    }
    this.requestBytes = requestBytes;
    this.group = new NioEventLoopGroup(threads, new DefaultThreadFactory("echo-client", true));
    for (int i = 0; i < connections; i++) {
      Conn c = new Conn();
      Bootstrap b = new Bootstrap()
          .group(group)
          .channel(NioSocketChannel.class)
          .option(ChannelOption.TCP_NODELAY, true)
          .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 3000)
          .handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
              RawEchoServer.installFraming(ch.pipeline());
              ch.pipeline().addLast("replies", new Replies(c));
            }
          });
      c.channel = b.connect(host, port).sync().channel();
      conns.add(c);
    }
  }

  int connections() {
    return conns.size();
  }

  /** One blocking round trip on connection {@code conn}. */
  void call(int conn, long timeoutMillis) throws Exception {
    Conn c = conns.get(conn);
    long id = ids.incrementAndGet();
    CompletableFuture<Void> reply = new CompletableFuture<>();
    c.pending.put(id, reply);
    ByteBuf frame = c.channel.alloc().buffer(requestBytes);
    frame.writeLong(id);
    frame.writeZero(requestBytes - Long.BYTES);
    c.channel.writeAndFlush(frame, c.channel.voidPromise());
    try {
      reply.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } finally {
      c.pending.remove(id);
    }
  }

  private static final class Replies extends ChannelInboundHandlerAdapter {
    private final Conn conn;

    Replies(Conn conn) {
      this.conn = conn;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf in = (ByteBuf) msg;
      long id;
      try {
        id = in.getLong(in.readerIndex());
      } finally {
        in.release();
      }
      CompletableFuture<Void> f = conn.pending.remove(id);
      if (f != null) {
        f.complete(null);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      IOException lost = new IOException("echo connection lost");
      conn.pending.values().forEach(f -> f.completeExceptionally(lost));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  @Override
  public void close() {
    for (Conn c : conns) {
      c.channel.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}
