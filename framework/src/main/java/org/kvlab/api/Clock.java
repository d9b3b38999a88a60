package org.kvlab.api;

/**
 * A node's physical clock, in milliseconds since the epoch. The real runtime adds the node's configured
 * skew to the system clock; the simulator returns virtual time plus skew and drift. Protocol code must
 * read time only from here (never {@code System.currentTimeMillis}).
 */
@FunctionalInterface
public interface Clock {
  long millis();
}
