package org.kvlab.ycsb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.kvlab.api.Protocols;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.testing.TestClusters;

/** An in-process loopback cluster plus the cluster file YCSB clients read. */
final class YcsbClusters implements AutoCloseable {
  final LocalCluster cluster;
  final Path file;

  private YcsbClusters(LocalCluster cluster, Path file) {
    this.cluster = cluster;
    this.file = file;
  }

  static YcsbClusters start(String protocol, int dcs, int partitions, Path dir) throws Exception {
    ClusterConfig config = TestClusters.loopback(protocol, dcs, partitions, TestClusters.memory());
    Path file = write(config, dir.resolve(protocol + ".yaml"));
    LocalCluster cluster = LocalCluster.start(ClusterConfig.load(file), Protocols.byName(protocol));
    if (!cluster.awaitConnected(Duration.ofSeconds(30))) {
      cluster.close();
      throw new IllegalStateException("cluster did not connect");
    }
    return new YcsbClusters(cluster, file);
  }

  /** Writes {@code config} as a cluster file (memory storage). */
  static Path write(ClusterConfig config, Path file) throws IOException {
    StringBuilder y = new StringBuilder()
        .append("name: ").append(config.name()).append('\n')
        .append("protocol: ").append(config.protocol()).append('\n')
        .append("datacenters: ").append(config.topology().datacenters()).append('\n')
        .append("partitions: ").append(config.topology().partitions()).append('\n')
        .append("servers:\n");
    for (ServerSpec s : config.servers()) {
      y.append("  - { id: ").append(s.id()).append(", host: ").append(s.host()).append(", port: ").append(s.port())
          .append(" }\n");
    }
    y.append("storage:\n  engine: memory\n  durability: none\n");
    Files.writeString(file, y.toString());
    return file;
  }

  /** The binding's properties for datacenter 0 of this cluster. */
  Properties props() {
    Properties p = new Properties();
    p.setProperty(KvlabClients.CLUSTER, file.toString());
    p.setProperty(KvlabClients.DC, "0");
    p.setProperty(KvlabClients.TIMEOUT, "5s");
    return p;
  }

  @Override
  public void close() {
    cluster.close();
  }
}
