package org.kvlab.bench;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The upper bound of the benchmark: a plain Netty server with exactly kvlab's transport — NIO, one event loop
 * thread for the listener and every connection, TCP_NODELAY, the same {@link FlushConsolidationHandler} and
 * 4-byte length-prefixed frames — that answers every frame with a frame of a fixed reply size (the request's
 * bytes, truncated or zero-padded; the first 8 bytes carry the client's request id). No decoding, no
 * dispatch, no storage: what is left of a kvlab round trip when the framework and the protocol cost nothing.
 *
 * <p>Usage: {@code RawEchoServer <port> <replyBytes>}. Prints {@code READY} once listening and stops when its
 * standard input closes.
 */
public final class RawEchoServer implements AutoCloseable {
  /** kvlab's default limits.frameBytesMax. */
  static final int FRAME_BYTES_MAX = 16 * 1024 * 1024;

  private final EventLoopGroup group;
  private final Channel listener;

  private RawEchoServer(EventLoopGroup group, Channel listener) {
    this.group = group;
    this.listener = listener;
  }

  /**
   * The pipeline both echo ends use: flush consolidation and 4-byte length framing, with Netty's stock codecs. The
   * runtime's {@code Wire.install} has the same framing and flush consolidation but since 2026-11-25 its own frame
   * encoder (one pooled buffer per frame, docs/runtime.md), so this floor is Netty's stock path, not kvlab's.
   */
  static void installFraming(ChannelPipeline p) {
    p.addLast("flush", new FlushConsolidationHandler(256, true));
    p.addLast("frameDecoder", new LengthFieldBasedFrameDecoder(FRAME_BYTES_MAX, 0, 4, 0, 4, true));
    p.addLast("frameEncoder", new LengthFieldPrepender(4));
  }

  public static RawEchoServer start(String host, int port, int replyBytes) throws InterruptedException {
    if (replyBytes < Long.BYTES) {
      throw new IllegalArgumentException("reply size must be at least 8 bytes (the request id), got " + replyBytes);
    }
    EventLoopGroup group = new NioEventLoopGroup(1, new DefaultThreadFactory("echo-server", true));
    ServerBootstrap b = new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .option(ChannelOption.SO_REUSEADDR, true)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            installFraming(ch.pipeline());
            ch.pipeline().addLast("echo", new Echo(replyBytes));
          }
        });
    Channel listener = b.bind(host, port).sync().channel();
    return new RawEchoServer(group, listener);
  }

  /** Answers each frame with {@code replyBytes} bytes: the start of the request, zero-padded. */
  private static final class Echo extends ChannelInboundHandlerAdapter {
    private final int replyBytes;

    Echo(int replyBytes) {
      this.replyBytes = replyBytes;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf in = (ByteBuf) msg;
      try {
        ByteBuf out = ctx.alloc().buffer(replyBytes);
        int n = Math.min(in.readableBytes(), replyBytes);
        out.writeBytes(in, in.readerIndex(), n);
        out.writeZero(replyBytes - n);
        ctx.writeAndFlush(out, ctx.voidPromise());
      } finally {
        in.release();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  @Override
  public void close() {
    listener.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    int replyBytes = Integer.parseInt(args[1]);
    try (RawEchoServer server = start(BenchCluster.HOST, port, replyBytes)) {
      ServerProcess.readyThenAwaitStdinClose("raw echo server on " + BenchCluster.HOST + ":" + port
          + ", replies of " + replyBytes + " bytes");
    }
    System.exit(0);
  }
}
