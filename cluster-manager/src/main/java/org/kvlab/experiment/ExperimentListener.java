package org.kvlab.experiment;

import java.util.Map;

/**
 * Live progress of an {@link ExperimentRunner} for front ends that draw it (the designer's benchmark charts):
 * registered with {@link ExperimentRunner#addListener}. Called on the runner's thread; implementations return
 * quickly and hand the data to their own thread. An exception thrown by a listener is logged and ignored: it
 * never stops the experiment.
 */
public interface ExperimentListener {
  /** Run {@code run} (of {@code total}) is starting: its cluster is about to be deployed. */
  default void runStarted(Experiment.Run run, int total) {}

  /**
   * About once a second while the clients of a phase run, and once more when they have all exited: the latest
   * interval's throughput and latencies. So every interval histogram the clients' logs gained is reported once,
   * the last ones included, however briefly the phase ran.
   */
  default void interval(Interval interval) {}

  /** A run ended (ok, failed or interrupted); {@code result} is what results.json records for it. */
  default void runFinished(Results.RunResult result) {}

  /**
   * One interval (about a second) of one phase of one run, all clients together.
   *
   * @param run the run (index, protocol, variation, repeat)
   * @param runs how many runs the experiment has
   * @param phase {@code load} or {@code run}
   * @param seconds seconds since the phase's clients started (the furthest client's YCSB status line)
   * @param warmup whether the interval lies in the warm-up (run phase only), which the results leave out
   * @param opsPerSecond the clients' current throughput, summed (YCSB's "current ops/sec")
   * @param latencies per operation ({@code READ}, {@code UPDATE}, ...) and {@link #ALL} (every operation), the
   *     latencies of the interval histograms written since the previous interval, merged over clients (an
   *     operation none of which completed in them is left out). Clients on SSH/EC2 hosts are followed over the
   *     backend's connection ({@link org.kvlab.cluster.ClientHandle#readNew}); an interval in which a host could not
   *     be read leaves that client's latencies for the next one
   */
  record Interval(Experiment.Run run, int runs, String phase, long seconds, boolean warmup, double opsPerSecond,
      Map<String, Latency> latencies) {
    /** The key of the latencies of every operation together. */
    public static final String ALL = "ALL";
  }

  /** Latencies of one operation in one interval, in microseconds. */
  record Latency(long count, long p50Micros, long p99Micros) {}
}
