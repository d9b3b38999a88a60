package org.kvlab.runtime;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's budget for memory held by partly received frames on its accepted connections ({@code
 * limits.partialFrameBytesMax}, docs/runtime.md, "Memory of partly received frames"). Each connection's {@link
 * Wire.FrameDecoder} charges what it holds: the frame it is receiving at its declared size from the moment its length
 * is read (its buffer grows to that size at once), or its buffer's capacity if that is more. When a charge would take
 * the total above the budget, the largest holders are closed first among connections not yet authenticated, then among
 * client connections; authenticated peers and control tools are never closed for it. A connection may close only
 * holders of its own rank or a lower one (one not yet authenticated never closes a client's); if the budget is still
 * exceeded it is closed itself, except a peer or tool, which is always admitted. One log line per close names the limit
 * and the fix.
 *
 * <p>The budget is at least one maximal frame ({@code frameBytesMax} + 4), so one legitimate maximal frame always gets
 * room. Event loop only: every connection of a node runs on its one event-loop thread.
 */
final class PartialFrames {
  private static final Logger LOG = LoggerFactory.getLogger(PartialFrames.class);

  /** Who a connection is, in the order its partial frames are given up: first the lowest. */
  enum Rank { UNAUTHENTICATED, CLIENT, TRUSTED }

  private final long max;
  private final String owner;
  private final String limitName;
  private final NodeMetrics metrics;
  /** The decoders holding something, in the order they started to (oldest first: ties close the oldest). */
  private final Set<Wire.FrameDecoder> holders = new LinkedHashSet<>();
  private long held;

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

  /** The budget in bytes. */
  long max() {
    return max;
  }

  /** Bytes held by partly received frames now. */
  long held() {
    return held;
  }

  /**
   * Sets what {@code d} holds to {@code bytes}; if that is more than before and the total goes above the budget, closes
   * other holders of {@code d}'s rank or lower, largest first. False if there is still no room and {@code d} is not
   * trusted: its charge is then dropped and the caller closes it.
   */
  boolean hold(Wire.FrameDecoder d, long bytes) {
    long before = d.held;
    set(d, bytes);
    if (bytes <= before || held <= max || closeFor(d, bytes) || d.rank == Rank.TRUSTED) {
      return true; // a peer or tool is admitted even when nothing more can be closed
    }
    set(d, 0);
    metrics.count("wire.partialFramesClosed");
    return false;
  }

  /** Closes holders below or at {@code d}'s rank, lowest rank and largest first, until the total fits; whether it does. */
  private boolean closeFor(Wire.FrameDecoder d, long bytes) {
    List<Wire.FrameDecoder> candidates = new ArrayList<>();
    for (Wire.FrameDecoder h : holders) {
      if (h != d && h.rank != Rank.TRUSTED && h.rank.compareTo(d.rank) <= 0) {
        candidates.add(h);
      }
    }
    // Stable sort: among equal holders the oldest (first in holders) goes first.
    candidates.sort(Comparator.comparing((Wire.FrameDecoder h) -> h.rank).thenComparing(h -> -h.held));
    for (Wire.FrameDecoder victim : candidates) {
      if (held <= max) {
        break;
      }
      LOG.warn("{}: closing {} connection from {}: it holds {} bytes of a partly received frame, and room is needed "
          + "for {} bytes from {} within {}. Fix: if legitimate clients send large frames at the same time, raise "
          + "limits.partialFrameBytesMax (keep it well below the JVM's direct memory limit, -XX:MaxDirectMemorySize, "
          + "which defaults to -Xmx)", owner, name(victim.rank), victim.remote(), victim.held, bytes, d.remote(),
          limitName);
      metrics.count("wire.partialFramesClosed");
      set(victim, 0);
      victim.closeForBudget();
    }
    return held <= max;
  }

  /** The log line of a connection closed because its own frame found no room. */
  String refusal(Wire.FrameDecoder d, long bytes) {
    return "no room for a partly received frame of " + bytes + " bytes from a " + name(d.rank) + " connection within "
        + limitName + " (held by other connections: " + held + " bytes). Fix: if legitimate clients send large frames "
        + "at the same time, raise limits.partialFrameBytesMax (keep it well below the JVM's direct memory limit)";
  }

  /** {@code d} holds nothing any more (its frame completed, or its connection closed). */
  void release(Wire.FrameDecoder d) {
    set(d, 0);
  }

  private void set(Wire.FrameDecoder d, long bytes) {
    held += bytes - d.held;
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
