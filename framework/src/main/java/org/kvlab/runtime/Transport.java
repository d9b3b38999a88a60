package org.kvlab.runtime;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
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
 * Java NIO (portable) or Netty's native epoll transport (Linux x86-64 only). Chosen per JVM with the system
 * property {@value #PROPERTY} ({@code nio} or {@code epoll}; unset: {@link #DEFAULT}). Where epoll is not
 * available (another OS or architecture, no native library) the runtime falls back to NIO and says so once in
 * the log: a warning when epoll was asked for explicitly.
 */
public enum Transport {
  NIO("nio"),
  EPOLL("epoll");

  private static final Logger LOG = LoggerFactory.getLogger(Transport.class);
  /** The system property that selects the transport, e.g. {@code -Dkvlab.transport=nio}. */
  public static final String PROPERTY = "kvlab.transport";
  /** The transport when {@value #PROPERTY} is unset (falls back to NIO where epoll is not available). */
  public static final Transport DEFAULT = NIO;
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
    return parse(System.getProperty(PROPERTY)).available(System.getProperty(PROPERTY) != null);
  }

  /** This transport if it can run here, else NIO (logged once per JVM; as a warning when {@code asked}). */
  Transport available(boolean asked) {
    if (this != EPOLL || Epoll.isAvailable()) {
      return this;
    }
    if (FALLBACK_LOGGED.compareAndSet(false, true)) {
      String why = "Netty's native epoll transport is not available on this machine (" + System.getProperty("os.name")
          + " " + System.getProperty("os.arch") + ": " + Epoll.unavailabilityCause() + "); using Java NIO";
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

  Class<? extends ServerChannel> serverChannel() {
    return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  Class<? extends SocketChannel> socketChannel() {
    return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  @Override
  public String toString() {
    return setting;
  }
}
