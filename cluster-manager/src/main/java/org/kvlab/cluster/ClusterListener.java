package org.kvlab.cluster;

/**
 * Receives what a {@link ClusterBackend} does: a progress line (what it is doing now) and per-host events. May be
 * called from several threads at once (one per host); implementations must be thread-safe and quick.
 */
public interface ClusterListener {
  ClusterListener NONE = new ClusterListener() {};

  /** What the backend is doing now, e.g. "waiting for 6 instances in 2 regions to run". */
  default void progress(String message) {}

  /** Something happened on one host. */
  default void event(ClusterEvent event) {}
}
