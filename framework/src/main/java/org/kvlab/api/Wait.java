package org.kvlab.api;

/**
 * A condition a server waits for ({@link ServerContext#waitUntil}, {@link ServerContext#waitUntilClock}).
 * {@link #cancel()} is idempotent; a cancelled wait never runs its action nor its timeout action.
 */
public interface Wait {
  void cancel();

  /** Whether the wait is over: its action or timeout action ran, or it was cancelled. */
  boolean done();
}
