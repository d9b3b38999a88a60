package org.kvlab.api;

/**
 * Identity of one server: partition {@code partition} of datacenter {@code dc} (the paper's p^m_n).
 * Printed and parsed as {@code "<dc>_<partition>"}, e.g. {@code 0_2}.
 */
public record NodeId(int dc, int partition) implements Comparable<NodeId> {
  public NodeId {
    Invariants.check(dc >= 0, "datacenter id must be >= 0, got %s", dc);
    Invariants.check(partition >= 0, "partition id must be >= 0, got %s", partition);
  }

  public static NodeId of(int dc, int partition) {
    return new NodeId(dc, partition);
  }

  /** Parses {@code "<dc>_<partition>"}; throws IllegalArgumentException naming the expected form. */
  public static NodeId parse(String text) {
    int sep = text == null ? -1 : text.indexOf('_');
    if (sep <= 0 || sep == text.length() - 1) {
      throw new IllegalArgumentException("'" + text + "' is not a server id: expected <dc>_<partition>, e.g. 0_1");
    }
    try {
      return new NodeId(Integer.parseInt(text.substring(0, sep)), Integer.parseInt(text.substring(sep + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not a server id: expected <dc>_<partition>, e.g. 0_1");
    }
  }

  @Override
  public int compareTo(NodeId o) {
    return dc != o.dc ? Integer.compare(dc, o.dc) : Integer.compare(partition, o.partition);
  }

  @Override
  public String toString() {
    return dc + "_" + partition;
  }
}
