package org.kvlab.api;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The shape of the cluster: {@code datacenters} full replicas, each splitting the key space over
 * {@code partitions} partitions, each partition held by {@code replicas} servers inside the datacenter (a
 * replication group, e.g. NuKV's Raft group; 1 for the protocols with one server per partition per
 * datacenter). Immutable; the same for every node and client of a cluster.
 */
public record Topology(int datacenters, int partitions, int replicas) {
  public Topology {
    Invariants.check(datacenters >= 1, "a cluster needs at least one datacenter, got %s", datacenters);
    Invariants.check(partitions >= 1, "a cluster needs at least one partition, got %s", partitions);
    Invariants.check(replicas >= 1, "a partition needs at least one replica per datacenter, got %s", replicas);
  }

  /** One server per partition per datacenter. */
  public Topology(int datacenters, int partitions) {
    this(datacenters, partitions, 1);
  }

  /** The number of servers: datacenters x partitions x replicas. */
  public int size() {
    return datacenters * partitions * replicas;
  }

  /** The position of {@code node} in {@link #allNodes()}: 0 to size() - 1. */
  public int indexOf(NodeId node) {
    return (node.dc() * partitions + node.partition()) * replicas + node.replica();
  }

  /** Whether {@code node} is a server of this topology. */
  public boolean contains(NodeId node) {
    return node.dc() < datacenters && node.partition() < partitions && node.replica() < replicas;
  }

  /** The replication group of partition {@code partition} in datacenter {@code dc}, in replica order. */
  public List<NodeId> replicasOf(int dc, int partition) {
    node(dc, partition);
    List<NodeId> group = new ArrayList<>(replicas);
    for (int r = 0; r < replicas; r++) {
      group.add(new NodeId(dc, partition, r));
    }
    return group;
  }

  /** The partition holding {@code key}: a stable hash (FNV-1a 64 over UTF-8) modulo the partition count. */
  public int partitionOf(String key) {
    // An ASCII key is its own UTF-8: hashed from its chars, without a byte array per call (every client
    // operation routes its key here).
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c >= 0x80) {
        return partitionOfUtf8(key);
      }
      h ^= c;
      h *= 0x100000001b3L;
    }
    return partitionOfHash(h);
  }

  private int partitionOfUtf8(String key) {
    long h = 0xcbf29ce484222325L;
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      h ^= (b & 0xff);
      h *= 0x100000001b3L;
    }
    return partitionOfHash(h);
  }

  private int partitionOfHash(long h) {
    return (int) Math.floorMod(h ^ (h >>> 32), (long) partitions);
  }

  public NodeId node(int dc, int partition) {
    Invariants.check(dc < datacenters, "datacenter %s out of range (cluster has %s)", dc, datacenters);
    Invariants.check(partition < partitions, "partition %s out of range (cluster has %s)", partition, partitions);
    return new NodeId(dc, partition);
  }

  public NodeId node(int dc, int partition, int replica) {
    node(dc, partition);
    Invariants.check(replica < replicas, "replica %s out of range (partitions have %s)", replica, replicas);
    return new NodeId(dc, partition, replica);
  }

  /** The server of datacenter {@code dc} that holds {@code key} (replica 0 of its group). */
  public NodeId serverFor(String key, int dc) {
    return node(dc, partitionOf(key));
  }

  /**
   * The servers holding {@code node}'s partition in the other datacenters with the same replica number
   * (its "peers" in the papers; with one replica per partition, simply the partition's other copies).
   */
  public List<NodeId> peersOf(NodeId node) {
    List<NodeId> peers = new ArrayList<>(datacenters - 1);
    for (int dc = 0; dc < datacenters; dc++) {
      if (dc != node.dc()) {
        peers.add(new NodeId(dc, node.partition(), node.replica()));
      }
    }
    return peers;
  }

  /** The servers of {@code dc}, in partition then replica order. */
  public List<NodeId> datacenter(int dc) {
    List<NodeId> nodes = new ArrayList<>(partitions * replicas);
    for (int p = 0; p < partitions; p++) {
      for (int r = 0; r < replicas; r++) {
        nodes.add(new NodeId(dc, p, r));
      }
    }
    return nodes;
  }

  /** Every server of the cluster, ordered by datacenter, partition, then replica. */
  public List<NodeId> allNodes() {
    List<NodeId> nodes = new ArrayList<>(size());
    for (int dc = 0; dc < datacenters; dc++) {
      nodes.addAll(datacenter(dc));
    }
    return nodes;
  }
}
