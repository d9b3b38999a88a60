package org.kvlab.cli;

import java.time.Duration;
import org.kvlab.cluster.BackendException;
import org.kvlab.cluster.ClusterBackend;
import org.kvlab.cluster.ClusterEvent;
import org.kvlab.cluster.ClusterListener;
import org.kvlab.cluster.ec2.AddressMapper;
import org.kvlab.cluster.ec2.CallerAddress;
import org.kvlab.cluster.ec2.Ec2Backend;
import org.kvlab.cluster.ec2.Ec2Clients;
import org.kvlab.cluster.ec2.Ec2Provisioner;
import org.kvlab.cluster.ec2.Ec2Spec;
import org.kvlab.cluster.ssh.SshBackend;
import org.kvlab.cluster.ssh.SshHosts;
import org.kvlab.cluster.ssh.SshSettings;
import org.kvlab.config.ClusterConfig;
import org.kvlab.experiment.RunPlan;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.config.ConfigException;
import org.kvlab.experiment.Experiment;
import org.kvlab.experiment.ExperimentLoader;
import org.kvlab.experiment.ExperimentRunner;
import org.kvlab.experiment.Reports;
import org.kvlab.experiment.Results;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kvlab bench <experiment.yaml>}: runs a YCSB experiment and writes results, charts and a report. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Run a YCSB benchmark experiment (format: docs/bench.md): for each protocol x variation x repeat, "
        + "start a cluster (locally: one JVM per server; --backend ssh|ec2: on remote hosts), run YCSB's load and run"
        + " phases in client JVMs (locally or on the hosts), stop the cluster; "
        + "then write results.json, results.csv, charts and report.html to results/<name>/<timestamp>/.",
        "Ctrl-C stops cleanly: clients and cluster are stopped and the completed runs are reported.",
        "Exit code 0 if every run succeeded, 1 if one failed, 2 for an invalid experiment file, 130 if interrupted."})
final class BenchCommand implements Callable<Integer> {
  static final int INTERRUPTED = 130;

  @Parameters(index = "0", arity = "0..1", description = "the experiment file, e.g. experiments/smoke.yaml")
  Path file;

  @Option(names = "--redraw", paramLabel = "DIR",
      description = "rewrite results.csv, the charts and report.html of an earlier experiment from its results.json")
  Path redraw;

  @Option(names = "--use-running", paramLabel = "CLUSTER.yaml",
      description = "benchmark this running cluster instead of starting one per run (its protocol only)")
  Path useRunning;

  @Option(names = "--output", defaultValue = "results", description = "where results go (default: ${DEFAULT-VALUE})")
  Path output;

  @Option(names = "--db", description = "YCSB DB class instead of the experiment's (e.g. site.ycsb.BasicDB to try the machinery)")
  String db;

  @Option(names = "--workload", description = "YCSB workload class instead of the experiment's")
  String workload;

  @Option(names = "--keep-data", description = "keep each run's server data directories")
  boolean keepData;

  @Option(names = "--dry-run", description = "list the runs and exit")
  boolean dryRun;

  @Option(names = "--backend", defaultValue = "local", paramLabel = "local|ssh|ec2",
      description = "where the clusters and YCSB clients run: this machine (default), the hosts of --hosts over SSH,"
          + " or EC2 instances created for the experiment (--hosts FILE with an ec2: section) and deleted after it")
  String backend;

  @Option(names = "--hosts", paramLabel = "FILE",
      description = "ssh: the hosts file (servers and clients per datacenter, ssh settings; docs/ssh.md);"
          + " ec2: a file with an ec2: section (docs/ec2.md)")
  Path hostsFile;

  @Option(names = "--accept-new-host-keys", description = "ssh: record the keys of hosts not in known_hosts yet (each"
      + " fingerprint is printed) instead of refusing them")
  boolean acceptNewHostKeys;

  @Option(names = "--keep", description = "ec2: leave the instances running after the experiment (they still"
      + " terminate themselves at their expiry; delete them with kvlab ec2 down)")
  boolean keep;

  @Option(names = "--endpoint", description = "ec2: EC2 endpoint URL instead of AWS's (an emulator)")
  String endpoint;

  @Option(names = "--caller-cidr", description = "ec2: the address let in to the instances (default: this machine's"
      + " public address)")
  String callerCidr;

  @Option(names = "--base-port", defaultValue = "7100", description = "ec2: the servers' first port, 1024 to 60,000"
      + " (default: ${DEFAULT-VALUE})")
  int basePort;

  @Option(names = "--dist", paramLabel = "JAR", description = "ssh/ec2: the kvlab jar to upload (default: the one running)")
  Path dist;

  static final List<String> BACKENDS = List.of("local", "ssh", "ec2");

  /** The options' values, before anything is read or started: exit 2 naming the option, its range and the fix. */
  private void checkOptions() {
    if (!BACKENDS.contains(backend)) {
      throw unknownBackend();
    }
    if (basePort < 1024 || basePort > 60_000) { // room above it for every server's port
      throw new Main.CliException(Main.USAGE, "--base-port " + basePort + ": out of range. Fix: give a port from 1024"
          + " to 60,000 (the servers use the ports from it up)");
    }
  }

  @Override
  public Integer call() throws Exception {
    checkOptions();
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    if (redraw != null) {
      Path json = redraw.resolve("results.json");
      if (!Files.isRegularFile(json)) {
        throw new Main.CliException(Main.USAGE, json + " does not exist. Fix: give an experiment's output directory, e.g. results/smoke/latest");
      }
      Results.ExperimentResult r = Reports.readJson(json);
      Reports.writeAll(r, redraw);
      Reports.printSummary(r, System.out);
      System.out.println("\nreport: " + redraw.resolve("report.html"));
      return Main.OK;
    }
    if (file == null) {
      throw new Main.CliException(Main.USAGE, "no experiment file. Fix: ./kvlab bench experiments/smoke.yaml (see docs/bench.md)");
    }
    if (!Files.exists(file)) {
      String near = Clusters.nearestFile(file);
      throw new Main.CliException(Main.USAGE, "experiment file " + file + " does not exist. Fix: "
          + (near != null ? "did you mean " + near + "? " : "check the path ")
          + "(examples are in experiments/, e.g. experiments/smoke.yaml)");
    }
    try {
      if (org.kvlab.openloop.OpenLoopExperiment.isOpenLoop(file)) {
        return openLoop(org.kvlab.openloop.OpenLoopExperiment.load(file));
      }
    } catch (ConfigException e) {
      throw new Main.CliException(Main.USAGE, e.getMessage());
    }
    Experiment experiment;
    try {
      experiment = ExperimentLoader.load(file, Protocols.all().stream().map(Protocol::name).toList());
    } catch (ConfigException e) {
      throw new Main.CliException(Main.USAGE, e.getMessage());
    }
    if (db != null || workload != null) {
      experiment = experiment.withDb(db != null ? db : experiment.db(), workload != null ? workload : experiment.workloadClass());
    }
    if (useRunning != null) {
      Clusters.load(useRunning);
      if (!backend.equals("local")) {
        throw new Main.CliException(Main.USAGE, "--use-running benchmarks a cluster running on this machine, not one of"
            + " the " + backend + " backend. Fix: drop --use-running (the " + backend + " backend starts a cluster per run)");
      }
    }
    List<Experiment.Run> runs = experiment.runs();
    if (dryRun) {
      checkBackend(experiment);
      for (Experiment.Run r : runs) {
        System.out.printf("run %d/%d %s %s%s%n", r.index(), runs.size(), r.protocol(), r.variation().label(),
            experiment.repeats() > 1 ? " #" + r.repeat() : "");
      }
      return Main.OK;
    }
    ExperimentRunner.Options options = ExperimentRunner.Options.defaults().withOutputRoot(output)
        .withUseRunning(useRunning).withCommand(commandLine()).withKeepData(keepData);
    Experiment exp = experiment;
    return switch (backend) {
      case "local" -> execute(exp, options).exitCode();
      case "ssh" -> execute(exp, options, (progress, stop) -> sshBackend(progress)).exitCode();
      case "ec2" -> execute(exp, options, (progress, stop) -> ec2Backend(RunPlan.shape(exp, basePort), progress)).exitCode();
      default -> throw unknownBackend();
    };
  }

  private Main.CliException unknownBackend() {
    return new Main.CliException(Main.USAGE, "--backend " + backend + " is not a backend. Fix: "
        + org.kvlab.config.YamlReader.fixWithSuggestion(backend, BACKENDS, "write --backend local, --backend ssh"
            + " --hosts hosts.yaml or --backend ec2 --hosts ec2.yaml"));
  }

  /**
   * For --dry-run: reads what the backend would read first, so a dry run fails where the real run would: the hosts
   * file of --backend ssh (and that it has hosts for every datacenter), the ec2: section of --backend ec2. Connects
   * to nothing.
   */
  private void checkBackend(Experiment experiment) {
    switch (backend) {
      case "local" -> { }
      case "ssh" -> {
        try {
          SshBackend.checkCovers(experiment.cluster().datacenters(), sshHosts());
        } catch (BackendException e) {
          throw new Main.CliException(Main.USAGE, hostsFile + ": " + e.getMessage());
        }
      }
      case "ec2" -> ec2Spec(requireHosts(), RunPlan.shape(experiment, basePort));
      default -> throw unknownBackend();
    }
  }

  private Path requireHosts() {
    if (hostsFile == null) {
      throw new Main.CliException(Main.USAGE, "--backend " + backend + " needs --hosts FILE. Fix: give "
          + (backend.equals("ssh") ? "a hosts file (docs/ssh.md#benchmarks-on-your-hosts)"
              : "a file with an ec2: section (docs/ec2.md#benchmarks-on-ec2)"));
    }
    return hostsFile;
  }

  private ClusterBackend sshBackend(Progress progress) {
    return new SshBackend(sshHosts(), SshCommand.distribution(dist), listener(progress));
  }

  /** The hosts file of --backend ssh, with --accept-new-host-keys applied. */
  private SshHosts sshHosts() {
    SshHosts hosts;
    try {
      hosts = SshHosts.load(requireHosts());
    } catch (ConfigException e) {
      throw new Main.CliException(Main.USAGE, e.getMessage());
    }
    if (acceptNewHostKeys) {
      hosts = hosts.withSettings(hosts.settings().withHostKeys(SshSettings.HostKeyPolicy.ACCEPT_NEW));
    }
    return hosts;
  }

  /** The ec2: section of the --hosts file of --backend ec2, for the experiment's cluster shape. */
  private static Ec2Spec ec2Spec(Path file, ClusterConfig shape) {
    try {
      return Ec2Spec.parse(org.kvlab.config.YamlReader.readText(file, "ec2 file"), file.toString(), shape);
    } catch (ConfigException e) {
      throw new Main.CliException(Main.USAGE, e.getMessage());
    }
  }

  /** The EC2 backend with instances up for clusters of {@code shape}'s datacenters and servers. */
  private ClusterBackend ec2Backend(ClusterConfig shape, Progress progress) {
    Ec2Spec spec = ec2Spec(requireHosts(), shape);
    Ec2Command.Common common = new Ec2Command.Common();
    common.endpoint = endpoint;
    common.stateDir = Path.of(".kvlab", "ec2");
    common.poll = endpoint != null ? "200ms" : "5s";
    Ec2Clients clients = common.clients();
    ClusterListener l = listener(progress);
    Ec2Provisioner provisioner = common.provisioner(clients, Ec2Backend.forward(l));
    Ec2Backend b = new Ec2Backend(provisioner, common.stateDir, SshCommand.distribution(dist), l,
        new Ec2Backend.Options(keep, Duration.ofMinutes(10), Ec2Provisioner.SSH_PORT, basePort,
            org.kvlab.cluster.ssh.SshSettings.DEFAULT_REMOTE_DIR, null));
    CallerAddress caller = callerCidr != null ? CallerAddress.fixed(callerCidr) : CallerAddress.checkIp();
    try {
      b.up(shape, spec, caller, AddressMapper.PUBLIC);
    } catch (BackendException e) {
      clients.close();
      throw new Main.CliException(Main.FAILED, e.getMessage());
    }
    return b;
  }

  /** Prints the events a user should see (new host keys, uploads, EC2 resources, failures) above the progress line. */
  static ClusterListener listener(Progress progress) {
    PrintStream log = progress.log();
    return new ClusterListener() {
      @Override
      public void progress(String message) {
        progress.update(message);
      }

      @Override
      public void event(ClusterEvent e) {
        switch (e.kind()) {
          case NEW_HOST_KEY, UPLOADED, PROVISIONED, DELETED, KILLED, FAILED, CLIENT_KILLED -> log.println(e.toString());
          default -> { }
        }
      }
    };
  }

  /** Makes the backend of a run, once the Ctrl-C hook is in place ({@code stop} says Ctrl-C came). */
  @FunctionalInterface
  interface BackendFactory {
    ClusterBackend make(Progress progress, java.util.function.BooleanSupplier stop);
  }

  /** {@code mode: open-loop}: the offered-rate sweep of docs/bench.md, "Open-loop latency-throughput curves". */
  private int openLoop(org.kvlab.openloop.OpenLoopExperiment e) throws Exception {
    if (useRunning != null || db != null || workload != null || redraw != null) {
      throw new Main.CliException(Main.USAGE, "--use-running, --db, --workload and --redraw do not apply to an open-loop "
          + "experiment. Fix: drop them (the experiment's clusters are started by bench)");
    }
    List<ClusterConfig> clusters = new java.util.ArrayList<>();
    for (Path c : e.clusters()) {
      clusters.add(Clusters.load(c));
    }
    switch (backend) { // what the backend reads first, so that a dry run fails where the sweep would
      case "local" -> { }
      case "ssh" -> {
        try {
          for (ClusterConfig c : clusters) {
            SshBackend.checkCovers(c.topology().datacenters(), sshHosts());
          }
        } catch (BackendException ex) {
          throw new Main.CliException(Main.USAGE, hostsFile + ": " + ex.getMessage());
        }
      }
      case "ec2" -> ec2Spec(requireHosts(), ec2Shape(e, clusters));
      default -> throw unknownBackend();
    }
    if (dryRun) {
      for (Path c : e.clusters()) {
        for (double rate : e.rates()) {
          System.out.printf("%s: offered %,.0f ops/s for %s after %s%s%n", c, rate, e.duration(), e.warmup(),
              backend.equals("local") ? "" : " (" + backend + ")");
        }
      }
      return Main.OK;
    }
    Progress progress = new Progress(System.out, System.err, false);
    java.util.concurrent.atomic.AtomicBoolean interrupted = new java.util.concurrent.atomic.AtomicBoolean();
    Thread sweeping = Thread.currentThread();
    CountDownLatch reported = new CountDownLatch(1);
    Thread hook = stopHook(() -> { }, "stopping the load generator and the cluster, writing the measured points",
        !backend.equals("local"), interrupted, sweeping::interrupt, reported);
    Runtime.getRuntime().addShutdownHook(hook);
    exitOnInterrupt();
    ClusterBackend b = null;
    try {
      b = switch (backend) {
        case "ssh" -> sshBackend(progress);
        case "ec2" -> ec2Backend(ec2Shape(e, clusters), progress);
        default -> new org.kvlab.cluster.local.LocalBackend(null, null);
      };
      org.kvlab.openloop.OpenLoopBench.Report report;
      try {
        report = org.kvlab.openloop.OpenLoopBench.run(e, b, output, line -> System.out.println("open loop: " + line),
            p -> { });
      } catch (org.kvlab.openloop.OpenLoopBench.Stopped stopped) {
        System.out.println(stopped.partial() == null ? "stopped before the first point"
            : "stopped; the points measured are in " + stopped.partial().directory());
        return INTERRUPTED;
      }
      System.out.printf("%nknee (highest offered rate with p99 <= %d us and no errors):%n", e.p99Bound().toNanos() / 1000);
      report.knee().forEach((protocol, rate) -> System.out.printf("  %-16s %,.0f ops/s%n", protocol, rate));
      System.out.println("results: " + report.directory());
      return interrupted.get() ? INTERRUPTED : Main.OK; // rates past the knee fail by design: that is what the sweep looks for
    } finally {
      if (b != null) {
        try {
          b.close();
        } catch (BackendException ex) {
          System.err.println("kvlab: " + ex.getMessage());
        }
      }
      reported.countDown();
      if (!interrupted.get()) {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          // the hook runs anyway
        }
      }
    }
  }

  /** The cluster EC2 instances are made for in an open-loop sweep: the one with the most datacenters, as run remotely. */
  private static ClusterConfig ec2Shape(org.kvlab.openloop.OpenLoopExperiment e, List<ClusterConfig> clusters) {
    ClusterConfig widest = clusters.stream().max(java.util.Comparator.comparingInt(c -> c.topology().datacenters()))
        .orElseThrow();
    return org.kvlab.openloop.OpenLoopBench.onRemoteHosts(e, widest);
  }

  /** What {@link #execute} did: the exit code for the CLI, the results and where they were written. */
  record Outcome(int exitCode, Results.ExperimentResult result, Path directory) {}

  /**
   * Runs {@code experiment} with a live progress line, stops cleanly on Ctrl-C, prints the summary table and
   * where the report is. Shared by {@code bench} and {@code demo}.
   */
  static Outcome execute(Experiment experiment, ExperimentRunner.Options options) throws java.io.IOException {
    return execute(experiment, options, null);
  }

  /**
   * The Ctrl-C hook of a bench run: says what it stops, marks the run interrupted, asks it to stop, and waits until
   * its results are written and its backend closed (the JVM exits when the hook returns): 90 s on this machine,
   * 15 minutes when hosts are to be released.
   */
  private static Thread stopHook(Runnable clear, String stopping, boolean remote,
      java.util.concurrent.atomic.AtomicBoolean interrupted, Runnable stop, CountDownLatch reported) {
    return new Thread(() -> {
      clear.run();
      System.err.println("kvlab: interrupted: " + stopping + (remote ? ", releasing the hosts" : "") + "...");
      interrupted.set(true);
      stop.run();
      try {
        reported.await(remote ? 900 : 90, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "kvlab-bench-stop");
  }

  /**
   * {@link #execute(Experiment, ExperimentRunner.Options)} on the backend {@code factory} makes (null: local),
   * closed at the end (EC2: its instances deleted unless --keep), also after Ctrl-C.
   */
  static Outcome execute(Experiment experiment, ExperimentRunner.Options options, BackendFactory factory)
      throws java.io.IOException {
    Progress progress = new Progress(System.out, System.err, System.console() != null);
    java.util.concurrent.atomic.AtomicBoolean interrupted = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicReference<ExperimentRunner> current = new java.util.concurrent.atomic.AtomicReference<>();
    CountDownLatch reported = new CountDownLatch(1);
    Thread hook = stopHook(progress::clear, "stopping the clients and the cluster, writing the completed runs",
        factory != null, interrupted, () -> {
          ExperimentRunner r = current.get();
          if (r != null) {
            r.requestStop();
          }
        }, reported);
    Runtime.getRuntime().addShutdownHook(hook);
    exitOnInterrupt();
    ClusterBackend backend = null;
    try {
      if (factory != null) {
        try {
          backend = factory.make(progress, interrupted::get);
        } catch (RuntimeException e) {
          // bad usage or a failed EC2 up (which deleted what it made): nothing runs that the hook would stop
          try {
            Runtime.getRuntime().removeShutdownHook(hook);
          } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
          }
          throw e;
        }
        options = options.withBackend(backend);
      }
      ExperimentRunner runner = new ExperimentRunner(options.withProgress(progress::update).withLog(progress.log()));
      current.set(runner);
      if (interrupted.get()) {
        runner.requestStop();
      }
      return runAndReport(runner, experiment, progress, hook);
    } finally {
      if (backend != null) {
        try {
          backend.close();
        } catch (BackendException e) {
          progress.clear();
          System.err.println("kvlab: " + e.getMessage());
        }
      }
      reported.countDown();
    }
  }

  private static Outcome runAndReport(ExperimentRunner runner, Experiment experiment, Progress progress, Thread hook)
      throws java.io.IOException {
    Results.ExperimentResult result;
    try {
      result = runner.run(experiment);
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, e.getMessage());
    } finally {
      progress.clear();
    }
    System.out.println();
    Reports.printSummary(result, System.out);
    Path dir = runner.outputDirectory();
    System.out.println();
    System.out.println("report: " + dir.resolve("report.html"));
    System.out.println("results: " + dir.resolve("results.json") + " and results.csv; charts: " + dir + "/*.svg, *.png");
    if (runner.stopRequested()) {
      return new Outcome(INTERRUPTED, result, dir);
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // shutting down already
    }
    return new Outcome(result.status().equals(Results.OK) ? Main.OK : Main.FAILED, result, dir);
  }

  /**
   * Ctrl-C runs the shutdown hook even if this JVM was started with SIGINT ignored (as a background job
   * of a non-interactive shell is), where the JVM would not install its own handler.
   */
  @SuppressWarnings("removal")
  private static void exitOnInterrupt() {
    try {
      sun.misc.Signal.handle(new sun.misc.Signal("INT"), s -> new Thread(() -> System.exit(INTERRUPTED), "kvlab-sigint").start());
    } catch (IllegalArgumentException | UnsupportedOperationException | LinkageError e) {
      // the JVM's own handler (if any) does the same
    }
  }

  private String commandLine() {
    StringBuilder sb = new StringBuilder("./kvlab bench ").append(file);
    if (useRunning != null) {
      sb.append(" --use-running ").append(useRunning);
    }
    if (!output.equals(Path.of("results"))) {
      sb.append(" --output ").append(output);
    }
    if (db != null) {
      sb.append(" --db ").append(db);
    }
    if (workload != null) {
      sb.append(" --workload ").append(workload);
    }
    if (keepData) {
      sb.append(" --keep-data");
    }
    if (!backend.equals("local")) {
      sb.append(" --backend ").append(backend).append(" --hosts ").append(hostsFile);
    }
    return sb.toString();
  }

  /**
   * The live progress line: rewritten in place on a terminal, one line every 10 s otherwise; event lines
   * (run finished, ...) are printed above it.
   */
  static final class Progress {
    private final PrintStream out;
    private final PrintStream err;
    private final boolean terminal;
    private String shown = "";
    private long lastPrinted;

    Progress(PrintStream out, PrintStream err, boolean terminal) {
      this.out = out;
      this.err = err;
      this.terminal = terminal;
    }

    synchronized void update(String line) {
      if (terminal) {
        String padded = line.length() < shown.length() ? line + " ".repeat(shown.length() - line.length()) : line;
        err.print("\r" + padded);
        err.flush();
        shown = line;
      } else if (System.nanoTime() - lastPrinted > 10_000_000_000L) {
        lastPrinted = System.nanoTime();
        err.println(line);
      }
    }

    synchronized void clear() {
      if (terminal && !shown.isEmpty()) {
        err.print("\r" + " ".repeat(shown.length()) + "\r");
        err.flush();
        shown = "";
      }
    }

    /** A stream for event lines that clears the progress line first. */
    PrintStream log() {
      return new PrintStream(out, true) {
        @Override
        public void println(String x) {
          clear();
          super.println(x);
        }

        @Override
        public PrintStream printf(String format, Object... args) {
          clear();
          return super.printf(Locale.ROOT, format, args);
        }
      };
    }
  }
}
