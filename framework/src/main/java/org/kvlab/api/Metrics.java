package org.kvlab.api;

/**
 * Protocol-level metrics. Counters and value recorders are created on first use and show up in the
 * node's status (counters) and benchmark reports. Calls are cheap and never block.
 */
public interface Metrics {
  /** Adds one to counter {@code name}. */
  void count(String name);

  /** Records {@code value} (e.g. a wait in milliseconds) into the histogram {@code name}. */
  void record(String name, long value);

  Metrics NOP = new Metrics() {
    @Override public void count(String name) {}
    @Override public void record(String name, long value) {}
  };
}
