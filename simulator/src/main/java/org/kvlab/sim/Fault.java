package org.kvlab.sim;

import org.kvlab.api.NodeId;

/** One fault of a simulated run, with its virtual start and end times (microseconds). */
public sealed interface Fault {
  long startMicros();

  long endMicros();

  String describe();

  /** Links between two datacenters are down (both directions); messages wait and flow after healing. */
  record Partition(int dcA, int dcB, long startMicros, long endMicros) implements Fault {
    public String describe() {
      return String.format("partition dc%d|dc%d %s..%s", dcA, dcB, ms(startMicros), ms(endMicros));
    }
  }

  /** A server is down (state lost, store recovered per durability) and restarts at the end. */
  record Crash(NodeId node, long startMicros, long endMicros) implements Fault {
    public String describe() {
      return String.format("crash %s %s..%s", node, ms(startMicros), ms(endMicros));
    }
  }

  /**
   * A slow server: every message it sends to other servers, and its replies to clients of other
   * datacenters, are delayed by an extra {@code delayMicros} (slow replication, the seed's "slow
   * partition"); its replies to clients of its own datacenter are not.
   */
  record Slow(NodeId node, long delayMicros, long startMicros, long endMicros) implements Fault {
    public String describe() {
      return String.format("slow %s +%s %s..%s", node, ms(delayMicros), ms(startMicros), ms(endMicros));
    }
  }

  /** A server's clock is offset by {@code skewMicros} and runs {@code driftPpm} fast (whole run). */
  record Skew(NodeId node, long skewMicros, double driftPpm) implements Fault {
    public long startMicros() {
      return 0;
    }

    public long endMicros() {
      return Long.MAX_VALUE;
    }

    public String describe() {
      return String.format("skew %s %+.1fms drift %+.0fppm", node, skewMicros / 1000.0, driftPpm);
    }
  }

  /**
   * One line for a run's faults (the FAULTS column of {@code kvlab sim}): each partition, crash and slow
   * node; clock skew, drawn on every node, as one summary (nodes, largest offset, largest drift), or
   * per node when at most two nodes are skewed.
   */
  static String summary(java.util.List<Fault> faults) {
    java.util.List<String> parts = new java.util.ArrayList<>();
    java.util.List<Skew> skews = new java.util.ArrayList<>();
    for (Fault f : faults) {
      if (f instanceof Skew k) {
        skews.add(k);
      } else {
        parts.add(f.describe());
      }
    }
    if (skews.size() <= 2) {
      skews.forEach(k -> parts.add(k.describe()));
    } else {
      long maxSkew = skews.stream().mapToLong(k -> Math.abs(k.skewMicros())).max().orElse(0);
      double maxDrift = skews.stream().mapToDouble(k -> Math.abs(k.driftPpm())).max().orElse(0);
      parts.add(String.format("skew %d nodes up to ±%.1fms drift up to ±%.0fppm", skews.size(), maxSkew / 1000.0,
          maxDrift));
    }
    return String.join("; ", parts);
  }

  static String ms(long micros) {
    return micros % 1000 == 0 ? (micros / 1000) + "ms" : String.format("%.1fms", micros / 1000.0);
  }
}
