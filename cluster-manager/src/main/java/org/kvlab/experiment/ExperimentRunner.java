package org.kvlab.experiment;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import org.kvlab.config.ClusterConfig;
import org.kvlab.cluster.BackendException;
import org.kvlab.cluster.ClientSpec;
import org.kvlab.cluster.ClusterBackend;
import org.kvlab.cluster.ClusterRef;
import org.kvlab.cluster.NodeState;
import org.kvlab.cluster.StartOptions;
import org.kvlab.cluster.local.LocalBackend;
import org.kvlab.cluster.local.LocalClusterProcesses;
import org.kvlab.wire.PeerStatus;

/**
 * Runs an {@link Experiment}: for each run (protocol x variation x repeat) starts the cluster through its
 * {@link ClusterBackend} (local child JVMs, SSH hosts or EC2 instances; or uses a running local one), runs
 * YCSB's load and run phases in client JVMs (several per datacenter, in parallel, started by the backend on
 * this machine or on the datacenter's client hosts, their files collected back), stops the cluster, and
 * aggregates the clients' measurements. A failed run
 * is recorded with its reason and the experiment goes on. {@link #requestStop()} (e.g. from a Ctrl-C
 * hook) kills the clients, stops the cluster and returns the runs completed so far.
 *
 * <p>Output, in {@code <outputRoot>/<name>/<timestamp>/} (and a {@code latest} link beside it):
 * {@code results.json} (rewritten after every run), {@code results.csv}, charts and {@code report.html}
 * (see {@link Reports}), and per run {@code runs/<id>/} with the cluster file, server logs and each
 * client's properties, command, output and measurements.
 */
public final class ExperimentRunner {
  /**
   * @param outputRoot where experiment directories are made (default {@code results})
   * @param useRunning a running cluster's file to benchmark instead of starting clusters, or null
   * @param classpath class path of the client JVMs (default: this JVM's)
   * @param progress receives the live progress line (about once a second)
   * @param log receives a line per event (run started, finished, failed)
   * @param command the command line, for the report
   * @param keepData keep the servers' data directories after each run
   * @param backend where clusters and clients run; null: this machine ({@link LocalBackend} with {@code classpath}).
   *     With {@code useRunning}, the backend the running cluster was started with (its clients run where that
   *     backend runs clients); a front end that makes a new backend per bench must refuse {@code useRunning} on
   *     any but the local one
   */
  public record Options(Path outputRoot, Path useRunning, String classpath, Consumer<String> progress, PrintStream log,
      String command, boolean keepData, ClusterBackend backend) {
    public Options(Path outputRoot, Path useRunning, String classpath, Consumer<String> progress, PrintStream log,
        String command, boolean keepData) {
      this(outputRoot, useRunning, classpath, progress, log, command, keepData, null);
    }

    public static Options defaults() {
      return new Options(Path.of("results"), null, absolute(System.getProperty("java.class.path")), s -> { },
          System.out, "kvlab bench", false, null);
    }

    /**
     * A class path with every entry made absolute: YCSB's client JVMs run in their run's directory, where a
     * relative entry (the bench started as {@code java -cp cluster-manager/target/kvlab.jar ...}) finds nothing.
     */
    static String absolute(String classpath) {
      if (classpath == null || classpath.isEmpty()) {
        return classpath;
      }
      return java.util.Arrays.stream(classpath.split(java.io.File.pathSeparator)).filter(e -> !e.isEmpty())
          .map(e -> Path.of(e).toAbsolutePath().toString()).collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
    }

    public Options withBackend(ClusterBackend b) {
      return new Options(outputRoot, useRunning, classpath, progress, log, command, keepData, b);
    }

    public Options withOutputRoot(Path p) {
      return new Options(p, useRunning, classpath, progress, log, command, keepData, backend);
    }

    public Options withUseRunning(Path p) {
      return new Options(outputRoot, p, classpath, progress, log, command, keepData, backend);
    }

    public Options withProgress(Consumer<String> p) {
      return new Options(outputRoot, useRunning, classpath, p, log, command, keepData, backend);
    }

    public Options withLog(PrintStream p) {
      return new Options(outputRoot, useRunning, classpath, progress, p, command, keepData, backend);
    }

    public Options withCommand(String c) {
      return new Options(outputRoot, useRunning, classpath, progress, log, c, keepData, backend);
    }

    public Options withKeepData(boolean k) {
      return new Options(outputRoot, useRunning, classpath, progress, log, command, k, backend);
    }
  }

  /**
   * How long a cluster may take to come up. A server whose process exits fails the run at once; this bounds only
   * servers that are still starting, which on a loaded machine is slow (one server JVM took 59 s to listen at
   * load ~35, and the 60 s this was failed the run).
   */
  static final Duration CLUSTER_WAIT = Duration.ofSeconds(300);
  /** Longest wait, after the load phase, for replication queues to drain. */
  static final Duration QUIET_WAIT = Duration.ofSeconds(30);
  /**
   * Timed runs of the kvlab workload: how long YCSB's own limit ({@code maxexecutiontime}) leaves the client threads to
   * start before the run phase, which the workload counts from the first operation ({@code kvlab.runseconds}). Well
   * inside the phase's timeout (the experiment's, by default duration + warm-up + 120 s).
   */
  static final long START_ALLOWANCE_SECONDS = 60;
  /** Run-phase operation count of timed runs: as good as unbounded (0 means 0 threads in YCSB 0.17). */
  static final long UNBOUNDED_OPERATIONS = 2_000_000_000L;

  private final Options options;
  private volatile boolean stopRequested;
  private volatile List<ClientProcess> currentClients = List.of();
  /** Where the clusters and clients run. */
  private final ClusterBackend backend;
  private final CountDownLatch finished = new CountDownLatch(1);
  private volatile Path outputDirectory;
  private final List<ExperimentListener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
  /** Where the runs' servers and clients ran, for the report. */
  private final HostsSeen hostsSeen = new HostsSeen();

  public ExperimentRunner(Options options) {
    this.options = options;
    this.backend = options.backend() != null ? options.backend() : new LocalBackend(options.classpath(), null);
  }

  /** Stops the experiment soon: kills the running clients; {@link #run} stops the cluster, writes what it has and returns. */
  public void requestStop() {
    stopRequested = true;
    for (ClientProcess c : currentClients) {
      c.kill();
    }
  }

  /** Adds a listener of live progress (runs started and finished, throughput and latencies about once a second). */
  public void addListener(ExperimentListener listener) {
    listeners.add(java.util.Objects.requireNonNull(listener, "listener"));
  }

  private void tell(java.util.function.Consumer<ExperimentListener> event) {
    for (ExperimentListener l : listeners) {
      try {
        event.accept(l);
      } catch (RuntimeException ex) {
        options.log().println("a progress listener failed (ignored): " + ex);
      }
    }
  }

  public boolean stopRequested() {
    return stopRequested;
  }

  /** Waits until {@link #run} has written its results and returned (for a shutdown hook). */
  public boolean awaitFinished(Duration timeout) throws InterruptedException {
    return finished.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The directory of the running (or last) experiment, once {@link #run} has made it. */
  public Path outputDirectory() {
    return outputDirectory;
  }

  /** Runs every run of {@code experiment} and writes the results and report; returns them. */
  public Results.ExperimentResult run(Experiment experiment) throws IOException {
    try (FileChannel lock = lockExperiment(experiment.name())) {
      return runLocked(experiment);
    } finally {
      finished.countDown();
    }
  }

  /**
   * Two benches of one experiment on one machine would share the cluster name bench-NAME and its state
   * directory, and one's cleanup would stop the other's servers: the second is refused. The lock is an OS
   * file lock, released when the holder ends in any way.
   */
  private static FileChannel lockExperiment(String name) throws IOException {
    Path file = LocalClusterProcesses.stateDir("bench-" + name + ".lock");
    Files.createDirectories(file.getParent());
    FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock held;
    try {
      held = ch.tryLock();
    } catch (OverlappingFileLockException sameJvm) {
      held = null;
    }
    if (held == null) {
      ch.close();
      throw new IllegalArgumentException("another ./kvlab bench of experiment '" + name + "' is running on this"
          + " machine (it holds " + file + "); both would use the cluster bench-" + name + ". Fix: wait for it to"
          + " finish, or run a copy of the experiment under another name");
    }
    return ch;
  }

  private Results.ExperimentResult runLocked(Experiment experiment) throws IOException {
    // Whatever ends this JVM (a test's timeout, System.exit, SIGTERM), the servers and clients started here die
    // with it instead of outliving it; a normal run has stopped them already and this finds nothing.
    Thread reaper = new Thread(this::destroyStarted, "kvlab-bench-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
    try {
      return runAll(experiment);
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(reaper);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs anyway
      }
    }
  }

  private void destroyStarted() {
    currentClients.forEach(ClientProcess::kill);
    backend.destroyStarted();
  }

  private Results.ExperimentResult runAll(Experiment experiment) throws IOException {
    String startedAt = Instant.now().toString();
    ClusterConfig running = null;
    Experiment e = experiment;
    if (options.useRunning() != null) {
      try {
        running = ClusterConfig.load(options.useRunning());
      } catch (org.kvlab.config.ConfigException ex) {
        throw new IllegalArgumentException(ex.getMessage(), ex);
      }
      if (!e.protocols().equals(List.of(running.protocol()))) {
        options.log().println("using the running cluster " + running.name() + " (" + running.protocol()
            + "); the experiment's protocols " + e.protocols() + " are replaced by it");
      }
      e = e.withProtocols(List.of(running.protocol()));
      for (Experiment.Sweep sw : e.sweeps()) {
        if (List.of("wan", "clockskew", "durability").contains(sw.name()) || ExperimentLoader.isClusterParam(sw.name())) {
          throw new IllegalArgumentException("the sweep of '" + sw.name() + "' changes the cluster, which a run on a"
              + " running cluster (--use-running) cannot do. Fix: run without --use-running, or remove that sweep");
        }
      }
    }
    Path out = makeOutputDirectory(e.name());
    outputDirectory = out;
    if (Files.isRegularFile(Path.of(e.source()))) {
      Files.copy(Path.of(e.source()), out.resolve("experiment.yaml"));
    }
    Results.Environment env = environment();
    List<Experiment.Run> runs = e.runs();
    List<Results.RunResult> done = new ArrayList<>();
    options.log().printf("experiment %s: %d runs (%s; %s), results in %s%n", e.name(), runs.size(),
        String.join(", ", e.protocols()), e.variations().size() + " variation" + (e.variations().size() == 1 ? "" : "s")
            + (e.repeats() > 1 ? " x " + e.repeats() + " repeats" : ""), out);
    for (Experiment.Run run : runs) {
      if (stopRequested) {
        break;
      }
      tell(l -> l.runStarted(run, runs.size()));
      Results.RunResult r = runOne(e, run, runs.size(), out, running);
      done.add(r);
      tell(l -> l.runFinished(r));
      options.log().println(Reports.runLine(r, runs.size()));
      Reports.writeJson(result(e, startedAt, out, env, runs.size(), done, false), out);
    }
    Results.ExperimentResult result = result(e, startedAt, out, env, runs.size(), done, true);
    Reports.writeAll(result, out);
    return result;
  }

  private Results.ExperimentResult result(Experiment e, String startedAt, Path out, Results.Environment env,
      int planned, List<Results.RunResult> done, boolean finishedNow) {
    String status;
    if (stopRequested || done.stream().anyMatch(r -> r.status().equals(Results.INTERRUPTED))) {
      status = Results.INTERRUPTED;
    } else if (done.stream().anyMatch(r -> !r.ok())) {
      status = Results.FAILED;
    } else {
      status = done.size() == planned ? Results.OK : "running";
    }
    Map<String, String> details;
    try {
      details = backend.hostDetails();
    } catch (RuntimeException ex) {
      details = Map.of();
    }
    return new Results.ExperimentResult(e.name(), e.source(), status, startedAt,
        finishedNow ? Instant.now().toString() : null, out.toAbsolutePath().toString(), e.xAxis(), e.protocols(),
        planned, env.with(backend.name(), hostsSeen.list(), details), settings(e), List.copyOf(done));
  }

  private static Map<String, Object> settings(Experiment e) {
    Map<String, Object> s = new LinkedHashMap<>();
    Experiment.ClusterSpec c = e.cluster();
    s.put("cluster", c.template() != null ? c.template().source() : "generated");
    s.put("datacenters", c.datacenters());
    s.put("partitions", c.partitions());
    s.put("storage", c.engine().name().toLowerCase(Locale.ROOT));
    s.put("durability", c.durability().name().toLowerCase(Locale.ROOT));
    s.put("wanRttMillis", c.wanRttMillis());
    s.put("serverJvms", c.singleJvm() ? "one for all servers" : "one per server");
    s.put("clientsPerDatacenter", e.clients().perDatacenter());
    if (!e.clients().datacenters().isEmpty()) {
      s.put("clientDatacenters", e.clients().datacenters());
    }
    s.put("threadsPerClient", e.clients().threads());
    s.put("recordcount", e.recordCount());
    if (e.timed()) {
      s.put("duration", e.duration().toSeconds() + "s");
    } else {
      s.put("operationcount", e.operationCount());
    }
    s.put("warmup", e.warmup().toSeconds() + "s");
    s.put("repeats", e.repeats());
    s.put("db", e.db());
    s.put("workloadclass", e.workloadClass());
    s.put("workload", e.workload());
    Map<String, List<String>> sweeps = new LinkedHashMap<>();
    e.sweeps().forEach(sw -> sweeps.put(sw.name(), sw.values()));
    s.put("sweep", sweeps);
    return s;
  }

  // ---------------------------------------------------------------------------------------------
  // One run

  /** A run that cannot go on; its message is the reason recorded. */
  private static final class RunFailure extends Exception {
    final boolean interrupted;

    RunFailure(String message, boolean interrupted) {
      super(message);
      this.interrupted = interrupted;
    }
  }

  /** What one phase left: per client, its measured window and return codes. */
  private record PhaseResult(List<Aggregation.ClientWindow> windows, Map<String, Map<String, Long>> returns) {}

  private Results.RunResult runOne(Experiment e, Experiment.Run run, int total, Path out, ClusterConfig running) {
    long t0 = System.nanoTime();
    String startedAt = Instant.now().toString();
    Path runDir = out.resolve("runs").resolve(run.id());
    String label = "run " + run.index() + "/" + total + " " + run.protocol()
        + (run.variation().values().isEmpty() ? "" : " " + run.variation().label())
        + (e.repeats() > 1 ? " #" + run.repeat() : "");
    RunPlan plan = null;
    ClusterRef cluster = null;
    boolean started = false;
    try {
      Files.createDirectories(runDir);
      plan = RunPlan.of(e, run, runDir.resolve("data"), running);
      if (running == null) {
        ClusterConfig placed = backend.place(plan.cluster(), runDir.resolve("data"));
        plan = plan.withCluster(placed);
        hostsSeen.servers(placed);
        Path clusterFile = runDir.resolve("cluster.yaml");
        Files.writeString(clusterFile, ClusterFiles.toYaml(placed));
        cluster = new ClusterRef(clusterFile, placed);
        options.progress().accept(label + ": deploying to " + backend.name());
        backend.deploy(cluster);
        options.progress().accept(label + ": starting " + placed.servers().size() + " servers");
        started = true;
        backend.start(cluster, new StartOptions(CLUSTER_WAIT, e.cluster().singleJvm(), e.cluster().serverJvmOptions(),
            () -> stopRequested));
      } else {
        cluster = new ClusterRef(options.useRunning().toAbsolutePath(), running);
        hostsSeen.servers(running);
      }
      if (e.load()) {
        phase(e, plan, cluster, runDir, true, label);
        awaitQuiet(cluster, label);
      }
      Map<String, ServerMetrics.Sample> before = sampleServers(cluster, label);
      PhaseResult result = phase(e, plan, cluster, runDir, false, label);
      List<Results.ServerMetric> serverMetrics = ServerMetrics.delta(before, sampleServers(cluster, label));
      return measured(e, run, plan, startedAt, t0, result, serverMetrics);
    } catch (BackendException f) {
      boolean interrupted = f.cancelled() || stopRequested;
      return unmeasured(run, plan, e, startedAt, t0, interrupted ? Results.INTERRUPTED : Results.FAILED,
          interrupted && !f.cancelled() ? "stopped (Ctrl-C): " + f.getMessage() : f.getMessage());
    } catch (RunFailure f) {
      boolean interrupted = f.interrupted || stopRequested;
      return unmeasured(run, plan, e, startedAt, t0, interrupted ? Results.INTERRUPTED : Results.FAILED,
          interrupted && !f.interrupted ? "stopped (Ctrl-C): " + f.getMessage() : f.getMessage());
    } catch (IOException | RuntimeException ex) {
      return unmeasured(run, plan, e, startedAt, t0, stopRequested ? Results.INTERRUPTED : Results.FAILED,
          ex.getClass().getSimpleName() + ": " + ex.getMessage());
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      return unmeasured(run, plan, e, startedAt, t0, Results.INTERRUPTED, "interrupted");
    } finally {
      currentClients = List.of();
      if (started) {
        options.progress().accept(label + ": stopping the cluster");
        try {
          backend.fetchLogs(cluster, runDir.resolve("logs"));
        } catch (BackendException ex) {
          options.log().println(label + ": server logs not copied: " + ex.getMessage());
        }
        try {
          backend.stop(cluster, Duration.ofSeconds(10));
        } catch (BackendException ex) {
          options.log().println(label + ": " + ex.getMessage());
        }
      }
      if (running == null && !options.keepData()) {
        if (cluster != null) {
          backend.deleteData(cluster);
        }
        deleteQuietly(runDir.resolve("data"));
      }
    }
  }

  /** Every answering server's counters and histograms now (see {@link ServerMetrics}); none if asking fails. */
  private Map<String, ServerMetrics.Sample> sampleServers(ClusterRef cluster, String label) {
    try {
      return ServerMetrics.sample(backend.status(cluster));
    } catch (RuntimeException ex) {
      options.log().println(label + ": server metrics not collected: " + ex.getMessage());
      return Map.of();
    }
  }

  /** Waits (bounded) until no server has replication messages unacknowledged, so the run phase reads loaded data. */
  private void awaitQuiet(ClusterRef cluster, String label) throws InterruptedException {
    if (cluster.config().topology().datacenters() < 2) {
      return;
    }
    options.progress().accept(label + ": waiting for replication to settle");
    long deadline = System.nanoTime() + QUIET_WAIT.toNanos();
    int quiet = 0;
    while (System.nanoTime() < deadline && !stopRequested) {
      long queued = 0;
      for (NodeState n : backend.status(cluster)) {
        queued += n.status().map(x -> x.getPeersList().stream().mapToLong(PeerStatus::getQueued).sum()).orElse(0L);
      }
      quiet = queued == 0 ? quiet + 1 : 0;
      if (quiet >= 2) {
        return;
      }
      Thread.sleep(100);
    }
  }

  private PhaseResult phase(Experiment e, RunPlan plan, ClusterRef cluster, Path runDir, boolean load, String label)
      throws IOException, RunFailure, InterruptedException, BackendException {
    String phase = load ? "load" : "run";
    if (stopRequested) {
      throw new RunFailure("stopped (Ctrl-C) before the " + phase + " phase", true);
    }
    int n = plan.clientCount();
    options.progress().accept(label + ": " + (load ? "loading " + e.recordCount() + " records" : "running the workload")
        + " with " + n + " client" + (n == 1 ? "" : "s") + (backend.name().equals("local") ? "" : " on " + backend.name()));
    List<ClientProcess> clients = new ArrayList<>();
    try {
      for (int dc : plan.clientDatacenters()) {
        for (int c = 0; c < plan.clientsPerDatacenter(); c++) {
          int k = clients.size();
          String name = "dc" + dc + "-c" + c;
          Path dir = runDir.resolve(phase).resolve(name);
          Files.createDirectories(dir.resolve("hdr"));
          Path props = dir.resolve("workload.properties");
          Files.writeString(props, properties(e, plan, load, k, n), StandardCharsets.UTF_8);
          ClientProcess cp = new ClientProcess(name, dir);
          clients.add(cp);
          currentClients = List.copyOf(clients);
          cp.started(backend.startClient(cluster, new ClientSpec(phase + "/" + name, dc,
              clientJvmOptions(e), "site.ycsb.Client", clientArgs(e, dc, load),
              Map.of("workload.properties", props), List.of(LiveHistograms.DIR), dir, cp::onErrorLine)));
          hostsSeen.client(dc, cp.handle().host());
          if (stopRequested) {
            throw new RunFailure("stopped (Ctrl-C) in the " + phase + " phase", true);
          }
        }
      }
      awaitClients(e, plan, clients, load, label);
    } finally {
      for (ClientProcess c : clients) {
        c.kill();
      }
      currentClients = List.of();
      if (!backend.name().equals("local") && !clients.isEmpty()) {
        options.progress().accept(label + ": collecting the " + phase + " phase's client files");
      }
      for (ClientProcess c : clients) {
        if (c.handle() != null) {
          try {
            c.handle().collect(); // remote clients: their files back to c.dir
          } catch (BackendException ex) {
            options.log().println(label + ": " + ex.getMessage());
          }
        }
      }
    }
    List<Aggregation.ClientWindow> windows = new ArrayList<>();
    Map<String, Map<String, Long>> returns = new TreeMap<>();
    for (ClientProcess c : clients) {
      int code = c.exitCode();
      if (code != 0) {
        throw new RunFailure("client " + c.name + " (" + phase + " phase) exited with code " + code + ": "
            + lastLines(c) + " (see " + c.dir.resolve("stderr.txt") + ")", false);
      }
      Path export = c.dir.resolve("export.json");
      if (!Files.isRegularFile(export)) {
        throw new RunFailure("client " + c.name + " (" + phase + " phase) wrote no measurements: " + lastLines(c)
            + " (see " + c.dir.resolve("stdout.txt") + " and stderr.txt)", false);
      }
      Map<String, Map<String, Long>> codes = Aggregation.returnCounts(export);
      for (Map.Entry<String, Map<String, Long>> op : codes.entrySet()) {
        for (Map.Entry<String, Long> rc : op.getValue().entrySet()) {
          if (Aggregation.isError(rc.getKey()) && rc.getValue() > 0) {
            throw new RunFailure("YCSB reported " + op.getKey() + " Return=" + rc.getKey() + ": " + rc.getValue()
                + " (client " + c.name + ", " + phase + " phase; see " + c.dir.resolve("stderr.txt") + ")", false);
          }
        }
      }
      Aggregation.addCounts(returns, codes);
      if (!load) {
        windows.add(Aggregation.readClient(c.dir.resolve("hdr"), e.warmup()));
      }
    }
    return new PhaseResult(windows, returns);
  }

  /**
   * What the client's standard error says went wrong: the cause line of its stack trace (the exception and its root
   * cause, not the frames) if it printed one, else its last three lines.
   */
  private static String lastLines(ClientProcess c) {
    String cause = c.causeLine();
    if (cause != null) {
      return cause;
    }
    List<String> lines = c.lastErrorLines();
    if (lines.isEmpty()) {
      return "no error output";
    }
    return String.join(" | ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
  }

  private void awaitClients(Experiment e, RunPlan plan, List<ClientProcess> clients, boolean load, String label)
      throws InterruptedException, RunFailure {
    long start = System.nanoTime();
    long limit = e.timeout().toNanos();
    long lastProgress = 0;
    LiveHistograms live = listeners.isEmpty() ? null
        : LiveHistograms.of(clients.stream().map(ClientProcess::handle).toList());
    while (true) {
      boolean all = true;
      for (ClientProcess c : clients) {
        all &= c.waitFor(all ? 200 : 0);
      }
      if (all) {
        if (live != null) { // what the logs gained since the last poll, however little time that left
          ExperimentListener.Interval interval = interval(e, plan, clients, load, live);
          tell(l -> l.interval(interval));
        }
        return;
      }
      if (stopRequested) {
        throw new RunFailure("stopped (Ctrl-C) in the " + (load ? "load" : "run") + " phase", true);
      }
      for (ClientProcess c : clients) {
        if (c.exitCode() > 0) {
          if (c.exitCode() > 128) {
            Thread.sleep(500); // killed by a signal: a Ctrl-C reaches the clients and this JVM together
            if (stopRequested) {
              throw new RunFailure("stopped (Ctrl-C) in the " + (load ? "load" : "run") + " phase", true);
            }
          }
          throw new RunFailure("client " + c.name + " (" + (load ? "load" : "run") + " phase) exited with code "
              + c.exitCode() + ": " + lastLines(c) + " (see " + c.dir.resolve("stderr.txt") + ")", false);
        }
      }
      long now = System.nanoTime();
      if (now - start > limit) {
        throw new RunFailure("the " + (load ? "load" : "run") + " phase did not finish within "
            + e.timeout().toSeconds() + " s (the experiment's timeout); its clients were killed", false);
      }
      if (now - lastProgress > 1_000_000_000L) {
        lastProgress = now;
        options.progress().accept(progressLine(e, plan, clients, load, label));
        if (live != null) {
          ExperimentListener.Interval interval = interval(e, plan, clients, load, live);
          tell(l -> l.interval(interval));
        }
      }
    }
  }

  private ExperimentListener.Interval interval(Experiment e, RunPlan plan, List<ClientProcess> clients, boolean load,
      LiveHistograms live) {
    ClientTotals t = ClientTotals.of(clients);
    double rate = t.opsPerSecond();
    long seconds = t.seconds();
    Map<String, ExperimentListener.Latency> latencies = new TreeMap<>();
    live.poll().forEach((op, h) -> {
      if (h.getTotalCount() > 0) { // not the empty interval YCSB logs while it exports: no latency to tell
        latencies.put(op, new ExperimentListener.Latency(h.getTotalCount(), h.getValueAtPercentile(50),
            h.getValueAtPercentile(99)));
      }
    });
    int total = e.runs().size();
    return new ExperimentListener.Interval(plan.run(), total, load ? "load" : "run", seconds,
        !load && seconds < e.warmup().toSeconds(), rate, latencies);
  }

  /** The clients' latest status lines summed: current rate, the furthest second reached, operations done. */
  private record ClientTotals(double opsPerSecond, long seconds, long operations) {
    static ClientTotals of(List<ClientProcess> clients) {
      double rate = 0;
      long seconds = 0;
      long ops = 0;
      for (ClientProcess c : clients) {
        ClientProcess.Status s = c.latest();
        rate += s.currentOpsPerSecond();
        seconds = Math.max(seconds, s.seconds());
        ops += s.operations();
      }
      return new ClientTotals(rate, seconds, ops);
    }
  }

  static String progressLine(Experiment e, RunPlan plan, List<ClientProcess> clients, boolean load, String label) {
    ClientTotals t = ClientTotals.of(clients);
    double rate = t.opsPerSecond();
    long seconds = t.seconds();
    long ops = t.operations();
    String of;
    if (load) {
      of = String.format(Locale.ROOT, "load %,d/%,d records", ops, e.recordCount());
    } else if (e.timed()) {
      of = seconds + "/" + RunPlan.runSeconds(e) + " s" + (seconds < e.warmup().toSeconds() ? " (warm-up)" : "");
    } else {
      of = String.format(Locale.ROOT, "%,d/%,d operations", ops, e.operationCount());
    }
    return String.format(Locale.ROOT, "%s: %,.0f ops/s (sum of %d client%s), %s", label, rate, clients.size(),
        clients.size() == 1 ? "" : "s", of);
  }

  /** The properties file of client {@code k} of {@code n}. */
  static String properties(Experiment e, RunPlan plan, boolean load, int k, int n) {
    StringBuilder p = new StringBuilder("# generated by kvlab bench for run " + plan.run().id() + "\n");
    plan.properties().forEach((key, v) -> p.append(key).append('=').append(v).append('\n'));
    if (e.db().equals("site.ycsb.BasicDB") && !plan.properties().containsKey("basicdb.verbose")) {
      p.append("basicdb.verbose=false\n"); // else it prints every operation
    }
    p.append("threadcount=").append(plan.threads()).append('\n');
    p.append("recordcount=").append(e.recordCount()).append('\n');
    p.append("status.interval=1\n");
    if (load) {
      long chunk = e.recordCount() / n;
      long start = k * chunk;
      long count = k == n - 1 ? e.recordCount() - start : chunk;
      p.append("insertstart=").append(start).append('\n');
      p.append("insertcount=").append(count).append('\n');
      // CoreWorkload reads operationcount in both phases (zipfian sizes its key space with it)
      p.append("operationcount=").append(Math.max(1, count)).append('\n');
    } else if (e.timed()) {
      p.append("operationcount=").append(UNBOUNDED_OPERATIONS).append('\n');
      if (e.workloadClass().equals(Experiment.KVLAB_WORKLOAD)) {
        // The binding's workload counts the run phase from the client's first operation, so the threads' start-up
        // (sessions opened, classes loaded: seconds on a loaded machine) is not taken out of the measured window;
        // YCSB's own limit, which counts from the threads' start, stays as a backstop.
        p.append("kvlab.runseconds=").append(RunPlan.runSeconds(e)).append('\n');
        p.append("maxexecutiontime=").append(RunPlan.runSeconds(e) + START_ALLOWANCE_SECONDS).append('\n');
      } else {
        p.append("maxexecutiontime=").append(RunPlan.runSeconds(e)).append('\n');
      }
    } else {
      long share = e.operationCount() / n + (k < e.operationCount() % n ? 1 : 0);
      p.append("operationcount=").append(Math.max(1, share)).append('\n');
    }
    return p.toString();
  }

  private static List<String> clientJvmOptions(Experiment e) {
    List<String> o = new ArrayList<>(LocalClusterProcesses.splitOptions(e.clients().jvmOptions()));
    o.addAll(List.of("-Duser.language=en", "-Duser.country=US"));
    return o;
  }

  /** YCSB's arguments; files relative to the client's working directory (the backend's, on its host). */
  static List<String> clientArgs(Experiment e, int dc, boolean load) {
    return List.of(load ? "-load" : "-t",
        "-db", e.db(),
        "-P", "workload.properties",
        "-p", "workload=" + e.workloadClass(),
        "-p", "kvlab.cluster=" + ClientSpec.CLUSTER_FILE,
        "-p", "kvlab.dc=" + dc,
        "-p", "measurementtype=hdrhistogram",
        "-p", "hdrhistogram.fileoutput=true",
        "-p", "hdrhistogram.output.path=hdr/",
        "-p", "exporter=site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter",
        "-p", "exportfile=export.json",
        "-s");
  }

  private Results.RunResult measured(Experiment e, Experiment.Run run, RunPlan plan, String startedAt, long t0,
      PhaseResult r, List<Results.ServerMetric> serverMetrics) throws RunFailure {
    Map<String, Histogram> merged = Aggregation.merge(r.windows().stream().map(Aggregation.ClientWindow::histograms).toList());
    if (merged.isEmpty()) {
      throw new RunFailure("no operation was measured after the warm-up (" + e.warmup().toSeconds()
          + " s): make the run longer or the warm-up shorter", false);
    }
    List<Results.OpStats> ops = new ArrayList<>();
    for (Map.Entry<String, Histogram> m : merged.entrySet()) {
      ops.add(Aggregation.stats(m.getKey(), m.getValue(), Aggregation.throughput(r.windows(), m.getKey()),
          r.returns().get(m.getKey())));
    }
    double window = r.windows().stream().mapToDouble(Aggregation.ClientWindow::seconds).average().orElse(0);
    long count = r.windows().stream().mapToLong(Aggregation.ClientWindow::operations).sum();
    return new Results.RunResult(run.index(), run.id(), run.protocol(), run.variation().values(), run.repeat(),
        Results.OK, null, startedAt, r.windows().size(), plan.threads(), (System.nanoTime() - t0) / 1e9, window,
        Aggregation.throughput(r.windows(), null), count, ops, plan.properties(), Aggregation.perSecond(r.windows()),
        serverMetrics);
  }

  private Results.RunResult unmeasured(Experiment.Run run, RunPlan plan, Experiment e, String startedAt, long t0,
      String status, String reason) {
    int clients = plan == null ? 0 : plan.clientCount();
    return new Results.RunResult(run.index(), run.id(), run.protocol(), run.variation().values(), run.repeat(), status,
        reason, startedAt, clients, plan == null ? e.clients().threads() : plan.threads(),
        (System.nanoTime() - t0) / 1e9, 0, 0, 0, List.of(), plan == null ? Map.of() : plan.properties(), List.of(),
        List.of());
  }

  // ---------------------------------------------------------------------------------------------
  // Output directory and environment

  private Path makeOutputDirectory(String name) throws IOException {
    Path parent = options.outputRoot().resolve(name);
    Files.createDirectories(parent);
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path dir = parent.resolve(stamp);
    for (int i = 2; Files.exists(dir); i++) {
      dir = parent.resolve(stamp + "-" + i);
    }
    Files.createDirectories(dir);
    Path latest = parent.resolve("latest");
    try {
      Files.deleteIfExists(latest);
      Files.createSymbolicLink(latest, dir.getFileName());
    } catch (IOException | UnsupportedOperationException e) {
      // a link is a convenience
    }
    return dir;
  }

  private Results.Environment environment() {
    Runtime rt = Runtime.getRuntime();
    long memory = 0;
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      memory = os.getTotalMemorySize() / (1024 * 1024);
    }
    return new Results.Environment(options.command(), Path.of("").toAbsolutePath().toString(),
        System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")",
        System.getProperty("java.vendor"), System.getProperty("os.name") + " " + System.getProperty("os.version")
            + " " + System.getProperty("os.arch"), rt.availableProcessors(), memory, gitCommit(), "kvlab 0.1.0");
  }

  static String gitCommit() {
    try {
      String head = exec("git", "rev-parse", "HEAD");
      if (head == null || head.isBlank()) {
        return "unknown";
      }
      String dirty = exec("git", "status", "--porcelain", "--untracked-files=no");
      return head.strip() + (dirty != null && !dirty.isBlank() ? " (with uncommitted changes)" : "");
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  private static String exec(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(5, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      return null;
    }
    return new String(out, StandardCharsets.UTF_8);
  }

  static void deleteQuietly(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (var walk = Files.walk(root)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // left behind; the run directory says where
    }
  }
}
