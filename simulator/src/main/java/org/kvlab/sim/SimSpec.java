package org.kvlab.sim;

import java.util.List;
import java.util.Set;
import org.kvlab.api.Params;
import org.kvlab.api.Topology;
import org.kvlab.store.Durability;

/**
 * Everything that defines a simulated run except the seed. Immutable; use the {@code with...} copies.
 *
 * @param topology datacenters x partitions
 * @param params the protocol's parameters
 * @param durability what survives a crash: {@code sync} keeps every write, {@code none} loses writes
 *     made since the last background flush and the crashed node's undelivered messages
 * @param network latency model
 * @param faultKinds fault kinds to draw at random per seed (swarm style): partition, skew, crash, slow
 * @param faults explicit faults (scenario tests), in addition to the drawn ones
 * @param workload what the client sessions do
 * @param durationMicros how long sessions issue operations (faults all end before this)
 * @param settleMicros quiet time after the workload, before the final reads in every datacenter
 * @param trace record every message for diagrams (costs memory and some speed)
 * @param maxSkewMillis bound of drawn clock skew
 * @param finalReads whether the run ends with one reader per datacenter reading every written key
 * @param timelineMicros 0 = no time series; else the width of the buckets of {@link SimResult#timeline()}
 *     (completed operations and the servers' counters per bucket of virtual time)
 * @param serviceTime the servers' CPU cost per handled input ({@link ServiceTime}); {@link ServiceTime#NONE} = none
 */
public record SimSpec(
    Topology topology,
    Params params,
    Durability durability,
    NetworkModel network,
    Set<String> faultKinds,
    List<Fault> faults,
    Workload workload,
    long durationMicros,
    long settleMicros,
    boolean trace,
    long maxSkewMillis,
    boolean finalReads,
    long timelineMicros,
    ServiceTime serviceTime) {

  public static final Set<String> FAULT_KINDS = Set.of("partition", "skew", "crash", "slow");
  /** {@link #FAULT_KINDS} in the order the documentation gives them. */
  public static final List<String> FAULT_NAMES = List.of("partition", "skew", "crash", "slow");
  public static final long FLUSH_INTERVAL_MICROS = 200_000;
  public static final long CLIENT_TIMEOUT_MICROS = 2_000_000;

  public SimSpec {
    for (String kind : faultKinds) {
      if (!FAULT_KINDS.contains(kind)) {
        throw new IllegalArgumentException("unknown fault '" + kind + "'. Fix: " + org.kvlab.config.YamlReader
            .fixWithSuggestion(kind, FAULT_NAMES, "use partition, skew, crash or slow"));
      }
    }
    faults = List.copyOf(faults);
    serviceTime = serviceTime == null ? ServiceTime.NONE : serviceTime;
    faultKinds = Set.copyOf(faultKinds);
    if (timelineMicros < 0) {
      throw new IllegalArgumentException("the time series' bucket must be 0 (none) or positive, got "
          + timelineMicros + " µs. Fix: e.g. 1000000 (one second)");
    }
  }

  /** 2 datacenters x 3 partitions, 50 ms WAN RTT, no faults, 10 simulated seconds of the default workload. */
  public static SimSpec defaults() {
    return new SimSpec(new Topology(2, 3), Params.empty(), Durability.SYNC, NetworkModel.uniform(2, 50),
        Set.of(), List.of(), Workload.defaults(), 10_000_000, 3_000_000, true, 100, true, 0, ServiceTime.NONE);
  }

  public SimSpec withTopology(int datacenters, int partitions) {
    return new SimSpec(new Topology(datacenters, partitions), params, durability,
        network.baseMicros().length == datacenters ? network : NetworkModel.uniform(datacenters, 50),
        faultKinds, faults, workload, durationMicros, settleMicros, trace, maxSkewMillis, finalReads, timelineMicros, serviceTime);
  }

  /** {@code replicas} servers per partition per datacenter (a replication group, e.g. a Raft group). */
  public SimSpec withTopology(int datacenters, int partitions, int replicas) {
    return new SimSpec(new Topology(datacenters, partitions, replicas), params, durability,
        network.baseMicros().length == datacenters ? network : NetworkModel.uniform(datacenters, 50),
        faultKinds, faults, workload, durationMicros, settleMicros, trace, maxSkewMillis, finalReads, timelineMicros, serviceTime);
  }

  public SimSpec withParams(Params params) {
    return new SimSpec(topology, params, durability, network, faultKinds, faults, workload, durationMicros,
        settleMicros, trace, maxSkewMillis, finalReads, timelineMicros, serviceTime);
  }

  public SimSpec withDurability(Durability durability) {
    return new SimSpec(topology, params, durability, network, faultKinds, faults, workload, durationMicros,
        settleMicros, trace, maxSkewMillis, finalReads, timelineMicros, serviceTime);
  }

  public SimSpec withNetwork(NetworkModel network) {
    return new SimSpec(topology, params, durability, network, faultKinds, faults, workload, durationMicros,
        settleMicros, trace, maxSkewMillis, finalReads, timelineMicros, serviceTime);
  }

  public SimSpec withFaultKinds(Set<String> kinds) {
    return new SimSpec(topology, params, durability, network, kinds, faults, workload, durationMicros,
        settleMicros, trace, maxSkewMillis, finalReads, timelineMicros, serviceTime);
  }

  public SimSpec withFaults(List<Fault> faults) {
    return new SimSpec(topology, params, durability, network, faultKinds, faults, workload, durationMicros,
        settleMicros, trace, maxSkewMillis, finalReads, timelineMicros, serviceTime);
  }

  public SimSpec withWorkload(Workload workload) {
    return new SimSpec(topology, params, durability, network, faultKinds, faults, workload, durationMicros,
        settleMicros, trace, maxSkewMillis, finalReads, timelineMicros, serviceTime);
  }

  public SimSpec withDuration(long durationMicros) {
    return new SimSpec(topology, params, durability, network, faultKinds, faults, workload, durationMicros,
        settleMicros, trace, maxSkewMillis, finalReads, timelineMicros, serviceTime);
  }

  public SimSpec withSettle(long settleMicros) {
    return new SimSpec(topology, params, durability, network, faultKinds, faults, workload, durationMicros,
        settleMicros, trace, maxSkewMillis, finalReads, timelineMicros, serviceTime);
  }

  public SimSpec withTrace(boolean trace) {
    return new SimSpec(topology, params, durability, network, faultKinds, faults, workload, durationMicros,
        settleMicros, trace, maxSkewMillis, finalReads, timelineMicros, serviceTime);
  }

  public SimSpec withMaxSkewMillis(long maxSkewMillis) {
    return new SimSpec(topology, params, durability, network, faultKinds, faults, workload, durationMicros,
        settleMicros, trace, maxSkewMillis, finalReads, timelineMicros, serviceTime);
  }

  /**
   * How many operations the workload's sessions complete in {@code durationMicros} if each operation waits
   * {@code wanRoundTrips} round trips over the slowest link between two datacenters, plus one round trip inside its
   * own datacenter and the mean think time: every session of every datacenter, closed loop, no faults. A protocol's
   * test asks for a share of it ("did the sessions do any work?"); a share, because faults stall sessions (a
   * partition or a crash holds an operation up to {@link #CLIENT_TIMEOUT_MICROS}).
   */
  public long closedLoopOperations(int wanRoundTrips) {
    if (wanRoundTrips < 0) {
      throw new IllegalArgumentException("wanRoundTrips must be >= 0, got " + wanRoundTrips);
    }
    long[][] base = network.baseMicros();
    long wanRtt = 0;
    long localRtt = 0;
    for (int a = 0; a < base.length; a++) {
      for (int b = 0; b < base.length; b++) {
        if (a == b) {
          localRtt = Math.max(localRtt, 2 * base[a][a]);
        } else {
          wanRtt = Math.max(wanRtt, base[a][b] + base[b][a]);
        }
      }
    }
    long perOperation = Math.max(1, wanRoundTrips * wanRtt + localRtt + workload.thinkMicros() / 2);
    long sessions = (long) workload.sessionsPerDc() * topology.datacenters();
    return sessions * durationMicros / perOperation;
  }

  /**
   * Whether the run ends with one reader per datacenter reading every written key (the convergence checker's input;
   * default true). Benchmarks that only measure the workload can skip it.
   */
  public SimSpec withFinalReads(boolean finalReads) {
    return new SimSpec(topology, params, durability, network, faultKinds, faults, workload, durationMicros,
        settleMicros, trace, maxSkewMillis, finalReads, timelineMicros, serviceTime);
  }

  /**
   * With a time series ({@link SimResult#timeline()}) in buckets of {@code bucketMicros} of virtual time; 0 = none
   * (the default: the run then does no per-bucket bookkeeping).
   */
  public SimSpec withTimeline(long bucketMicros) {
    return new SimSpec(topology, params, durability, network, faultKinds, faults, workload, durationMicros,
        settleMicros, trace, maxSkewMillis, finalReads, bucketMicros, serviceTime);
  }

  /**
   * With the servers' CPU cost per handled message and request ({@link ServiceTime}): a server handles one input at a
   * time and saturates; {@link ServiceTime#NONE} (the default) handles everything in zero time.
   */
  public SimSpec withServiceTime(ServiceTime serviceTime) {
    return new SimSpec(topology, params, durability, network, faultKinds, faults, workload, durationMicros,
        settleMicros, trace, maxSkewMillis, finalReads, timelineMicros, serviceTime);
  }
}
