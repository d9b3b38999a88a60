package org.kvlab.api;

import java.util.List;

/**
 * The cluster's shape is one a protocol cannot run on (CaMu: one datacenter, one replica per partition). Thrown by
 * {@link Protocol#checkParameters} like a {@link ParameterException}, but it names the cluster file's
 * {@code datacenters}, {@code partitions} or {@code replicas} instead of a parameter, so the cluster-file loader
 * points at that key's value, and {@code kvlab bench} and {@code kvlab sim} at theirs.
 *
 * <pre>{@code
 * if (topology.datacenters() != 1) {
 *   throw new TopologyException("datacenters", topology.datacenters() + " datacenters, but mine runs in 1",
 *       "set datacenters: 1");
 * }
 * }</pre>
 */
public final class TopologyException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;
  /** The keys a refusal can name. */
  public static final List<String> KEYS = List.of("datacenters", "partitions", "replicas");

  private final String key;
  private final String problem;
  private final String fix;

  /**
   * Refuses any shape but "N replicas of everything" (full replication: N datacenters x 1 partition x 1 replica, each
   * datacenter's one server a replica), the shape of the consensus protocols (M²Paxos, EPaxos).
   *
   * @param protocol the protocol's name, for the message
   */
  public static void requireFullReplication(String protocol, Topology topology) {
    if (topology.partitions() != 1) {
      throw new TopologyException("partitions", topology.partitions() + " partitions, but " + protocol + " replicates"
          + " every key on every datacenter's one server (more partitions would be independent groups)",
          "set partitions: 1 (N replicas = N datacenters)");
    }
    if (topology.replicas() != 1) {
      throw new TopologyException("replicas", topology.replicas() + " replicas per partition, but " + protocol
          + "'s replicas are the datacenters, one server each", "set replicas: 1 (add datacenters for more replicas)");
    }
  }

  /**
   * @param key {@code datacenters}, {@code partitions} or {@code replicas}
   * @param problem what is wrong with the cluster's shape, e.g. {@code "2 datacenters, but camu runs in 1"}
   * @param fix how to correct it, e.g. {@code "set datacenters: 1"}
   */
  public TopologyException(String key, String problem, String fix) {
    super(key + ": " + problem + ". Fix: " + fix);
    if (!KEYS.contains(key)) {
      throw new IllegalArgumentException("a topology refusal names one of " + KEYS + ", not '" + key + "'");
    }
    this.key = key;
    this.problem = problem;
    this.fix = fix;
  }

  /** {@code datacenters}, {@code partitions} or {@code replicas}. */
  public String key() {
    return key;
  }

  /** What is wrong, without the key. */
  public String problem() {
    return problem;
  }

  /** How to correct it. */
  public String fix() {
    return fix;
  }
}
