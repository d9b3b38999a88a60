package org.kvlab.openloop;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.kvlab.cluster.BackendException;
import org.kvlab.cluster.ClientHandle;
import org.kvlab.cluster.ClientSpec;
import org.kvlab.cluster.ClusterBackend;
import org.kvlab.cluster.ClusterRef;
import org.kvlab.cluster.NodeState;
import org.kvlab.cluster.StartOptions;
import org.kvlab.cluster.local.LocalBackend;
import org.kvlab.experiment.ClusterFiles;

/**
 * Runs an {@link OpenLoopExperiment} through a {@link ClusterBackend} (this machine, SSH hosts or EC2 instances):
 * per cluster, starts it (one JVM per server), runs the load generator ({@link OpenLoopClient}) as a client process
 * in datacenter 0, which loads the records and offers each rate in increasing order (a warm-up then the measured
 * window, the same cluster and generator throughout), stops it; then writes {@code openloop.json},
 * {@code openloop.csv}, the latency-throughput chart and the throughput-over-time chart, and names the knee: the
 * highest offered rate whose p99 stays within the experiment's bound with no errors. Progress goes to a callback
 * (the CLI prints it).
 */
public final class OpenLoopBench {
  /**
   * One rate of one protocol. Latencies in microseconds, from the intended send time. {@code serverPauses}: the
   * servers' stop-the-world pauses (safepoints) in the measured window and their allocation per request, from their
   * JVM logs (null if not logged); {@code generatorGc}: the load generator's collections in the window and its
   * allocation per request (null if unknown).
   */
  public record Point(String protocol, String cluster, double targetRate, double achievedOpsPerSec, long measured,
      long errors, boolean abandoned, double p50, double p90, double p99, double p999, double max, long[] perSecond,
      String firstError, JvmPauses.Pauses serverPauses, JvmPauses.Pauses generatorGc) {

    /** As above, without pause figures. */
    public Point(String protocol, String cluster, double targetRate, double achievedOpsPerSec, long measured,
        long errors, boolean abandoned, double p50, double p90, double p99, double p999, double max, long[] perSecond,
        String firstError) {
      this(protocol, cluster, targetRate, achievedOpsPerSec, measured, errors, abandoned, p50, p90, p99, p999, max,
          perSecond, firstError, null, null);
    }
  }

  /** The outcome: every point, the knee per protocol (0 if no rate stayed within the bound), the directory. */
  public record Report(List<Point> points, Map<String, Double> knee, Path directory) {}

  /**
   * The sweep was stopped (its thread interrupted) after {@code partial}'s points were measured; they are written
   * to its directory as a finished sweep's are, {@code openloop.json} saying {@code "status": "stopped"}. Null
   * {@code partial}: stopped before the first point, nothing written.
   */
  public static final class Stopped extends InterruptedException {
    private static final long serialVersionUID = 1L;
    private final transient Report partial;

    Stopped(Report partial) {
      super(partial == null ? "stopped before the first point" : "stopped after " + partial.points().size()
          + " points");
      this.partial = partial;
    }

    public Report partial() {
      return partial;
    }
  }

  private OpenLoopBench() {}

  /** How long a cluster may take to come up (a dead server fails at once; slow starts are waited for). */
  private static final Duration CLUSTER_WAIT = Duration.ofSeconds(300);

  public static Report run(OpenLoopExperiment e, Path outputRoot, Consumer<String> progress)
      throws IOException, InterruptedException, ConfigException {
    return run(e, outputRoot, progress, p -> { });
  }

  /**
   * As {@link #run(OpenLoopExperiment, ClusterBackend, Path, Consumer, Consumer)} on this machine (a
   * {@link LocalBackend} with this JVM's class path, closed at the end).
   */
  public static Report run(OpenLoopExperiment e, Path outputRoot, Consumer<String> progress, Consumer<Point> pointDone)
      throws IOException, InterruptedException, ConfigException {
    LocalBackend local = new LocalBackend(null, null);
    try {
      return run(e, local, outputRoot, progress, pointDone);
    } finally {
      local.close();
    }
  }

  /**
   * Runs the sweep on {@code backend} (local, SSH hosts, EC2 instances; not closed here): per cluster, places,
   * deploys and starts it there, runs the load generator ({@link OpenLoopClient}) as a client process in datacenter
   * 0 (remote backends: on that datacenter's client host), stops the cluster. {@code pointDone} gets each rate's
   * point as soon as it is measured (a front end draws the curves while the sweep goes on; the designer's Benchmark
   * tab does); it and {@code progress} are called on the calling thread. An interrupt of the calling thread ends
   * the sweep: the generator and the cluster are stopped, the points measured so far are written, and
   * {@link Stopped} is thrown. A sweep that fails writes the points measured before it, too
   * ({@code "status": "failed: <why>"}), and throws what failed.
   */
  public static Report run(OpenLoopExperiment e, ClusterBackend backend, Path outputRoot, Consumer<String> progress,
      Consumer<Point> pointDone) throws IOException, InterruptedException, ConfigException {
    Path dir = outputRoot.resolve(e.name()).resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    Files.createDirectories(dir);
    Files.copy(e.source(), dir.resolve("experiment.yaml"));
    List<Point> points = new ArrayList<>();
    Map<String, Object> where = new LinkedHashMap<>();
    where.put("backend", backend.name());
    Map<String, String> hosts = new LinkedHashMap<>();
    where.put("generatorHosts", hosts);
    where.put("generatorJvm", String.join(" ", generatorJvm()));
    try {
      sweep(e, backend, dir, points, hosts, progress, pointDone);
    } catch (InterruptedException ex) {
      throw new Stopped(points.isEmpty() ? null : written(e, points, dir, "stopped", where));
    } catch (IOException | RuntimeException ex) {
      if (!points.isEmpty()) {
        written(e, points, dir, "failed: " + (ex.getMessage() == null ? ex.toString() : ex.getMessage()), where);
      }
      throw ex;
    }
    return written(e, points, dir, "ok", where);
  }

  /** Writes the sweep's files; its report. */
  private static Report written(OpenLoopExperiment e, List<Point> points, Path dir, String status,
      Map<String, Object> where) throws IOException {
    Map<String, Double> knee = knee(points, e.p99Bound().toNanos() / 1000.0);
    write(e, points, knee, dir, status, where);
    return new Report(List.copyOf(points), knee, dir);
  }

  /** System property with the load generator's JVM options on one line (instead of this JVM's). */
  public static final String GENERATOR_JVM_PROPERTY = "kvlab.openloop.generatorJvm";

  /**
   * The load generator's JVM options: those of {@link #GENERATOR_JVM_PROPERTY} if set, else this JVM's {@code -X...}
   * options (those {@code KVLAB_JAVA_OPTS} gives {@code ./kvlab}, sized for the generator as docs/bench.md shows),
   * so that the generator runs as it did inside the bench JVM; agents and properties are not passed on.
   */
  static List<String> generatorJvm() {
    String given = System.getProperty(GENERATOR_JVM_PROPERTY);
    if (given != null && !given.isBlank()) {
      return List.of(given.strip().split("\\s+"));
    }
    return java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("-X")).toList();
  }

  /** Every cluster of the sweep in turn, each point added to {@code points} as it is measured; logs under {@code dir}. */
  private static void sweep(OpenLoopExperiment e, ClusterBackend backend, Path dir, List<Point> points,
      Map<String, String> hosts, Consumer<String> progress, Consumer<Point> pointDone)
      throws IOException, InterruptedException, ConfigException {
    boolean local = backend.name().equals("local");
    for (Path file : e.clusters()) {
      ClusterConfig config = ClusterConfig.load(file);
      Protocol protocol = Protocols.byName(config.protocol());
      ClusterRef cluster;
      try {
        ClusterConfig placed = backend.place(local ? config : onRemoteHosts(e, config), dir.resolve("data-" + config.name()));
        Path clusterFile = file;
        if (!local) {
          clusterFile = dir.resolve("cluster-" + config.name() + ".yaml");
          Files.writeString(clusterFile, ClusterFiles.toYaml(placed));
        }
        cluster = new ClusterRef(clusterFile, placed);
        if (!local) {
          progress.accept("deploying " + config.name() + " to " + backend.name());
        }
        backend.deploy(cluster);
      } catch (BackendException ex) {
        throw new IOException("cluster " + config.name() + ": " + ex.getMessage(), ex);
      }
      progress.accept("starting " + config.name() + " (" + protocol.name() + ", " + config.servers().size() + " servers"
          + (local ? "" : ", " + backend.name()) + ")");
      // Each server JVM logs its safepoints and collections, so that every rate's pauses can be told apart from its
      // queueing (unless the experiment's jvm options set up logging themselves): here into the results directory,
      // on remote hosts into its output (its log, fetched after each rate).
      Path gcLogs = local ? dir.resolve("gc-" + config.name()) : dir.resolve("logs-" + config.name());
      String logOptions = e.serverJvm().contains("-Xlog") ? null
          : local ? JvmPauses.serverLogOptions(gcLogs) : JvmPauses.SERVER_STDOUT_LOG_OPTIONS;
      if (logOptions != null && local) {
        Files.createDirectories(gcLogs);
      }
      Thread caller = Thread.currentThread();
      try {
        backend.start(cluster, new StartOptions(CLUSTER_WAIT, false,
            logOptions == null ? e.serverJvm() : e.serverJvm() + " " + logOptions, caller::isInterrupted));
        if (Thread.interrupted()) {
          throw new InterruptedException("stopped while the cluster came up");
        }
        generate(e, backend, cluster, config.name(), protocol, dir, logOptions == null ? null : gcLogs, hosts, points, progress,
            pointDone);
      } catch (BackendException ex) {
        if (Thread.interrupted() || ex.cancelled()) {
          throw new InterruptedException("stopped while the cluster came up");
        }
        throw new IOException("cluster " + config.name() + " did not come up: " + ex.getMessage(), ex);
      } finally { // also after a failed start: the backend stopped what it started, this fetches their logs
        stopCluster(backend, cluster, dir.resolve("logs-" + config.name()), local, progress);
      }
    }
  }

  /**
   * {@code c} as a remote backend runs it: named {@code bench-<experiment>} like a YCSB experiment's runs, for every
   * cluster of the sweep in turn (one remote directory on the hosts; EC2 instances are made for one cluster name).
   * The points keep the cluster file's name.
   */
  public static ClusterConfig onRemoteHosts(OpenLoopExperiment e, ClusterConfig c) {
    return new ClusterConfig(c.source(), org.kvlab.experiment.RunPlan.clusterName(e.name()), c.protocol(), c.params(),
        c.topology(), c.servers(), c.storage(), c.emulation(), c.limits(), c.security());
  }

  /** Stops the cluster (its logs fetched first; remote backends: its data deleted); failures are progress lines. */
  private static void stopCluster(ClusterBackend backend, ClusterRef cluster, Path logs, boolean local,
      Consumer<String> progress) {
    boolean interrupted = Thread.interrupted(); // stopping must not be cut short by the interrupt that ends the sweep
    try {
      try {
        backend.fetchLogs(cluster, logs);
      } catch (BackendException ex) {
        progress.accept("warning: server logs not copied: " + ex.getMessage());
      }
      try {
        backend.stop(cluster, Duration.ofSeconds(10));
      } catch (BackendException ex) {
        progress.accept("warning: " + ex.getMessage());
      }
      if (!local) {
        backend.deleteData(cluster);
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Runs the load generator of one cluster to its end: its points are passed on as they arrive (with the servers'
   * pauses in their windows, from {@code gcLogs} if not null), its progress lines too.
   */
  private static void generate(OpenLoopExperiment e, ClusterBackend backend, ClusterRef cluster, String name,
      Protocol protocol, Path dir, Path gcLogs, Map<String, String> hosts, List<Point> points, Consumer<String> progress,
      Consumer<Point> pointDone) throws IOException, InterruptedException, BackendException {
    boolean local = backend.name().equals("local");
    List<Long> serverPids = new ArrayList<>();
    if (e.collect()) {
      if (local) {
        for (NodeState n : backend.status(cluster)) {
          if (n.pid() > 0) {
            serverPids.add(n.pid());
          }
        }
      } else {
        progress.accept("warning: the servers on the " + backend.name() + " backend's hosts are not collected before"
            + " each rate (jcmd attaches on the server's own host only); the load generator is");
      }
    }
    Path genDir = dir.resolve("generator-" + name);
    Files.createDirectories(genDir);
    Path plan = genDir.resolve("plan.json");
    OpenLoopClient.JSON.writeValue(plan.toFile(), new OpenLoopClient.Plan(name, e.workload(), e.rates(),
        e.prime().toNanos(), e.warmup().toNanos(), e.duration().toNanos(), e.sessions(), e.clientThreads(), e.collect(),
        serverPids));
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    ClientHandle handle = backend.startClient(cluster, new ClientSpec("openloop/" + name, 0, generatorJvm(),
        OpenLoopClient.class.getName(), List.of(ClientSpec.CLUSTER_FILE, "plan.json"), Map.of("plan.json", plan),
        List.of(), genDir, lines::add));
    hosts.put(name, handle.host());
    progress.accept("load generator for " + name + " on " + handle.host());
    Deque<String> other = new ArrayDeque<>();
    int measured = 0;
    boolean ended = false;
    try {
      while (!ended) {
        ended = handle.waitFor(200);
        for (String line = lines.poll(); line != null; line = lines.poll()) {
          if (line.startsWith(OpenLoopClient.POINT)) {
            Point p = withServerPauses(OpenLoopClient.JSON.readValue(line.substring(OpenLoopClient.POINT.length()),
                OpenLoopClient.Measured.class), backend, cluster, gcLogs);
            measured++;
            points.add(p);
            pointDone.accept(p);
            progress.accept(String.format("%s offered %,.0f/s: achieved %,.0f/s, p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms%s%s%s",
                protocol.name(), p.targetRate(), p.achievedOpsPerSec(), p.p50() / 1000, p.p99() / 1000, p.p999() / 1000,
                p.errors() > 0 ? ", " + p.errors() + " errors (" + p.firstError() + ")" : "",
                p.abandoned() ? ", abandoned: " + OpenLoopLoad.IN_FLIGHT_MAX + " requests in flight" : "",
                pauses(p)));
          } else if (line.startsWith(OpenLoopClient.PROGRESS)) {
            progress.accept(line.substring(OpenLoopClient.PROGRESS.length()));
          } else if (!line.isBlank()) {
            other.addLast(line);
            while (other.size() > 6) {
              other.removeFirst();
            }
          }
        }
      }
    } finally {
      if (!ended) {
        handle.kill();
      }
      try {
        handle.collect(); // remote: its files (points.jsonl, rate-<k>.hdr, host.txt, stderr.txt) back to genDir
      } catch (BackendException ex) {
        progress.accept("warning: " + ex.getMessage());
      }
    }
    if (handle.exitCode() != 0 || measured < e.rates().size()) {
      throw new IOException("the load generator of " + name + " on " + handle.host() + " exited with code "
          + handle.exitCode() + " after " + measured + " of " + e.rates().size() + " rates: "
          + String.join(" | ", other) + " (see " + genDir.resolve("stderr.txt") + ")");
    }
  }

  /**
   * {@code m}'s point with the servers' pauses in its window: from the local logs in {@code gcLogs}, or from the
   * servers' logs fetched into it now (remote backends); null pauses if there are no logs. The log thread writes
   * asynchronously, so this waits a moment for the window's last lines.
   */
  private static Point withServerPauses(OpenLoopClient.Measured m, ClusterBackend backend, ClusterRef cluster,
      Path gcLogs) throws InterruptedException {
    Point p = m.point();
    JvmPauses.Pauses pauses = null;
    if (gcLogs != null) {
      Thread.sleep(200);
      try {
        if (backend.name().equals("local")) {
          pauses = JvmPauses.servers(gcLogs, m.windowFromMillis(), m.windowToMillis(), p.achievedOpsPerSec());
        } else {
          backend.fetchLogs(cluster, gcLogs);
          List<Path> logs = new ArrayList<>();
          for (var s : cluster.config().servers()) {
            Path log = gcLogs.resolve(s.id() + ".log");
            if (Files.isRegularFile(log)) {
              logs.add(log);
            }
          }
          pauses = JvmPauses.logs(logs, m.windowFromMillis(), m.windowToMillis(), p.achievedOpsPerSec());
        }
      } catch (IOException | BackendException ex) {
        pauses = null;
      }
    }
    return new Point(p.protocol(), p.cluster(), p.targetRate(), p.achievedOpsPerSec(), p.measured(), p.errors(),
        p.abandoned(), p.p50(), p.p90(), p.p99(), p.p999(), p.max(), p.perSecond(), p.firstError(), pauses,
        p.generatorGc());
  }

  /** The pause figures of a point for the progress line: "; server: ..., generator: ..." (empty if none). */
  static String pauses(Point p) {
    StringBuilder b = new StringBuilder();
    JvmPauses.Pauses s = p.serverPauses();
    if (s != null) {
      b.append(String.format("; server: %d pauses, %.1f ms in all, longest %.1f ms, %s B/request", s.count(),
          s.totalMillis(), s.maxMillis(), bytes(s.bytesPerRequest())));
    }
    JvmPauses.Pauses g = p.generatorGc();
    if (g != null) {
      b.append(String.format("; generator: %d collections, %.0f ms in all, longest %s ms, %s B/request", g.count(),
          g.totalMillis(), Double.isNaN(g.maxMillis()) ? "?" : String.format("%.0f", g.maxMillis()),
          bytes(g.bytesPerRequest())));
    }
    return b.toString();
  }

  private static String bytes(double v) {
    return Double.isNaN(v) ? "?" : String.format("%,.0f", v);
  }

  /**
   * The cluster as the load generator's client sees it: its in-flight limit per connection raised to
   * {@link OpenLoopLoad#IN_FLIGHT_MAX} plus one batch (if lower), so that a stall of the server or of the machine shows as
   * latency of the requests due during it, not as requests the client refuses itself; the run is abandoned
   * at that many in flight anyway. The servers keep the cluster file's limits.
   */
  static ClusterConfig forLoadGenerator(ClusterConfig c) {
    ClusterConfig.Limits l = c.limits();
    // Each session thread's driver checks IN_FLIGHT_MAX before each request, so with several threads a few more may
    // go out at once: the client allows a batch more (otherwise an abandoned run also reports requests it refused).
    int limit = OpenLoopLoad.IN_FLIGHT_MAX + OpenLoopLoad.BATCH_MAX;
    if (l.clientRequestsInFlightMax() >= limit) {
      return c;
    }
    ClusterConfig.Limits raised = new ClusterConfig.Limits(l.frameBytesMax(), l.peerQueueMessagesMax(),
        limit, l.handshakeMillis(), l.clientIdleSeconds(), l.peerFlushMicros());
    return new ClusterConfig(c.source(), c.name(), c.protocol(), c.params(), c.topology(), c.servers(), c.storage(),
        c.emulation(), raised, c.security());
  }

  /**
   * Per protocol, the highest offered rate whose p99 is within {@code boundMicros}, with no errors and nothing
   * abandoned, and every lower rate within the bound too (0 if the lowest rate already missed it).
   */
  public static Map<String, Double> knee(List<Point> points, double boundMicros) {
    Map<String, Double> out = new LinkedHashMap<>();
    java.util.Set<String> past = new java.util.HashSet<>();
    for (Point p : points.stream().sorted(java.util.Comparator.comparingDouble(Point::targetRate)).toList()) {
      out.putIfAbsent(p.protocol(), 0.0);
      boolean within = p.errors() == 0 && !p.abandoned() && p.measured() > 0 && p.p99() <= boundMicros;
      if (!within) {
        past.add(p.protocol()); // past the knee: higher rates do not count, even if one happens to pass
      } else if (!past.contains(p.protocol())) {
        out.put(p.protocol(), p.targetRate());
      }
    }
    return out;
  }

  private static void write(OpenLoopExperiment e, List<Point> points, Map<String, Double> knee, Path dir, String status,
      Map<String, Object> where) throws IOException {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("name", e.name());
    json.put("status", status);
    json.put("pointsPlanned", e.clusters().size() * e.rates().size());
    json.put("p99BoundMicros", e.p99Bound().toNanos() / 1000.0);
    json.put("primeSeconds", e.prime().toMillis() / 1000.0);
    json.put("collect", e.collect());
    json.put("warmupSeconds", e.warmup().toMillis() / 1000.0);
    json.put("durationSeconds", e.duration().toMillis() / 1000.0);
    json.put("sessions", e.sessions());
    json.put("clientThreads", e.clientThreads());
    json.put("workload", e.workload());
    json.put("serverJvm", e.serverJvm());
    json.putAll(where); // backend, generatorHosts (cluster: host), generatorJvm
    json.put("loadAverage", Files.readString(Path.of("/proc/loadavg")).strip());
    json.put("cores", Runtime.getRuntime().availableProcessors());
    json.put("knee", knee);
    json.put("points", points);
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve("openloop.json").toFile(), json);
    StringBuilder csv = new StringBuilder("protocol,cluster,target_ops,achieved_ops,measured,errors,abandoned,p50_us,p90_us,p99_us,p999_us,max_us,"
        + "server_pauses,server_pause_ms,server_pause_max_ms,server_bytes_per_req,generator_gcs,generator_gc_ms,"
        + "generator_gc_max_ms,generator_bytes_per_req\n");
    for (Point p : points) {
      JvmPauses.Pauses s = p.serverPauses();
      JvmPauses.Pauses g = p.generatorGc();
      csv.append(String.join(",", p.protocol(), p.cluster(), fmt(p.targetRate()), fmt(p.achievedOpsPerSec()),
          Long.toString(p.measured()), Long.toString(p.errors()), Boolean.toString(p.abandoned()), fmt(p.p50()),
          fmt(p.p90()), fmt(p.p99()), fmt(p.p999()), fmt(p.max()),
          s == null ? "" : Long.toString(s.count()), s == null ? "" : fmt(s.totalMillis()), s == null ? "" : fmt(s.maxMillis()),
          s == null ? "" : fmt(s.bytesPerRequest()),
          g == null ? "" : Long.toString(g.count()), g == null ? "" : fmt(g.totalMillis()), g == null ? "" : fmt(g.maxMillis()),
          g == null ? "" : fmt(g.bytesPerRequest()))).append('\n');
    }
    Files.writeString(dir.resolve("openloop.csv"), csv);
    save(latencyChart(e, points), dir, "latency-throughput");
    save(timeChart(e, points), dir, "throughput-over-time");
    Path latest = dir.getParent().resolve("latest");
    Files.deleteIfExists(latest);
    try {
      Files.createSymbolicLink(latest, dir.getFileName());
    } catch (IOException | UnsupportedOperationException ignored) {
      // a file system without links: the timestamped directory is still there
    }
  }

  /**
   * What a sweep's {@code openloop.json} says: its name, status ({@code ok}, {@code stopped} or {@code failed: ...};
   * files written before sweeps recorded one were written only by complete sweeps: {@code ok}), the points planned
   * and those measured (a point's latencies are NaN where it measured nothing).
   */
  public record Written(String name, String status, int pointsPlanned, List<Point> points) {}

  /** Reads a sweep's {@code openloop.json} (the designer lists earlier sweeps with it). */
  public static Written read(Path json) throws IOException {
    com.fasterxml.jackson.databind.JsonNode j = new ObjectMapper()
        .enable(com.fasterxml.jackson.core.JsonParser.Feature.ALLOW_NON_NUMERIC_NUMBERS).readTree(json.toFile());
    List<Point> points = new ArrayList<>();
    for (com.fasterxml.jackson.databind.JsonNode p : j.path("points")) {
      long[] perSecond = new long[p.path("perSecond").size()];
      for (int i = 0; i < perSecond.length; i++) {
        perSecond[i] = p.path("perSecond").get(i).asLong();
      }
      points.add(new Point(p.path("protocol").asText(), p.path("cluster").asText(), p.path("targetRate").asDouble(),
          p.path("achievedOpsPerSec").asDouble(), p.path("measured").asLong(), p.path("errors").asLong(),
          p.path("abandoned").asBoolean(), latency(p, "p50"), latency(p, "p90"), latency(p, "p99"), latency(p, "p999"),
          latency(p, "max"), perSecond, p.path("firstError").isNull() ? null : p.path("firstError").asText(null)));
    }
    return new Written(j.path("name").asText(), j.path("status").asText("ok"), j.path("pointsPlanned")
        .asInt(points.size()), points);
  }

  /** A latency as written: a number, or NaN (Jackson writes it as the string "NaN"). */
  private static double latency(com.fasterxml.jackson.databind.JsonNode point, String name) {
    com.fasterxml.jackson.databind.JsonNode v = point.path(name);
    return v.isNumber() ? v.asDouble() : v.isTextual() ? Double.parseDouble(v.asText()) : Double.NaN;
  }

  private static String fmt(double v) {
    return Double.isNaN(v) ? "" : String.format(java.util.Locale.ROOT, "%.1f", v);
  }

  /** p50 (circles, solid) and p99 (diamonds, dashed) in ms, log scale, against achieved ops/s, per protocol. */
  static XYChart latencyChart(OpenLoopExperiment e, List<Point> points) {
    XYChart c = new XYChartBuilder().width(900).height(500)
        .title(e.name() + ": open-loop latency (from intended send) vs achieved ops/s")
        .xAxisTitle("achieved ops/s").yAxisTitle("latency, ms (log scale)").build();
    c.getStyler().setYAxisLogarithmic(true);
    c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
    c.getStyler().setDecimalPattern("#,##0.###");
    java.awt.Color[] palette = c.getStyler().getSeriesColors();
    int i = 0;
    double maxX = 0;
    for (String protocol : points.stream().map(Point::protocol).distinct().toList()) {
      List<Point> ps = points.stream().filter(p -> p.protocol().equals(protocol) && p.measured() > 0).toList();
      if (ps.isEmpty()) {
        continue;
      }
      double[] x = ps.stream().mapToDouble(Point::achievedOpsPerSec).toArray();
      maxX = Math.max(maxX, java.util.Arrays.stream(x).max().orElse(0));
      java.awt.Color color = palette[i++ % palette.length];
      XYSeries p50 = c.addSeries(protocol + " p50 (solid, circles)", x, ps.stream().mapToDouble(p -> p.p50() / 1000).toArray());
      p50.setMarker(SeriesMarkers.CIRCLE);
      p50.setLineColor(color);
      p50.setMarkerColor(color);
      XYSeries p99 = c.addSeries(protocol + " p99 (dashed, diamonds)", x, ps.stream().mapToDouble(p -> p.p99() / 1000).toArray());
      p99.setMarker(SeriesMarkers.DIAMOND);
      p99.setLineColor(color.darker());
      p99.setMarkerColor(color.darker());
      p99.setLineStyle(new java.awt.BasicStroke(1.5f, java.awt.BasicStroke.CAP_BUTT, java.awt.BasicStroke.JOIN_MITER,
          10f, new float[] {6f, 4f}, 0f));
    }
    if (maxX > 0) {
      double bound = e.p99Bound().toNanos() / 1e6;
      XYSeries b = c.addSeries(String.format("p99 bound %.3g ms (dotted)", bound), new double[] {0, maxX}, new double[] {bound, bound});
      b.setMarker(SeriesMarkers.NONE);
      b.setLineColor(java.awt.Color.GRAY);
      b.setLineStyle(new java.awt.BasicStroke(1f, java.awt.BasicStroke.CAP_BUTT, java.awt.BasicStroke.JOIN_MITER,
          10f, new float[] {2f, 3f}, 0f));
    }
    return c;
  }

  /** Completed requests per second over each run (warm-up included), one line per (protocol, offered rate). */
  static XYChart timeChart(OpenLoopExperiment e, List<Point> points) {
    XYChart c = new XYChartBuilder().width(900).height(500)
        .title(e.name() + ": completions per second per run (warm-up included)")
        .xAxisTitle("seconds since the run's start").yAxisTitle("ops/s").build();
    c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
    c.getStyler().setDecimalPattern("#,##0");
    c.getStyler().setMarkerSize(0);
    for (Point p : points) {
      int n = p.perSecond().length;
      while (n > 1 && p.perSecond()[n - 1] == 0) {
        n--;
      }
      double[] x = new double[n];
      double[] y = new double[n];
      for (int k = 0; k < n; k++) {
        x[k] = k;
        y[k] = p.perSecond()[k];
      }
      c.addSeries(String.format("%s offered %,.0f/s", p.protocol(), p.targetRate()), x, y).setMarker(SeriesMarkers.NONE);
    }
    return c;
  }

  private static void save(XYChart chart, Path dir, String name) throws IOException {
    Path base = dir.resolve(name);
    BitmapEncoder.saveBitmap(chart, base.toString(), BitmapEncoder.BitmapFormat.PNG);
    VectorGraphicsEncoder.saveVectorGraphic(chart, base.toString(), VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
  }
}
