package org.kvlab.api;

/** A scheduled task; {@link #cancel()} is idempotent and safe to call from the node's own handlers. */
public interface Timer {
  void cancel();
}
