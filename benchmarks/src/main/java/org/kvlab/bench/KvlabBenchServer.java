package org.kvlab.bench;

import org.kvlab.protocols.eventual.Eventual;
import org.kvlab.runtime.Node;

/**
 * The kvlab side of the benchmark: one Eventual server in its own JVM. Usage: {@code KvlabBenchServer <port>}.
 * Prints {@code READY} once listening and stops when its standard input closes.
 */
public final class KvlabBenchServer {
  private KvlabBenchServer() {}

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    Node node = Node.start(BenchCluster.config(port), BenchCluster.SERVER, new Eventual());
    ServerProcess.readyThenAwaitStdinClose("kvlab eventual server on " + BenchCluster.HOST + ":" + port);
    node.close();
    System.exit(0);
  }
}
