package org.kvlab.protocols.dynastar;

import java.util.ArrayList;
import java.util.List;
import org.kvlab.api.NodeId;
import org.kvlab.api.Topology;

/**
 * Which servers form each DynaStar partition, decided by the topology alone (docs/protocols.md#dynastar):
 *
 * <ul>
 *   <li>1 datacenter, 1 replica: one server per partition, node (0, p) (the evaluation's shape; durable slot state,
 *       {@link org.kvlab.consensus.multicast.SkeenMulticast});
 *   <li>1 datacenter, R replicas: partition p is the Raft group of its R replicas (0, p, r);
 *   <li>R datacenters, 1 replica: partition p is the Raft group of (d, p) over every datacenter d, so replica d of
 *       every partition is in datacenter d and the simulator's partitions between datacenters cut every group.
 * </ul>
 *
 * Replicated partitions (and the replicated oracle) run over {@link org.kvlab.consensus.multicast.ReplicatedMulticast}
 * ({@link GroupReplica}).
 */
final class Groups {
  private Groups() {}

  /** Whether the partitions are Raft groups (more than one replica or datacenter). */
  static boolean replicated(Topology t) {
    return t.replicas() > 1 || t.datacenters() > 1;
  }

  /** The servers of partition {@code p}, replica 0 first. */
  static List<NodeId> of(Topology t, int p) {
    if (t.datacenters() > 1) {
      List<NodeId> out = new ArrayList<>();
      for (int d = 0; d < t.datacenters(); d++) {
        out.add(t.node(d, p));
      }
      return out;
    }
    return t.replicasOf(0, p);
  }

  /** Every partition's servers (the oracle's last). */
  static List<List<NodeId>> all(Topology t) {
    List<List<NodeId>> out = new ArrayList<>();
    for (int p = 0; p < t.partitions(); p++) {
      out.add(of(t, p));
    }
    return out;
  }

  /** Replicas per partition. */
  static int size(Topology t) {
    return Math.max(t.replicas(), t.datacenters());
  }
}
