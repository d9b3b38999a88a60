package org.kvlab.sim;

import java.util.List;
import org.kvlab.history.History;

/**
 * The outcome of one simulated run.
 *
 * @param seed the seed that reproduces it
 * @param history every client operation
 * @param faults the faults that were injected
 * @param failures invariant violations or handler crashes (each fails the run)
 * @param trace the message trace (empty if tracing was off)
 * @param deliveries messages delivered: server to server, client requests and replies
 * @param events simulator events processed
 * @param virtualMicros simulated time at the end
 * @param wallNanos real time the run took
 * @param cpuNanos CPU time of the simulating thread (robust on a shared, noisy machine)
 * @param counters the servers' {@link org.kvlab.api.Metrics}, summed over all servers: {@code count(name)} adds one
 *     to {@code name}; {@code record(name, v)} adds v to {@code name.sum} and one to {@code name.count}
 */
public record SimResult(long seed, History history, List<Fault> faults, List<String> failures, Trace trace,
    long deliveries, long events, long virtualMicros, long wallNanos, long cpuNanos,
    java.util.Map<String, Long> counters) {

  public SimResult(long seed, History history, List<Fault> faults, List<String> failures, Trace trace,
      long deliveries, long events, long virtualMicros, long wallNanos, long cpuNanos) {
    this(seed, history, faults, failures, trace, deliveries, events, virtualMicros, wallNanos, cpuNanos,
        java.util.Map.of());
  }

  /** Counter {@code name} (0 if no server counted it). */
  public long counter(String name) {
    return counters.getOrDefault(name, 0L);
  }

  public boolean failed() {
    return !failures.isEmpty();
  }
}
