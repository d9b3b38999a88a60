package org.kvlab.runtime;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.kvlab.config.ClusterConfig.Limits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's budget for memory held by partly received frames on its accepted connections ({@code
 * limits.partialFrameBytesMax}, docs/runtime.md, "Memory of partly received frames"). Each connection's {@link
 * Wire.FrameDecoder} charges what it holds: the frame it is receiving at its declared size from the moment its length
 * is read (its buffer grows to that size at once), or its buffer's capacity if that is more.
 *
 * <p>Authenticated connections share the budget. When a charge would take their total above it, the largest client
 * connections are closed (the oldest of equals first) until the new frame fits; authenticated peers and control tools
 * are never closed for it and are always admitted. A client that still finds no room is closed itself. Connections not
 * yet authenticated (frames of at most {@link Limits#HANDSHAKE_FRAME_BYTES_MAX} bytes) have a reserve of their own,
 * {@link #HANDSHAKE_RESERVE}: over it, the largest of them are closed, never an authenticated one; so a budget full of
 * clients' frames never keeps a peer or a client from connecting. One log line per close names the limit and the fix.
 *
 * <p>The budget is at least one maximal frame ({@code frameBytesMax} + 4), so one legitimate maximal frame always gets
 * room. Event loop only: every connection of a node runs on its one event-loop thread.
 */
final class PartialFrames {
  private static final Logger LOG = LoggerFactory.getLogger(PartialFrames.class);
  /** What connections not yet authenticated may hold together: 256 handshake frames of the largest size at once. */
  static final long HANDSHAKE_RESERVE = 256L * (Limits.HANDSHAKE_FRAME_BYTES_MAX + Wire.LENGTH_BYTES);

  /** Who a connection is: not yet authenticated (the handshake reserve), a client (may be closed), a peer or tool. */
  enum Rank { UNAUTHENTICATED, CLIENT, TRUSTED }

  private final long max;
  private final String owner;
  private final String limitName;
  private final NodeMetrics metrics;
  /** The decoders holding something, in the order they started to (oldest first: ties close the oldest). */
  private final Set<Wire.FrameDecoder> holders = new LinkedHashSet<>();
  private long held; // by authenticated connections, against max
  private long handshakes; // by connections not yet authenticated, against HANDSHAKE_RESERVE

  /**
   * @param partialFrameBytesMax {@code limits.partialFrameBytesMax}
   * @param frameBytesMax {@code limits.frameBytesMax}: the budget is at least one maximal frame
   */
  PartialFrames(long partialFrameBytesMax, int frameBytesMax, String owner, NodeMetrics metrics) {
    this.max = Math.max(partialFrameBytesMax, frameBytesMax + (long) Wire.LENGTH_BYTES);
    this.owner = owner;
    this.metrics = metrics;
    this.limitName = "limits.partialFrameBytesMax = " + partialFrameBytesMax
        + (max > partialFrameBytesMax ? " (raised to one maximal frame, " + max + ")" : "");
  }

  /** The budget of authenticated connections in bytes (those not yet authenticated have their reserve besides). */
  long max() {
    return max;
  }

  /** Bytes held by partly received frames now, by all connections. */
  long held() {
    return held + handshakes;
  }

  /**
   * Sets what {@code d} holds to {@code bytes}; if that is more than before and its pool goes above its limit, closes
   * other holders of its pool that may be closed, largest first. False if there is still no room and {@code d} is not
   * trusted: its charge is then dropped and the caller closes it.
   */
  boolean hold(Wire.FrameDecoder d, long bytes) {
    long before = d.held;
    set(d, bytes);
    if (bytes <= before || !over(d.rank) || closeFor(d, bytes) || d.rank == Rank.TRUSTED) {
      return true; // a peer or tool is admitted even when nothing more can be closed
    }
    set(d, 0);
    metrics.count("wire.partialFramesClosed");
    return false;
  }

  private boolean over(Rank rank) {
    return rank == Rank.UNAUTHENTICATED ? handshakes > HANDSHAKE_RESERVE : held > max;
  }

  /**
   * Closes holders of {@code d}'s pool that may be closed for it (connections not yet authenticated for one of them,
   * clients for an authenticated one), largest first, until the pool fits; whether it does.
   */
  private boolean closeFor(Wire.FrameDecoder d, long bytes) {
    boolean handshake = d.rank == Rank.UNAUTHENTICATED;
    List<Wire.FrameDecoder> candidates = new ArrayList<>();
    for (Wire.FrameDecoder h : holders) {
      if (h != d && h.charged == handshake && (handshake || h.rank == Rank.CLIENT)) {
        candidates.add(h);
      }
    }
    // Stable sort: among equal holders the oldest (first in holders) goes first.
    candidates.sort(Comparator.comparingLong((Wire.FrameDecoder h) -> -h.held));
    for (Wire.FrameDecoder victim : candidates) {
      if (!over(d.rank)) {
        break;
      }
      LOG.warn("{}: closing {} connection from {}: it holds {} bytes of a partly received frame, and room is needed "
          + "for {} bytes from {} within {}. Fix: {}", owner, name(victim.rank), victim.remote(), victim.held, bytes,
          d.remote(), handshake ? reserveName() : limitName, fix(handshake));
      metrics.count("wire.partialFramesClosed");
      set(victim, 0);
      victim.closeForBudget();
    }
    return !over(d.rank);
  }

  /** The log line of a connection closed because its own frame found no room. */
  String refusal(Wire.FrameDecoder d, long bytes) {
    boolean handshake = d.charged;
    return "no room for a partly received frame of " + bytes + " bytes from a " + name(d.rank) + " connection within "
        + (handshake ? reserveName() : limitName) + " (held by others: " + (handshake ? handshakes : held)
        + " bytes). Fix: " + fix(handshake);
  }

  private static String reserveName() {
    return "the reserve of " + HANDSHAKE_RESERVE + " bytes for connections not yet authenticated";
  }

  private static String fix(boolean handshake) {
    return handshake ? "nothing to change if these connections are not yours (many handshakes at once, each sent in "
        + "pieces); else connect fewer at a time"
        : "if legitimate clients send large frames at the same time, raise limits.partialFrameBytesMax (keep it well "
        + "below the JVM's direct memory limit, -XX:MaxDirectMemorySize, which defaults to -Xmx)";
  }

  /** {@code d} holds nothing any more (its frame completed, or its connection closed). */
  void release(Wire.FrameDecoder d) {
    set(d, 0);
  }

  /** Charges {@code bytes} for {@code d} to the pool of its rank now (moving its charge if its handshake completed). */
  private void set(Wire.FrameDecoder d, long bytes) {
    if (d.charged) {
      handshakes -= d.held;
    } else {
      held -= d.held;
    }
    d.charged = d.rank == Rank.UNAUTHENTICATED;
    if (d.charged) {
      handshakes += bytes;
    } else {
      held += bytes;
    }
    d.held = bytes;
    if (bytes == 0) {
      holders.remove(d);
    } else {
      holders.add(d);
    }
  }

  private static String name(Rank rank) {
    return switch (rank) {
      case UNAUTHENTICATED -> "unauthenticated";
      case CLIENT -> "client";
      case TRUSTED -> "peer or tool";
    };
  }
}
