package org.kvlab.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.api.Topology;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.EmulationSpec;
import org.kvlab.config.ClusterConfig.Limits;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.config.ClusterConfig.StorageSpec;
import org.kvlab.store.Durability;

/** The benchmark's cluster: one Eventual server (dc 0, partition 0) on loopback, memory storage, durability none. */
final class BenchCluster {
  static final String HOST = "127.0.0.1";
  static final NodeId SERVER = new NodeId(0, 0);

  private BenchCluster() {}

  static ClusterConfig config(int port) {
    return new ClusterConfig("rpc-benchmark", "rpc-bench", "eventual", new Params(Map.of()), new Topology(1, 1),
        List.of(new ServerSpec(SERVER, HOST, port)),
        new StorageSpec(StorageSpec.Engine.MEMORY, Durability.NONE, Path.of("unused")),
        EmulationSpec.none(), Limits.defaults());
  }
}
