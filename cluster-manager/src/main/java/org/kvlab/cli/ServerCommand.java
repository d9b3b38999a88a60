package org.kvlab.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.NodeId;
import org.kvlab.api.Protocol;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterSecret;
import org.kvlab.runtime.Node;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Runs servers of a cluster in the foreground until shut down (used by local clusters, SSH and EC2). */
@Command(name = "server", mixinStandardHelpOptions = true,
    description = "Run one or more servers of a cluster in this process, in the foreground.")
final class ServerCommand implements Callable<Integer> {
  @Option(names = "--config", required = true, description = "the cluster file")
  Path config;

  @Option(names = "--node", split = ",", description = "server ids to run, e.g. 0_1 (default: all servers)")
  List<String> nodes;

  @Option(names = "--secret-file", description = "the file holding the cluster's secret, mode 0600 (default: "
      + "security.secretFile of the cluster file, else .kvlab/local/<cluster>/secret); ./kvlab local up creates it")
  Path secretFile;

  @Option(names = "--listen", paramLabel = "ADDRESS", description = "an IP address to listen on instead of the "
      + "servers' hosts in the cluster file (e.g. 0.0.0.0 on an EC2 instance, whose public address is on none of "
      + "its interfaces); peers and clients still dial the cluster file's address")
  String listen;

  @Override
  public Integer call() throws Exception {
    ClusterConfig cluster = Clusters.load(config);
    Protocol protocol = Clusters.protocol(cluster);
    List<NodeId> ids = nodes == null ? cluster.servers().stream().map(ClusterConfig.ServerSpec::id).toList()
        : nodes.stream().map(ServerCommand::parse).toList();
    ids.forEach(cluster::server);
    ClusterSecret secret;
    try {
      secret = ClusterSecret.load(secretFile != null ? secretFile : cluster.security().secretFile());
    } catch (ClusterSecret.SecretException e) {
      throw new Main.CliException(Main.USAGE, e.getMessage());
    }
    if (listen != null && !listen.matches("[0-9.]+|[0-9a-fA-F:]*:[0-9a-fA-F:.]*")) {
      throw new Main.CliException(Main.USAGE, "--listen " + listen + ": give an IP address (e.g. 0.0.0.0 for every "
          + "interface, or the host's private address), not a name");
    }
    if (System.getProperty("io.netty.leakDetection.level") == null) {
      // Netty's default leak detection records a stack trace for one buffer in 128 (a server allocates one or two
      // per operation); a server process skips it unless -Dio.netty.leakDetection.level asks for it.
      io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.DISABLED);
    }
    List<Node> started = new java.util.ArrayList<>();
    try {
      for (NodeId id : ids) {
        started.add(Node.start(cluster, id, protocol, secret, listen));
      }
    } catch (Node.StartException e) {
      started.forEach(Node::close);
      throw new Main.CliException(Main.FAILED, e.getMessage());
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> started.forEach(Node::close), "kvlab-shutdown-hook"));
    try {
      CompletableFuture.allOf(started.stream().map(Node::terminated).toArray(CompletableFuture[]::new)).join();
    } catch (RuntimeException e) {
      System.err.println("kvlab: a server halted: " + e.getCause());
      started.forEach(Node::close);
      return 70;
    }
    return Main.OK;
  }

  private static NodeId parse(String s) {
    try {
      return NodeId.parse(s);
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, e.getMessage());
    }
  }
}
