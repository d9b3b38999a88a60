package org.kvlab.api;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The shape of the cluster: {@code datacenters} full replicas, each splitting the key space over
 * {@code partitions} partitions. Immutable; the same for every node and client of a cluster.
 */
public record Topology(int datacenters, int partitions) {
  public Topology {
    Invariants.check(datacenters >= 1, "a cluster needs at least one datacenter, got %s", datacenters);
    Invariants.check(partitions >= 1, "a cluster needs at least one partition, got %s", partitions);
  }

  /** The partition holding {@code key}: a stable hash (FNV-1a 64 over UTF-8) modulo the partition count. */
  public int partitionOf(String key) {
    long h = 0xcbf29ce484222325L;
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      h ^= (b & 0xff);
      h *= 0x100000001b3L;
    }
    return (int) Math.floorMod(h ^ (h >>> 32), (long) partitions);
  }

  public NodeId node(int dc, int partition) {
    Invariants.check(dc < datacenters, "datacenter %s out of range (cluster has %s)", dc, datacenters);
    Invariants.check(partition < partitions, "partition %s out of range (cluster has %s)", partition, partitions);
    return new NodeId(dc, partition);
  }

  /** The server of datacenter {@code dc} that holds {@code key}. */
  public NodeId serverFor(String key, int dc) {
    return node(dc, partitionOf(key));
  }

  /** The replicas of {@code node}'s partition in the other datacenters (its "peers" in the papers). */
  public List<NodeId> peersOf(NodeId node) {
    List<NodeId> peers = new ArrayList<>(datacenters - 1);
    for (int dc = 0; dc < datacenters; dc++) {
      if (dc != node.dc()) {
        peers.add(new NodeId(dc, node.partition()));
      }
    }
    return peers;
  }

  /** The partitions of {@code dc}, in partition order. */
  public List<NodeId> datacenter(int dc) {
    List<NodeId> nodes = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      nodes.add(new NodeId(dc, p));
    }
    return nodes;
  }

  /** Every server of the cluster, ordered by datacenter then partition. */
  public List<NodeId> allNodes() {
    List<NodeId> nodes = new ArrayList<>(datacenters * partitions);
    for (int dc = 0; dc < datacenters; dc++) {
      nodes.addAll(datacenter(dc));
    }
    return nodes;
  }
}
