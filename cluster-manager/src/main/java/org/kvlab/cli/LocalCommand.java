package org.kvlab.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.config.UserText;
import org.kvlab.cluster.local.LocalClusterProcesses;
import org.kvlab.wire.PeerStatus;
import org.kvlab.wire.Status;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Local clusters: every server on this machine, on the addresses of the cluster file (loopback). */
@Command(name = "local", mixinStandardHelpOptions = true,
    description = "Run a cluster on this machine.",
    subcommands = {LocalCommand.Up.class, LocalCommand.StatusCmd.class, LocalCommand.Down.class})
final class LocalCommand {
  /** Clusters started here with {@code local up} or {@code bench} whose state directory still exists. */
  static List<Path> knownClusterFiles() {
    try {
      return LocalClusterProcesses.knownClusterFiles();
    } catch (IOException e) {
      throw new Main.CliException(Main.FAILED, "cannot read " + LocalClusterProcesses.STATE + ": " + e.getMessage());
    }
  }

  @Command(name = "up", mixinStandardHelpOptions = true,
      description = "Start every server of a cluster file on this machine and wait until all are connected. "
          + "By default each server runs in its own JVM (so one can be killed); --single-jvm runs them all in one. "
          + "If a server fails, the cluster does not come up in time, or this command gets SIGINT before the "
          + "cluster is up, it stops the servers it started. Each server's last " + LocalClusterProcesses.LOGS_KEPT
          + " logs are kept (.log.1 is the previous one).")
  static final class Up implements Callable<Integer> {
    @Parameters(index = "0", description = "the cluster file, e.g. examples/eventual-2dc-3p.yaml")
    Path file;

    @Option(names = "--single-jvm", description = "run all servers in one background JVM")
    boolean singleJvm;

    @Option(names = "--wait", defaultValue = "60s", description = "how long to wait for the cluster (default: ${DEFAULT-VALUE})")
    String wait;

    @Option(names = "--jvm-options", defaultValue = LocalClusterProcesses.DEFAULT_JVM_OPTIONS,
        description = "options for each server JVM (default: ${DEFAULT-VALUE})")
    String jvmOptions;

    @Override
    public Integer call() throws Exception {
      ClusterConfig config = Clusters.load(file);
      Clusters.protocol(config);
      java.time.Duration waitFor;
      try {
        waitFor = org.kvlab.api.Params.parseDuration(wait, "--wait");
      } catch (IllegalArgumentException e) {
        throw new Main.CliException(Main.USAGE, e.getMessage());
      }
      // Until the cluster is up, the servers belong to this command: a failure or an interrupt stops them
      // (SIGINT to this process alone, from a parent script or an IDE, as Ctrl-C does in a terminal). The
      // hook is in place before the first server starts, so no interrupt falls between the two.
      AtomicBoolean settled = new AtomicBoolean();
      AtomicReference<LocalClusterProcesses> started = new AtomicReference<>();
      CountDownLatch launched = new CountDownLatch(1);
      CountDownLatch stopped = new CountDownLatch(1);
      Thread hook = new Thread(() -> {
        if (settled.compareAndSet(false, true)) {
          awaitQuietly(launched); // start() goes on while the hooks run: let it finish launching
          LocalClusterProcesses c = started.get();
          if (c != null) {
            System.err.println("kvlab: interrupted: stopping the servers this local up started...");
            c.stopStarted(INTERRUPT_GRACE, System.err::println);
            System.err.println("kvlab: stopped; logs in " + c.dir());
          }
          stopped.countDown();
        } else {
          awaitQuietly(stopped); // a failure is stopping them: let it finish before the JVM exits
        }
      }, "kvlab-local-up-stop");
      Runtime.getRuntime().addShutdownHook(hook);
      exitOnInterrupt();
      LocalClusterProcesses cluster;
      try {
        cluster = LocalClusterProcesses.start(file, config, singleJvm, jvmOptions);
        started.set(cluster);
      } catch (LocalClusterProcesses.LaunchException e) {
        removeHook(hook);
        throw new Main.CliException(Main.FAILED, e.getMessage());
      } catch (IOException | RuntimeException e) {
        removeHook(hook);
        throw e;
      } finally {
        launched.countDown();
      }
      System.out.printf("starting %s (%s, %d datacenters x %d partitions): %d servers in %s%n", config.name(),
          config.protocol(), config.topology().datacenters(), config.topology().partitions(), config.servers().size(),
          singleJvm ? "one JVM" : "one JVM per server");
      try {
        List<Optional<Status>> all = cluster.awaitConnected(waitFor);
        if (!settled.compareAndSet(false, true)) {
          awaitQuietly(stopped);
          return INTERRUPTED;
        }
        removeHook(hook);
        Table.printStatus(config, file.toString(), all);
        System.out.println("cluster " + config.name() + " is up; logs in " + cluster.dir() + "; stop it with ./kvlab local down " + file);
        return Main.OK;
      } catch (LocalClusterProcesses.LaunchException | RuntimeException e) {
        if (!settled.compareAndSet(false, true)) {
          awaitQuietly(stopped);
          return INTERRUPTED;
        }
        try {
          if (e instanceof LocalClusterProcesses.LaunchException le && le.timedOut()) {
            Table.printStatus(config, file.toString(), LocalClusterProcesses.statuses(config));
          }
          System.err.println("kvlab: local up failed: stopping the servers it started...");
          cluster.stopStarted(LocalClusterProcesses.STOP_GRACE, System.err::println);
        } finally {
          stopped.countDown();
          removeHook(hook);
        }
        if (e instanceof LocalClusterProcesses.LaunchException le) {
          List<Long> left = cluster.stillRunning();
          throw new Main.CliException(le.timedOut() ? Main.NOT_RUNNING : Main.FAILED, le.getMessage() + (left.isEmpty()
              ? "; the servers it started were stopped (their logs are kept in " + cluster.dir() + ")"
              : "; processes " + left + " that it started could not be stopped. Fix: kill -9 "
                  + String.join(" ", left.stream().map(String::valueOf).toList())));
        }
        throw e;
      }
    }
  }

  /** Exit code of a {@code local up} stopped by SIGINT (128 + 2, as shells report it). */
  static final int INTERRUPTED = 130;
  static final java.time.Duration INTERRUPT_GRACE = java.time.Duration.ofSeconds(10);

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // shutting down already
    }
  }

  /**
   * SIGINT runs the shutdown hooks even if this JVM was started with SIGINT ignored (as a background job of
   * a non-interactive shell is), where the JVM would not install its own handler.
   */
  @SuppressWarnings("removal")
  private static void exitOnInterrupt() {
    try {
      sun.misc.Signal.handle(new sun.misc.Signal("INT"), s -> new Thread(() -> System.exit(INTERRUPTED), "kvlab-sigint").start());
    } catch (IllegalArgumentException | UnsupportedOperationException | LinkageError e) {
      // the JVM's own handler (if any) does the same
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
        List<LocalClusterProcesses.Probe> probes = LocalClusterProcesses.probes(config);
        List<Optional<Status>> all = probes.stream().map(LocalClusterProcesses.Probe::status).toList();
        Table.printStatus(config, f.toString(), all);
        probes.stream().filter(p -> p.refusal() != null)
            .forEach(p -> System.out.println("  not this cluster: " + p.refusal()));
        healthy &= LocalClusterProcesses.allConnected(all);
      }
      return healthy ? Main.OK : Main.NOT_RUNNING;
    }
  }

  @Command(name = "down", mixinStandardHelpOptions = true,
      description = "Stop every server of a cluster gracefully: asks each (again while one is still starting) and "
          + "waits for all together, killing any that have not stopped within 15 s.")
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
      boolean refusedAny = false;
      for (Path f : files) {
        ClusterConfig config = Clusters.load(f);
        List<String> refused = new java.util.ArrayList<>();
        int stopped = LocalClusterProcesses.stop(config, LocalClusterProcesses.STOP_GRACE, System.out::println, refused::add);
        refused.forEach(r -> System.out.println("left running, not a server of this cluster: " + r));
        refusedAny |= !refused.isEmpty();
        if (wipe && !refused.isEmpty()) {
          System.out.println("not deleting the data of " + config.name() + ": some of its addresses are held by "
              + "another cluster's servers");
        } else if (wipe) {
          Path data = config.storage().dir().resolve(config.name());
          deleteTree(data);
          System.out.println("deleted " + data);
        }
        System.out.println("cluster " + config.name() + " stopped (" + stopped + " of " + config.servers().size()
            + " servers were answering)");
      }
      return refusedAny ? Main.FAILED : Main.OK;
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

    static void printStatus(ClusterConfig config, String file, List<Optional<Status>> statuses) {
      System.out.printf("cluster %s (%s) from %s%n", config.name(), config.protocol(), file);
      System.out.printf("%-7s %-21s %-8s %-5s %-13s %-6s %-9s %-8s %-10s %-7s %-9s%n",
          "SERVER", "ADDRESS", "PID", "STATE", "ROLE", "PEERS", "RTT MAX", "CLIENTS", "OPS", "QUEUED", "PARTIAL");
      for (int i = 0; i < config.servers().size(); i++) {
        ServerSpec s = config.servers().get(i);
        Optional<Status> st = statuses.get(i);
        String addr = s.host() + ":" + s.port();
        if (st.isEmpty()) {
          System.out.printf("%-7s %-21s %-8s %-5s%n", s.id(), addr, "-", "down");
          continue;
        }
        Status x = st.get();
        double rtt = x.getPeersList().stream().mapToDouble(PeerStatus::getRttMillis).max().orElse(0);
        long queued = x.getPeersList().stream().mapToLong(PeerStatus::getQueued).sum();
        long ops = x.getOperationsMap().entrySet().stream() // the runtime's channel.* counters are not operations
            .filter(e -> !e.getKey().startsWith("channel.")).mapToLong(Map.Entry::getValue).sum();
        // PARTIAL: bytes held by partly received frames (limits.partialFrameBytesMax, docs/runtime.md)
        System.out.printf("%-7s %-21s %-8d %-5s %-13s %-6s %-9s %-8d %-10d %-7d %-9s%n", s.id(), addr, x.getPid(), "up",
            x.getRole().isEmpty() ? "-" : UserText.cut(x.getRole()), x.getPeersConnected() + "/" + x.getPeersExpected(),
            rtt < 0 ? "-" : String.format("%.2f ms", rtt), x.getClients(), ops, queued,
            String.format("%.1f MiB", x.getPartialFrameBytes() / 1048576.0));
      }
    }
  }
}
