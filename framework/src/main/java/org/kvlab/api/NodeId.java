package org.kvlab.api;

/**
 * Identity of one server: replica {@code replica} of partition {@code partition} of datacenter {@code dc}
 * (the paper's p^m_n; the replica is the member of a replication group inside the datacenter, as in
 * NuKV's Raft groups, and is 0 in clusters with one server per partition per datacenter).
 * Printed and parsed as {@code "<dc>_<partition>"} for replica 0 and {@code "<dc>_<partition>_<replica>"}
 * otherwise, e.g. {@code 0_2} and {@code 0_2_1}; {@code 0_2_0} parses as {@code 0_2}.
 */
public record NodeId(int dc, int partition, int replica) implements Comparable<NodeId> {
  public NodeId {
    Invariants.check(dc >= 0, "datacenter id must be >= 0, got %s", dc);
    Invariants.check(partition >= 0, "partition id must be >= 0, got %s", partition);
    Invariants.check(replica >= 0, "replica id must be >= 0, got %s", replica);
  }

  /** Replica 0 of partition {@code partition} of datacenter {@code dc}. */
  public NodeId(int dc, int partition) {
    this(dc, partition, 0);
  }

  public static NodeId of(int dc, int partition) {
    return new NodeId(dc, partition);
  }

  public static NodeId of(int dc, int partition, int replica) {
    return new NodeId(dc, partition, replica);
  }

  /** Replica {@code r} of this server's partition in its datacenter. */
  public NodeId withReplica(int r) {
    return new NodeId(dc, partition, r);
  }

  /**
   * Parses {@code "<dc>_<partition>"} or {@code "<dc>_<partition>_<replica>"}; throws
   * IllegalArgumentException naming the expected form.
   */
  public static NodeId parse(String text) {
    String[] parts = text == null ? new String[0] : text.split("_", -1);
    if (parts.length != 2 && parts.length != 3) {
      throw new IllegalArgumentException("'" + text + "' is not a server id: expected <dc>_<partition> or"
          + " <dc>_<partition>_<replica>, e.g. 0_1 or 0_1_2");
    }
    try {
      int dc = Integer.parseInt(parts[0]);
      int partition = Integer.parseInt(parts[1]);
      int replica = parts.length == 3 ? Integer.parseInt(parts[2]) : 0;
      if (dc < 0 || partition < 0 || replica < 0) {
        throw new NumberFormatException();
      }
      return new NodeId(dc, partition, replica);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not a server id: expected <dc>_<partition> or"
          + " <dc>_<partition>_<replica>, e.g. 0_1 or 0_1_2");
    }
  }

  @Override
  public int compareTo(NodeId o) {
    if (dc != o.dc) {
      return Integer.compare(dc, o.dc);
    }
    return partition != o.partition ? Integer.compare(partition, o.partition) : Integer.compare(replica, o.replica);
  }

  @Override
  public String toString() {
    return replica == 0 ? dc + "_" + partition : dc + "_" + partition + "_" + replica;
  }
}
