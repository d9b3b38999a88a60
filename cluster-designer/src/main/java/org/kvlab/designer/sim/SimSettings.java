package org.kvlab.designer.sim;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.kvlab.api.Params;
import org.kvlab.api.Topology;
import org.kvlab.check.Checkers;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Workload;

/**
 * What the Simulate tab runs, except the seed: the same knobs as {@code kvlab sim} (protocol, topology, faults,
 * checkers, workload time, RTT), turned into a {@link SimSpec} the way the CLI does.
 *
 * @param protocol installed protocol name
 * @param topology datacenters x partitions (x replicas)
 * @param rttMillis round-trip time between datacenters: a matrix from the cluster file's emulation section, or
 *     null for {@code uniformRttMillis} between every pair
 * @param uniformRttMillis RTT between any two datacenters when there is no matrix
 * @param params the protocol's parameters (from the cluster file)
 * @param sessionsPerDc client sessions per datacenter
 * @param keys key space size
 * @param durationMillis simulated workload time per seed
 * @param faults fault kinds drawn per seed (partition, skew, crash, slow)
 * @param checkers checker names
 * @param clockSkews fixed clock skews of servers (the cluster file's emulated skew), applied in every seed on top of
 *     the drawn faults
 */
public record SimSettings(String protocol, Topology topology, long[][] rttMillis, double uniformRttMillis,
    Params params, int sessionsPerDc, int keys, long durationMillis, Set<String> faults, List<String> checkers,
    List<org.kvlab.sim.Fault.Skew> clockSkews) {

  public SimSettings {
    faults = Set.copyOf(faults);
    clockSkews = List.copyOf(clockSkews);
    checkers = List.copyOf(checkers);
    if (durationMillis <= 0) {
      throw new IllegalArgumentException("workload time " + durationMillis + " ms: give a positive duration, e.g. 2000");
    }
    if (sessionsPerDc < 1) {
      throw new IllegalArgumentException("sessions per datacenter " + sessionsPerDc + ": give at least 1");
    }
    if (checkers.isEmpty()) {
      throw new IllegalArgumentException("no checker chosen: tick at least one (e.g. session or convergence)");
    }
  }

  /** The spec of one traced run; checker names are validated (canonical names, or an error naming the known). */
  public SimSpec spec() {
    Checkers.validate(checkers);
    Workload w = Workload.defaults().withSessionsPerDc(sessionsPerDc).withKeys(keys);
    NetworkModel network;
    if (rttMillis != null) {
      double[][] rtt = new double[rttMillis.length][];
      for (int i = 0; i < rtt.length; i++) {
        rtt[i] = new double[rttMillis[i].length];
        for (int j = 0; j < rtt[i].length; j++) {
          rtt[i][j] = rttMillis[i][j];
        }
      }
      network = NetworkModel.fromRttMillis(rtt);
    } else {
      network = NetworkModel.uniform(topology.datacenters(), uniformRttMillis);
    }
    return SimSpec.defaults().withTopology(topology.datacenters(), topology.partitions(), topology.replicas())
        .withParams(params).withNetwork(network).withFaultKinds(new LinkedHashSet<>(faults)).withWorkload(w)
        .withDuration(durationMillis * 1000).withFaults(List.copyOf(clockSkews)).withTrace(true);
  }

  /** The {@code kvlab sim} command that runs the same seed (for the log, and to share a failing seed). */
  public String command(long seed) {
    StringBuilder cmd = new StringBuilder("./kvlab sim --protocol " + protocol + " --seeds " + seed);
    if (!faults.isEmpty()) {
      cmd.append(" --faults ").append(String.join(",", new java.util.TreeSet<>(faults)));
    }
    cmd.append(" --check ").append(String.join(",", checkers)).append(" --duration ").append(durationMillis)
        .append("ms --datacenters ").append(topology.datacenters()).append(" --partitions ")
        .append(topology.partitions()).append(" --sessions ").append(sessionsPerDc).append(" --keys ").append(keys);
    params.asMap().forEach((k, v) -> cmd.append(" --param ").append(k).append('=').append(v));
    if (!clockSkews.isEmpty()) {
      cmd.append(" (plus the cluster file's clock skews, which kvlab sim does not take)");
    }
    if (rttMillis != null) {
      cmd.append(" (RTTs: the cluster file's matrix; kvlab sim takes one --rtt for every pair)");
    } else {
      cmd.append(" --rtt ").append(uniformRttMillis % 1 == 0 ? String.valueOf((long) uniformRttMillis)
          : String.valueOf(uniformRttMillis)).append("ms");
    }
    return cmd.toString();
  }
}
