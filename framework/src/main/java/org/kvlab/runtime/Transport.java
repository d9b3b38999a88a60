package org.kvlab.runtime;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollMode;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.Locale;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The network transport of servers ({@link Node}, its {@link PeerLink}s) and clients ({@link ClientRuntime}):
 * Netty's native epoll transport (Linux x86-64; the default there, level-triggered: less server CPU at idle and per
 * operation, docs/runtime.md) or Java NIO (portable). Chosen per JVM with the system property {@value #PROPERTY}
 * ({@code epoll} or {@code nio}; unset: {@link #DEFAULT}). Where epoll is not available (another OS or
 * architecture, no native library) the runtime falls back to NIO and says so once in the log: a warning when
 * epoll was asked for explicitly, else an info line in a server (a debug line in a client, whose front end, e.g.
 * the shell, shows info lines).
 */
public enum Transport {
  NIO("nio"),
  EPOLL("epoll");

  private static final Logger LOG = LoggerFactory.getLogger(Transport.class);
  /** The system property that selects the transport, e.g. {@code -Dkvlab.transport=nio}. */
  public static final String PROPERTY = "kvlab.transport";
  /** The transport when {@value #PROPERTY} is unset (falls back to NIO where epoll is not available). */
  public static final Transport DEFAULT = EPOLL;
  private static final AtomicBoolean FALLBACK_LOGGED = new AtomicBoolean();

  private final String setting;

  Transport(String setting) {
    this.setting = setting;
  }

  /** The value of {@value #PROPERTY} that selects this transport. */
  public String setting() {
    return setting;
  }

  /**
   * The transport named by {@code value} (a value of {@value #PROPERTY}; null or blank: {@link #DEFAULT}), or an
   * {@link IllegalArgumentException} whose message names the accepted values.
   */
  public static Transport parse(String value) {
    if (value == null || value.isBlank()) {
      return DEFAULT;
    }
    String v = value.strip().toLowerCase(Locale.ROOT);
    for (Transport t : values()) {
      if (t.setting.equals(v)) {
        return t;
      }
    }
    throw new IllegalArgumentException("-D" + PROPERTY + "=" + Wire.printable(value) + " is not a transport. Fix: use -D"
        + PROPERTY + "=nio (Java NIO, any platform) or -D" + PROPERTY + "=epoll (Netty's native epoll, Linux x86-64), "
        + "or leave it unset for the default (" + DEFAULT.setting + ")");
  }

  /**
   * The transport this JVM's setting asks for ({@value #PROPERTY}), as available here: NIO instead of epoll where
   * epoll is not available. Throws {@link IllegalArgumentException} for an unknown setting.
   */
  public static Transport configured() {
    return configured(false);
  }

  /** As {@link #configured()}; a {@code server} logs a fallback to NIO at info, a client at debug. */
  static Transport configured(boolean server) {
    String value = System.getProperty(PROPERTY);
    return parse(value).available(value != null, server);
  }

  /**
   * This transport if it can run here, else NIO, logged once per JVM: as a warning when epoll was {@code asked}
   * for, at info in a {@code server}, at debug in a client (every time: a server of the same JVM still says it).
   */
  Transport available(boolean asked, boolean server) {
    if (this != EPOLL || Epoll.isAvailable()) {
      return this;
    }
    String why = "Netty's native epoll transport is not available on this machine (" + System.getProperty("os.name")
        + " " + System.getProperty("os.arch") + ": " + Epoll.unavailabilityCause() + "); using Java NIO";
    if (!asked && !server) {
      LOG.debug(why);
    } else if (FALLBACK_LOGGED.compareAndSet(false, true)) {
      if (asked) {
        LOG.warn("-D{}=epoll: {}. Fix: use -D{}=nio to silence this, or run on Linux x86-64", PROPERTY, why, PROPERTY);
      } else {
        LOG.info(why);
      }
    }
    return NIO;
  }

  /** Whether this transport can run in this JVM. */
  public boolean isAvailable() {
    return this == NIO || Epoll.isAvailable();
  }

  EventLoopGroup newGroup(int threads, ThreadFactory threadFactory) {
    return this == EPOLL ? new EpollEventLoopGroup(threads, threadFactory) : new NioEventLoopGroup(threads, threadFactory);
  }

  /**
   * {@code b} on this transport: its channel class and, for epoll, level-triggered events (what NIO does: a
   * read that fills less than its buffer ends the read loop; edge-triggered would read once more, until EAGAIN).
   */
  io.netty.bootstrap.ServerBootstrap applyTo(io.netty.bootstrap.ServerBootstrap b) {
    b.channel(serverChannel());
    if (this == EPOLL) {
      b.childOption(EpollChannelOption.EPOLL_MODE, EpollMode.LEVEL_TRIGGERED);
    }
    return b;
  }

  /** As {@link #applyTo(io.netty.bootstrap.ServerBootstrap)} for a connecting channel. */
  io.netty.bootstrap.Bootstrap applyTo(io.netty.bootstrap.Bootstrap b) {
    b.channel(socketChannel());
    if (this == EPOLL) {
      b.option(EpollChannelOption.EPOLL_MODE, EpollMode.LEVEL_TRIGGERED);
    }
    return b;
  }

  private Class<? extends ServerChannel> serverChannel() {
    return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  private Class<? extends SocketChannel> socketChannel() {
    return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  @Override
  public String toString() {
    return setting;
  }
}
