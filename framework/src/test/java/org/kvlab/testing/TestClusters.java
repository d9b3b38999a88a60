package org.kvlab.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.api.Topology;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.EmulationSpec;
import org.kvlab.config.ClusterConfig.Limits;
import org.kvlab.config.ClusterConfig.SecuritySpec;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.config.ClusterConfig.StorageSpec;
import org.kvlab.store.Durability;

/** Builds loopback cluster configurations on free ports for tests. */
public final class TestClusters {
  private TestClusters() {}

  public static ClusterConfig loopback(String protocol, int dcs, int partitions, StorageSpec storage) {
    return loopback(protocol, dcs, partitions, storage, Limits.defaults());
  }

  public static ClusterConfig loopback(String protocol, int dcs, int partitions, StorageSpec storage, Limits limits) {
    return loopbackAt(freeBasePort(dcs * partitions), protocol, dcs, partitions, storage, limits);
  }

  /**
   * The loopback cluster whose servers listen on {@code base}, {@code base + 1}, ... (server d_p on
   * {@code base + d * partitions + p}); the same arguments give the same configuration, so a child JVM
   * can rebuild the configuration of its parent.
   */
  public static ClusterConfig loopbackAt(int base, String protocol, int dcs, int partitions, StorageSpec storage,
      Limits limits) {
    List<ServerSpec> servers = new ArrayList<>();
    for (int d = 0; d < dcs; d++) {
      for (int p = 0; p < partitions; p++) {
        servers.add(new ServerSpec(new NodeId(d, p), "127.0.0.1", base + d * partitions + p));
      }
    }
    String name = "test-" + base;
    return new ClusterConfig("test", name, protocol, new Params(Map.of()), new Topology(dcs, partitions),
        servers, storage, EmulationSpec.none(), limits, new SecuritySpec(secretFile(name), null, null));
  }

  /**
   * A loopback cluster with {@code replicas} servers per partition per datacenter (replication groups),
   * listening on consecutive free ports in {@link Topology#allNodes()} order, with protocol parameters.
   */
  public static ClusterConfig loopbackReplicated(String protocol, int dcs, int partitions, int replicas,
      StorageSpec storage, Map<String, String> params) {
    Topology topology = new Topology(dcs, partitions, replicas);
    int base = freeBasePort(topology.size());
    List<ServerSpec> servers = new ArrayList<>();
    for (NodeId id : topology.allNodes()) {
      servers.add(new ServerSpec(id, "127.0.0.1", base + topology.indexOf(id)));
    }
    String name = "test-" + base;
    return new ClusterConfig("test", name, protocol, new Params(params), topology, servers, storage,
        EmulationSpec.none(), Limits.defaults(), new SecuritySpec(secretFile(name), null, null));
  }

  /**
   * Where a test cluster's secret lives: under {@code target/}, created by the first server that starts
   * (so a child JVM started in the same module directory finds the same secret).
   */
  public static Path secretFile(String cluster) {
    return Path.of("target", "kvlab-test-secrets", cluster).toAbsolutePath().normalize();
  }

  public static StorageSpec memory() {
    return new StorageSpec(StorageSpec.Engine.MEMORY, Durability.NONE, Path.of("unused"));
  }

  public static StorageSpec je(Path dir, Durability durability) {
    return new StorageSpec(StorageSpec.Engine.JE, durability, dir);
  }

  /** A base port such that base .. base+count-1 are all free on 127.0.0.1 right now (below the ephemeral range). */
  public static int freeBasePort(int count) {
    return org.kvlab.runtime.LoopbackPorts.freeBlock(count);
  }
}
