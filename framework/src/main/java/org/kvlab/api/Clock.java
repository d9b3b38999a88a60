package org.kvlab.api;

/**
 * A node's physical clock, in milliseconds since the epoch. The real runtime adds the node's configured
 * skew to the system clock; the simulator returns virtual time plus skew and drift. Protocol code must
 * read time only from here (never {@code System.currentTimeMillis}).
 */
@FunctionalInterface
public interface Clock {
  long millis();

  /**
   * The same clock in microseconds since the epoch. Protocols whose timestamps must be unique and
   * strictly increasing per server at thousands of writes a second (GentleRain's ut) use this: at
   * millisecond resolution "max(clock, last + 1)" would run ahead of the clock under load. The
   * default has millisecond resolution; the runtime's and the simulator's clocks override it.
   */
  default long micros() {
    return Math.multiplyExact(millis(), 1000L);
  }
}
