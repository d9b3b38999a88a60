package org.kvlab.runtime;

import java.nio.file.Path;
import org.kvlab.api.NodeId;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.Limits;
import org.kvlab.store.Durability;
import org.kvlab.testing.TestClusters;
import org.kvlab.testing.Testkit;

/**
 * Child process of {@link DurableChannelTest}: runs one {@link Testkit} server of a 2 x 1 loopback
 * cluster with engine je and durability sync, until the test kills it (SIGKILL) or the test JVM goes
 * away (end of stdin). With a fourth argument {@code memory} ({@link PartialFramesMemoryTest}): the one server of a
 * 1 x 1 cluster with engine memory and the default limits.
 *
 * <p>Args: base port, data directory, server id[, memory].
 */
public final class NodeChild {
  public static void main(String[] args) throws Exception {
    ClusterConfig config = args.length > 3 && args[3].equals("memory") ? memoryConfig(Integer.parseInt(args[0]))
        : config(Integer.parseInt(args[0]), Path.of(args[1]));
    Node.start(config, NodeId.parse(args[2]), new Testkit());
    while (System.in.read() != -1) {
      // the parent keeps stdin open while it lives
    }
    Runtime.getRuntime().halt(3);
  }

  static ClusterConfig config(int base, Path dir) {
    return TestClusters.loopbackAt(base, "testkit", 2, 1, TestClusters.je(dir, Durability.SYNC), Limits.defaults());
  }

  static ClusterConfig memoryConfig(int base) {
    return TestClusters.loopbackAt(base, "testkit", 1, 1, TestClusters.memory(), Limits.defaults());
  }
}
