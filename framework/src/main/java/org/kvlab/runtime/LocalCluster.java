package org.kvlab.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.kvlab.api.NodeId;
import org.kvlab.api.Protocol;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.wire.Status;

/**
 * Every server of a cluster in this JVM (the demo, tests and {@code kvlab local up --single-jvm}).
 * Each server still has its own event loop, store and sockets; only the process is shared.
 */
public final class LocalCluster implements AutoCloseable {
  private final ClusterConfig config;
  private final Protocol protocol;
  private final List<Node> nodes = new ArrayList<>();

  private LocalCluster(ClusterConfig config, Protocol protocol) {
    this.config = config;
    this.protocol = protocol;
  }

  public static LocalCluster start(ClusterConfig config, Protocol protocol) throws Node.StartException {
    return start(config, protocol, null);
  }

  /** Every server on {@code transport} (null: the JVM's setting, {@link Transport#configured()}). */
  static LocalCluster start(ClusterConfig config, Protocol protocol, Transport transport) throws Node.StartException {
    LocalCluster cluster = new LocalCluster(config, protocol);
    try {
      for (ServerSpec s : config.servers()) {
        cluster.nodes.add(transport == null ? Node.start(config, s.id(), protocol)
            : Node.start(config, s.id(), protocol, transport));
      }
    } catch (Node.StartException | RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  public ClusterConfig config() {
    return config;
  }

  public Protocol protocol() {
    return protocol;
  }

  public List<Node> nodes() {
    return List.copyOf(nodes);
  }

  public Node node(NodeId id) {
    return nodes.stream().filter(n -> n.id().equals(id)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no running node " + id));
  }

  /** Waits until every server has a channel to every other; false on timeout. */
  public boolean awaitConnected(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      boolean all = true;
      for (Node n : nodes) {
        try {
          Status s = n.status().get(1, TimeUnit.SECONDS);
          all &= s.getPeersConnected() == s.getPeersExpected();
        } catch (Exception e) {
          all = false;
        }
      }
      if (all) {
        return true;
      }
      Thread.sleep(10);
    }
    return false;
  }

  @Override
  public void close() {
    // Close in parallel: each node drains its channels first, which needs its peers still up.
    List<Thread> closers = new ArrayList<>();
    for (Node n : nodes) {
      Thread t = new Thread(n::close, "kvlab-close-" + n.id());
      t.start();
      closers.add(t);
    }
    for (Thread t : closers) {
      try {
        t.join(15_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    nodes.clear();
  }
}
