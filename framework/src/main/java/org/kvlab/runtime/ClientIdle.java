package org.kvlab.runtime;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Fires {@link IdleStateEvent#ALL_IDLE_STATE_EVENT} when a connection had no traffic either way (nothing read, nothing
 * written) for {@code idle}: checked every quarter of it, so the event comes between {@code idle} and 1.25 x
 * {@code idle} after the last traffic. Unlike Netty's IdleStateHandler with a writer or all-idle time, it leaves a
 * write's promise alone: that handler turns every void promise into a real one and adds a listener to it, two
 * objects and a listener notification per reply (measured on the server's reply path, docs/benchmarks/dkvf-anchor.md).
 * Here traffic is one counter increment. Event loop only.
 */
final class ClientIdle extends ChannelDuplexHandler {
  static final int CHECKS = 4;
  private final long periodNanos;
  private long activity;
  private long seen;
  private int quiet;
  private ScheduledFuture<?> check;

  ClientIdle(long idle, TimeUnit unit) {
    this.periodNanos = Math.max(1, unit.toNanos(idle) / CHECKS);
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (ctx.channel().isActive()) {
      start(ctx);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    start(ctx);
    super.channelActive(ctx);
  }

  private void start(ChannelHandlerContext ctx) {
    if (check == null) {
      check = ctx.executor().scheduleAtFixedRate(() -> tick(ctx), periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    }
  }

  private void tick(ChannelHandlerContext ctx) {
    if (activity != seen) {
      seen = activity;
      quiet = 0;
    } else if (++quiet >= CHECKS) {
      quiet = 0;
      ctx.fireUserEventTriggered(IdleStateEvent.ALL_IDLE_STATE_EVENT);
    }
  }

  private void stop() {
    if (check != null) {
      check.cancel(false);
      check = null;
    }
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    stop();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    stop();
    super.channelInactive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    activity++;
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    activity++;
    ctx.write(msg, promise);
  }
}
