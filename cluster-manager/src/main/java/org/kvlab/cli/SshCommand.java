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
import org.kvlab.cluster.ssh.Distribution;
import org.kvlab.cluster.ssh.SshCluster;
import org.kvlab.cluster.ssh.SshEvent;
import org.kvlab.cluster.ssh.SshException;
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

    SshCluster cluster() {
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
      try {
        return new SshCluster(file, config, settings, SshCommand::print);
      } catch (SshException e) {
        throw new Main.CliException(Main.USAGE, e.getMessage());
      }
    }
  }

  static void print(SshEvent e) {
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

  /** Prints the failures and returns the exit code. */
  static int finish(SshCluster.Report report, String what) {
    if (report.ok()) {
      System.out.println(what + ": done on " + report.hosts().size() + " host(s)");
      return Main.OK;
    }
    System.err.println(what + ": failed on " + report.failures().size() + " of " + report.hosts().size() + " host(s):");
    for (SshCluster.HostResult r : report.failures()) {
      System.err.println("  " + r.error().getMessage());
    }
    return Main.FAILED;
  }

  /**
   * The cluster's secret file (created here on first use, mode 0600), which deploy copies to every host: the
   * servers and this tool prove it to each other in every peer and control handshake.
   */
  static Path secretFile(SshCluster cluster) {
    try {
      cluster.config().security().loadOrCreate();
      return cluster.config().security().secretFile();
    } catch (org.kvlab.config.ClusterSecret.SecretException e) {
      throw new Main.CliException(Main.USAGE, e.getMessage());
    }
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
      SshCluster cluster = common.cluster();
      return finish(cluster.deploy(distribution(dist), secretFile(cluster)), "deploy");
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
      SshCluster cluster = common.cluster();
      Duration w = Params.parseDuration(wait, "--wait");
      int code = finish(cluster.deploy(distribution(dist), secretFile(cluster)), "deploy");
      if (code != Main.OK) {
        return code;
      }
      code = finish(cluster.start(w), "start");
      if (code != Main.OK) {
        System.err.println("Some servers did not start; stop the others with: kvlab ssh down " + common.file);
        return code;
      }
      LocalCommand.Table.printStatus(common.config, common.file.toString(),
          cluster.status(null).stream().map(SshCluster.NodeStatus::status).toList());
      return Main.OK;
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "Each server's process (by its PID file) and control endpoint.")
  static final class StatusCmd implements Callable<Integer> {
    @Mixin Common common;

    @Override
    public Integer call() {
      SshCluster cluster = common.cluster();
      List<SshCluster.HostResult> failures = new ArrayList<>();
      List<SshCluster.NodeStatus> all = cluster.status(failures);
      List<Optional<Status>> statuses = all.stream().map(SshCluster.NodeStatus::status).toList();
      LocalCommand.Table.printStatus(common.config, common.file.toString(), statuses);
      failures.forEach(f -> System.err.println("  " + f.error().getMessage()));
      boolean allUp = all.stream().allMatch(s -> s.status().isPresent());
      return failures.isEmpty() && allUp ? Main.OK : Main.NOT_RUNNING;
    }
  }

  @Command(name = "logs", mixinStandardHelpOptions = true, description = "Copy every server's log here.")
  static final class Logs implements Callable<Integer> {
    @Mixin Common common;

    @Option(names = "--out", description = "where to put them (default: .kvlab/ssh/<cluster>/logs)")
    Path out;

    @Override
    public Integer call() {
      SshCluster cluster = common.cluster();
      Path dir = out != null ? out : Path.of(".kvlab", "ssh", common.config.name(), "logs");
      return finish(cluster.fetchLogs(dir), "logs in " + dir);
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
      SshCluster cluster = common.cluster();
      return finish(cluster.stop(Params.parseDuration(grace, "--grace")), "down");
    }
  }
}
