package org.kvlab.clock;

import org.kvlab.api.Clock;

/**
 * The real runtime's physical clock: {@link System#currentTimeMillis()} plus a fixed skew in
 * milliseconds (the per-server {@code skewMillis} of the cluster's emulation settings), so that clock
 * anomalies (§5.1 of seed 003, Figs 5.1–5.2) can be emulated on one machine.
 *
 * <p>Immutable and thread-safe. Like the system clock it reads, it may jump backward (NTP); protocols
 * that need monotonic, causality-respecting timestamps wrap it in a {@link HybridLogicalClock}.
 */
public final class PhysicalClock implements Clock {
  private static final PhysicalClock SYSTEM = new PhysicalClock(0);

  private final long skewMillis;

  /** @param skewMillis added to every reading; may be negative */
  public PhysicalClock(long skewMillis) {
    this.skewMillis = skewMillis;
  }

  /** The system clock without skew. */
  public static PhysicalClock system() {
    return SYSTEM;
  }

  public long skewMillis() {
    return skewMillis;
  }

  @Override
  public long millis() {
    return System.currentTimeMillis() + skewMillis;
  }

  /** The system clock at its finest resolution (microseconds on Linux) plus the skew. */
  @Override
  public long micros() {
    java.time.Instant t = java.time.Instant.now();
    return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000 + skewMillis * 1000L;
  }

  @Override
  public String toString() {
    return "PhysicalClock[skew=" + skewMillis + "ms]";
  }
}
