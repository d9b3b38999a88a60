package org.kvlab.cli;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.kvlab.api.Params;
import org.kvlab.cluster.BackendException;
import org.kvlab.cluster.ClusterEvent;
import org.kvlab.cluster.ClusterListener;
import org.kvlab.cluster.ClusterRef;
import org.kvlab.cluster.NodeState;
import org.kvlab.cluster.StartOptions;
import org.kvlab.cluster.ssh.Distribution;
import org.kvlab.cluster.ssh.SshBackend;
import org.kvlab.cluster.ssh.SshHosts;
import org.kvlab.cluster.ssh.SshSection;
import org.kvlab.cluster.ssh.SshSettings;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;
import org.kvlab.wire.Status;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kvlab ssh deploy|up|status|logs|down <cluster.yaml>}: a cluster on your own hosts (docs/ssh.md). */
@Command(name = "ssh", mixinStandardHelpOptions = true,
    description = "Run a cluster on your own hosts over SSH (the cluster file's ssh: section; see docs/ssh.md).",
    subcommands = {SshCommand.Deploy.class, SshCommand.Up.class, SshCommand.StatusCmd.class, SshCommand.Logs.class,
        SshCommand.Down.class})
final class SshCommand {
  /** Options every subcommand takes. */
  static final class Common {
    @Parameters(index = "0", paramLabel = "CLUSTER_FILE", description = "the cluster file, with an ssh: section")
    Path file;

    @Option(names = "--accept-new-host-keys",
        description = "record the keys of hosts not yet in known_hosts (each is printed with its fingerprint);"
            + " a changed key is still refused")
    boolean acceptNew;

    ClusterConfig config;
    SshSettings settings;

    /** The SSH backend for the cluster file; {@code uploads}: with the distribution to deploy ({@code dist} or this one). */
    SshBackend backend(boolean uploads, Path dist) {
      config = Clusters.load(file);
      Clusters.protocol(config);
      try {
        settings = SshSection.load(file);
      } catch (ConfigException e) {
        throw new Main.CliException(Main.USAGE, e.getMessage());
      }
      if (acceptNew) {
        settings = settings.withHostKeys(SshSettings.HostKeyPolicy.ACCEPT_NEW);
      }
      return new SshBackend(SshHosts.ofCluster(config, settings), uploads ? distribution(dist) : null, PRINTER);
    }

    ClusterRef ref() {
      return new ClusterRef(file, config);
    }

    int hosts() {
      return (int) config.servers().stream().map(ClusterConfig.ServerSpec::host).distinct().count();
    }
  }

  /** Prints each host's events as they come, as the SSH layer reports them. */
  static final ClusterListener PRINTER = new ClusterListener() {
    @Override
    public void event(ClusterEvent e) {
      String line = switch (e.kind()) {
        case NEW_HOST_KEY -> "NEW HOST KEY " + e.host() + ": " + e.message();
        case FAILED -> "FAILED " + e.message();
        default -> e.host() + (e.node() == null ? "" : " " + e.node()) + ": " + e.kind().name().toLowerCase().replace('_', ' ')
            + (e.message() == null || e.message().isEmpty() ? "" : " " + e.message());
      };
      synchronized (System.out) {
        System.out.println(line);
      }
    }
  };

  /** Runs one backend call; prints "WHAT: done on N host(s)" or the failure (every failed host with cause and fix). */
  static int finish(String what, int hosts, BackendCall call) {
    try {
      call.run();
      System.out.println(what + ": done on " + hosts + " host(s)");
      return Main.OK;
    } catch (BackendException e) {
      System.err.println(what + ": " + e.getMessage());
      return Main.FAILED;
    }
  }

  @FunctionalInterface
  interface BackendCall {
    void run() throws BackendException;
  }

  /** The distribution this kvlab runs from: its shaded jar, or (from a build tree) its class path. */
  static Distribution distribution(Path given) {
    try {
      if (given != null) {
        return Distribution.shadedJar(given);
      }
      Path self = Path.of(SshCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (Files.isRegularFile(self) && self.toString().endsWith(".jar")
          && System.getProperty("java.class.path").split(java.io.File.pathSeparator).length == 1) {
        return Distribution.shadedJar(self);
      }
      return Distribution.fromClassPath(System.getProperty("java.class.path"),
          Files.createTempDirectory("kvlab-dist"));
    } catch (IOException | URISyntaxException e) {
      throw new Main.CliException(Main.USAGE, "cannot find the kvlab distribution to upload: " + e.getMessage()
          + ". Fix: build it (mvn -B -DskipTests package) or give --dist cluster-manager/target/kvlab.jar");
    }
  }

  @Command(name = "deploy", mixinStandardHelpOptions = true,
      description = "Upload kvlab (skipped where the same build is there) and the cluster file to every host.")
  static final class Deploy implements Callable<Integer> {
    @Mixin Common common;

    @Option(names = "--dist", description = "the jar to upload (default: the kvlab.jar this command runs from)")
    Path dist;

    @Override
    public Integer call() {
      SshBackend b = common.backend(true, dist);
      return finish("deploy", common.hosts(), () -> b.deploy(common.ref()));
    }
  }

  @Command(name = "up", mixinStandardHelpOptions = true,
      description = "Deploy, then start every server under its PID file and wait until each answers.")
  static final class Up implements Callable<Integer> {
    @Mixin Common common;

    @Option(names = "--dist", description = "the jar to upload (default: the kvlab.jar this command runs from)")
    Path dist;

    @Option(names = "--wait", defaultValue = "60s", description = "how long to wait for the servers (default: ${DEFAULT-VALUE})")
    String wait;

    @Override
    public Integer call() {
      SshBackend b = common.backend(true, dist);
      Duration w = Params.parseDuration(wait, "--wait");
      int code = finish("deploy", common.hosts(), () -> b.deploy(common.ref()));
      if (code != Main.OK) {
        return code;
      }
      // start waits until every server answers and is connected; on failure it stops those it started
      code = finish("start", common.hosts(), () -> b.start(common.ref(), StartOptions.waiting(w)));
      if (code != Main.OK) {
        return code;
      }
      LocalCommand.Table.printStatus(common.config, common.file.toString(),
          b.status(common.ref()).stream().map(NodeState::status).toList());
      return Main.OK;
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "Each server's process (by its PID file) and control endpoint.")
  static final class StatusCmd implements Callable<Integer> {
    @Mixin Common common;

    @Override
    public Integer call() {
      SshBackend b = common.backend(false, null);
      List<NodeState> all = b.status(common.ref());
      List<Optional<Status>> statuses = all.stream().map(NodeState::status).toList();
      LocalCommand.Table.printStatus(common.config, common.file.toString(), statuses);
      List<String> problems = all.stream().map(NodeState::problem).filter(p -> p != null).distinct().toList();
      problems.forEach(p -> System.err.println("  " + p));
      boolean allUp = all.stream().allMatch(NodeState::answers);
      return problems.isEmpty() && allUp ? Main.OK : Main.NOT_RUNNING;
    }
  }

  @Command(name = "logs", mixinStandardHelpOptions = true, description = "Copy every server's log here.")
  static final class Logs implements Callable<Integer> {
    @Mixin Common common;

    @Option(names = "--out", description = "where to put them (default: .kvlab/ssh/<cluster>/logs)")
    Path out;

    @Override
    public Integer call() {
      SshBackend b = common.backend(false, null);
      Path dir = out != null ? out : Path.of(".kvlab", "ssh", common.config.name(), "logs");
      return finish("logs in " + dir, common.hosts(), () -> b.fetchLogs(common.ref(), dir));
    }
  }

  @Command(name = "down", mixinStandardHelpOptions = true,
      description = "Stop every server by its PID: SIGTERM, then SIGKILL after the grace time.")
  static final class Down implements Callable<Integer> {
    @Mixin Common common;

    @Option(names = "--grace", defaultValue = "15s", description = "time for a graceful stop (default: ${DEFAULT-VALUE})")
    String grace;

    @Override
    public Integer call() {
      SshBackend b = common.backend(false, null);
      Duration g = Params.parseDuration(grace, "--grace");
      return finish("down", common.hosts(), () -> b.stop(common.ref(), g));
    }
  }
}
