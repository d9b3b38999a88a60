package org.kvlab.clock;

import java.util.concurrent.atomic.AtomicLong;
import org.kvlab.api.Clock;

/**
 * A physical clock that only moves when told to, for tests (of this and other modules). It may be
 * set or advanced backward, to emulate NTP corrections and other backward jumps.
 *
 * <p>Thread-safe (a test thread may move it while a node reads it).
 */
public final class ManualClock implements Clock {
  private final AtomicLong millis;

  /** Starts at 0. */
  public ManualClock() {
    this(0);
  }

  public ManualClock(long startMillis) {
    this.millis = new AtomicLong(startMillis);
  }

  @Override
  public long millis() {
    return millis.get();
  }

  /** Sets the reading; may move the clock backward. */
  public void set(long newMillis) {
    millis.set(newMillis);
  }

  /**
   * Moves the clock by {@code deltaMillis} (negative = backward jump).
   *
   * @return the new reading
   */
  public long advance(long deltaMillis) {
    return millis.addAndGet(deltaMillis);
  }

  @Override
  public String toString() {
    return "ManualClock[" + millis.get() + "]";
  }
}
