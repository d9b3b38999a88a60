package org.kvlab.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.runtime.ControlClient;
import org.kvlab.wire.PeerStatus;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Local clusters: every server on this machine, on the addresses of the cluster file (loopback). */
@Command(name = "local", mixinStandardHelpOptions = true,
    description = "Run a cluster on this machine.",
    subcommands = {LocalCommand.Up.class, LocalCommand.StatusCmd.class, LocalCommand.Down.class})
final class LocalCommand {
  static final Path STATE = Path.of(".kvlab", "local");
  private static final Duration CONTROL_TIMEOUT = Duration.ofSeconds(2);

  static Path stateDir(String cluster) {
    return STATE.resolve(cluster);
  }

  /** Clusters started here with {@code local up} whose state directory still exists. */
  static List<Path> knownClusterFiles() {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(STATE)) {
      return out;
    }
    try (Stream<Path> dirs = Files.list(STATE)) {
      for (Path dir : dirs.sorted().toList()) {
        Path ref = dir.resolve("config");
        if (Files.isRegularFile(ref)) {
          out.add(Path.of(Files.readString(ref, StandardCharsets.UTF_8).trim()));
        }
      }
    } catch (IOException e) {
      throw new Main.CliException(Main.FAILED, "cannot read " + STATE + ": " + e.getMessage());
    }
    return out;
  }

  static Optional<org.kvlab.wire.Status> status(ServerSpec s) {
    try {
      return Optional.of(ControlClient.status(s.host(), s.port(), CONTROL_TIMEOUT));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  @Command(name = "up", mixinStandardHelpOptions = true,
      description = "Start every server of a cluster file on this machine and wait until all are connected. "
          + "By default each server runs in its own JVM (so one can be killed); --single-jvm runs them all in one.")
  static final class Up implements Callable<Integer> {
    @Parameters(index = "0", description = "the cluster file, e.g. examples/eventual-2dc-3p.yaml")
    Path file;

    @Option(names = "--single-jvm", description = "run all servers in one background JVM")
    boolean singleJvm;

    @Option(names = "--wait", defaultValue = "60s", description = "how long to wait for the cluster (default: ${DEFAULT-VALUE})")
    String wait;

    @Option(names = "--jvm-options", defaultValue = "-Xmx512m -XX:+UseSerialGC",
        description = "options for each server JVM (default: ${DEFAULT-VALUE})")
    String jvmOptions;

    @Override
    public Integer call() throws Exception {
      ClusterConfig config = Clusters.load(file);
      Clusters.protocol(config);
      for (ServerSpec s : config.servers()) {
        if (status(s).isPresent()) {
          throw new Main.CliException(Main.FAILED, "server " + s.id() + " of a cluster already answers on " + s.host()
              + ":" + s.port() + ". Fix: ./kvlab local down " + file);
        }
        checkPortFree(s);
      }
      Path dir = stateDir(config.name());
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("config"), file.toAbsolutePath().normalize().toString());
      List<List<ServerSpec>> groups = singleJvm ? List.of(config.servers())
          : config.servers().stream().map(List::of).toList();
      List<Process> processes = new ArrayList<>();
      for (List<ServerSpec> group : groups) {
        String name = singleJvm ? "all" : group.get(0).id().toString();
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(List.of(jvmOptions.trim().split("\\s+")));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "org.kvlab.cli.Main", "server",
            "--config", file.toAbsolutePath().toString(), "--node",
            String.join(",", group.stream().map(s -> s.id().toString()).toList())));
        Path log = dir.resolve(name + ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        processes.add(p);
        for (ServerSpec s : group) {
          Files.writeString(dir.resolve(s.id() + ".pid"), Long.toString(p.pid()));
          Files.writeString(dir.resolve(s.id() + ".log.name"), log.getFileName().toString());
        }
      }
      System.out.printf("starting %s (%s, %d datacenters x %d partitions): %d servers in %s%n", config.name(),
          config.protocol(), config.topology().datacenters(), config.topology().partitions(), config.servers().size(),
          singleJvm ? "one JVM" : "one JVM per server");
      long deadline = System.nanoTime() + org.kvlab.api.Params.parseDuration(wait, "--wait").toNanos();
      while (System.nanoTime() < deadline) {
        for (int i = 0; i < processes.size(); i++) {
          if (!processes.get(i).isAlive()) {
            String name = singleJvm ? "all" : groups.get(i).get(0).id().toString();
            Path log = dir.resolve(name + ".log");
            throw new Main.CliException(Main.FAILED, "server process " + name + " exited with code "
                + processes.get(i).exitValue() + ":\n" + tail(log, 15) + "\n(log: " + log + "; stop the rest with ./kvlab local down "
                + file + ")");
          }
        }
        List<Optional<org.kvlab.wire.Status>> all = config.servers().stream().map(LocalCommand::status).toList();
        if (all.stream().allMatch(s -> s.isPresent() && s.get().getPeersConnected() == s.get().getPeersExpected())) {
          Table.printStatus(config, file.toString(), all);
          System.out.println("cluster " + config.name() + " is up; logs in " + dir + "; stop it with ./kvlab local down " + file);
          return Main.OK;
        }
        Thread.sleep(100);
      }
      Table.printStatus(config, file.toString(), config.servers().stream().map(LocalCommand::status).toList());
      throw new Main.CliException(Main.NOT_RUNNING, "cluster " + config.name() + " did not come up within " + wait
          + "; see the logs in " + dir);
    }

    private void checkPortFree(ServerSpec s) {
      try (ServerSocket probe = new ServerSocket()) {
        probe.setReuseAddress(true);
        probe.bind(new InetSocketAddress(s.host(), s.port()));
      } catch (IOException e) {
        throw new Main.CliException(Main.FAILED, "server " + s.id() + " cannot listen on " + s.host() + ":" + s.port()
            + " (" + e.getMessage() + "). Fix: free the port or change it in " + file);
      }
    }
  }

  static String tail(Path log, int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "Show every server of a cluster: state, peers, round-trip times, clients, operations. "
          + "Exit code 0 if all servers are up and connected, 3 otherwise.")
  static final class StatusCmd implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", description = "the cluster file (default: every cluster started here)")
    Path file;

    @Override
    public Integer call() {
      List<Path> files = file != null ? List.of(file) : knownClusterFiles();
      if (files.isEmpty()) {
        System.out.println("no local cluster started from this directory (start one with ./kvlab local up <cluster.yaml>)");
        return Main.NOT_RUNNING;
      }
      boolean healthy = true;
      for (Path f : files) {
        ClusterConfig config = Clusters.load(f);
        List<Optional<org.kvlab.wire.Status>> all = config.servers().stream().map(LocalCommand::status).toList();
        Table.printStatus(config, f.toString(), all);
        healthy &= all.stream().allMatch(s -> s.isPresent() && s.get().getPeersConnected() == s.get().getPeersExpected());
      }
      return healthy ? Main.OK : Main.NOT_RUNNING;
    }
  }

  @Command(name = "down", mixinStandardHelpOptions = true,
      description = "Stop every server of a cluster gracefully (killing any that do not stop within 15 s).")
  static final class Down implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", description = "the cluster file (default: every cluster started here)")
    Path file;

    @Option(names = "--wipe", description = "also delete the servers' data directories")
    boolean wipe;

    @Override
    public Integer call() throws Exception {
      List<Path> files = file != null ? List.of(file) : knownClusterFiles();
      if (files.isEmpty()) {
        System.out.println("no local cluster to stop");
        return Main.OK;
      }
      for (Path f : files) {
        ClusterConfig config = Clusters.load(f);
        Path dir = stateDir(config.name());
        int stopped = 0;
        for (ServerSpec s : config.servers()) {
          try {
            if (ControlClient.shutdown(s.host(), s.port(), CONTROL_TIMEOUT)) {
              stopped++;
            }
          } catch (IOException e) {
            // not answering: handled through its pid below
          }
        }
        List<Long> pids = new ArrayList<>();
        for (ServerSpec s : config.servers()) {
          Path pidFile = dir.resolve(s.id() + ".pid");
          if (Files.exists(pidFile)) {
            pids.add(Long.parseLong(Files.readString(pidFile).trim()));
          }
        }
        for (long pid : pids.stream().distinct().toList()) {
          Optional<ProcessHandle> h = ProcessHandle.of(pid);
          if (h.isPresent() && isKvlab(h.get())) {
            try {
              h.get().onExit().get(15, java.util.concurrent.TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
              System.out.println("process " + pid + " did not stop in 15 s; killing it");
              h.get().destroyForcibly();
            }
          }
        }
        if (Files.isDirectory(dir)) {
          try (Stream<Path> files2 = Files.list(dir)) {
            for (Path p : files2.toList()) {
              if (p.getFileName().toString().endsWith(".pid") || p.getFileName().toString().equals("config")) {
                Files.deleteIfExists(p);
              }
            }
          }
        }
        if (wipe) {
          Path data = config.storage().dir().resolve(config.name());
          deleteTree(data);
          System.out.println("deleted " + data);
        }
        System.out.println("cluster " + config.name() + " stopped (" + stopped + " of " + config.servers().size()
            + " servers were answering)");
      }
      return Main.OK;
    }

    private static boolean isKvlab(ProcessHandle h) {
      return h.info().arguments().map(a -> String.join(" ", a).contains("org.kvlab.cli.Main")).orElse(true);
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** Formatting of status tables. */
  static final class Table {
    private Table() {}

    static void printStatus(ClusterConfig config, String file, List<Optional<org.kvlab.wire.Status>> statuses) {
      System.out.printf("cluster %s (%s) from %s%n", config.name(), config.protocol(), file);
      System.out.printf("%-7s %-21s %-8s %-5s %-6s %-9s %-8s %-10s %-7s%n",
          "SERVER", "ADDRESS", "PID", "STATE", "PEERS", "RTT MAX", "CLIENTS", "OPS", "QUEUED");
      for (int i = 0; i < config.servers().size(); i++) {
        ServerSpec s = config.servers().get(i);
        Optional<org.kvlab.wire.Status> st = statuses.get(i);
        String addr = s.host() + ":" + s.port();
        if (st.isEmpty()) {
          System.out.printf("%-7s %-21s %-8s %-5s%n", s.id(), addr, "-", "down");
          continue;
        }
        org.kvlab.wire.Status x = st.get();
        double rtt = x.getPeersList().stream().mapToDouble(PeerStatus::getRttMillis).max().orElse(0);
        long queued = x.getPeersList().stream().mapToLong(PeerStatus::getQueued).sum();
        long ops = x.getOperationsMap().values().stream().mapToLong(Long::longValue).sum();
        System.out.printf("%-7s %-21s %-8d %-5s %-6s %-9s %-8d %-10d %-7d%n", s.id(), addr, x.getPid(), "up",
            x.getPeersConnected() + "/" + x.getPeersExpected(), rtt < 0 ? "-" : String.format("%.2f ms", rtt),
            x.getClients(), ops, queued);
      }
    }
  }
}
