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
 * @param startFailures the servers whose first start (at time 0, before any client) threw, each also in
 *     {@code failures}: the run could not begin, so its history says nothing about the protocol's guarantees
 * @param timeline the time series, if the spec asked for one ({@link SimSpec#withTimeline}); else null
 */
public record SimResult(long seed, History history, List<Fault> faults, List<String> failures, Trace trace,
    long deliveries, long events, long virtualMicros, long wallNanos, long cpuNanos,
    java.util.Map<String, Long> counters, List<StartFailure> startFailures, Timeline timeline) {

  public SimResult(long seed, History history, List<Fault> faults, List<String> failures, Trace trace,
      long deliveries, long events, long virtualMicros, long wallNanos, long cpuNanos,
      java.util.Map<String, Long> counters, List<StartFailure> startFailures) {
    this(seed, history, faults, failures, trace, deliveries, events, virtualMicros, wallNanos, cpuNanos, counters,
        startFailures, null);
  }

  /**
   * A server that threw while starting for the first time.
   *
   * @param server the server, e.g. {@code 0_1}
   * @param cause what its {@code bind} or {@code start} threw
   */
  public record StartFailure(String server, RuntimeException cause) {
    /**
     * Whether the server refused the cluster's parameters or shape ({@link org.kvlab.api.ParameterException},
     * {@link org.kvlab.api.TopologyException}, or another {@link IllegalArgumentException}): a configuration the
     * protocol does not run with, rather than a bug in its code.
     */
    public boolean refusedConfiguration() {
      return cause instanceof IllegalArgumentException;
    }

    /** "server 0_0: java.lang.IllegalStateException: boom (at MyServer.start(MyServer.java:42))". */
    public String describe() {
      StackTraceElement[] at = cause.getStackTrace();
      return "server " + server + ": " + cause + (at.length == 0 ? "" : " (at " + at[0] + ")");
    }
  }

  public SimResult(long seed, History history, List<Fault> faults, List<String> failures, Trace trace,
      long deliveries, long events, long virtualMicros, long wallNanos, long cpuNanos,
      java.util.Map<String, Long> counters) {
    this(seed, history, faults, failures, trace, deliveries, events, virtualMicros, wallNanos, cpuNanos, counters,
        List.of());
  }

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
