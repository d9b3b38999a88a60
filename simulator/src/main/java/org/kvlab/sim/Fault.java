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

  /** Every message a server sends is delayed by an extra {@code delayMicros}. */
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

  static String ms(long micros) {
    return micros % 1000 == 0 ? (micros / 1000) + "ms" : String.format("%.1fms", micros / 1000.0);
  }
}
