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
import org.kvlab.api.Session;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;
import org.kvlab.cluster.local.LocalClusterProcesses;
import org.kvlab.runtime.ClientRuntime;

/**
 * Runs an {@link OpenLoopExperiment}: per cluster, starts it (one JVM per server), loads the records, offers
 * each rate in increasing order (a warm-up then the measured window, the same cluster throughout), stops it;
 * then writes {@code openloop.json}, {@code openloop.csv}, the latency-throughput chart and the
 * throughput-over-time chart, and names the knee: the highest offered rate whose p99 stays within the
 * experiment's bound with no errors. Progress goes to a callback (the CLI prints it).
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

  public static Report run(OpenLoopExperiment e, Path outputRoot, Consumer<String> progress)
      throws IOException, InterruptedException, ConfigException {
    return run(e, outputRoot, progress, p -> { });
  }

  /**
   * As {@link #run(OpenLoopExperiment, Path, Consumer)}, and {@code pointDone} gets each rate's point as soon as
   * it is measured (a front end draws the curves while the sweep goes on; the designer's Benchmark tab does).
   * An interrupt of the calling thread ends the sweep: the cluster is stopped, the points measured so far are
   * written, and {@link Stopped} is thrown. A sweep that fails writes the points measured before it, too
   * ({@code "status": "failed: <why>"}), and throws what failed.
   */
  public static Report run(OpenLoopExperiment e, Path outputRoot, Consumer<String> progress, Consumer<Point> pointDone)
      throws IOException, InterruptedException, ConfigException {
    Path dir = outputRoot.resolve(e.name()).resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    Files.createDirectories(dir);
    Files.copy(e.source(), dir.resolve("experiment.yaml"));
    List<Point> points = new ArrayList<>();
    try {
      sweep(e, dir, points, progress, pointDone);
    } catch (InterruptedException ex) {
      throw new Stopped(points.isEmpty() ? null : written(e, points, dir, "stopped"));
    } catch (IOException | RuntimeException ex) {
      if (!points.isEmpty()) {
        written(e, points, dir, "failed: " + (ex.getMessage() == null ? ex.toString() : ex.getMessage()));
      }
      throw ex;
    }
    return written(e, points, dir, "ok");
  }

  /** Writes the sweep's files; its report. */
  private static Report written(OpenLoopExperiment e, List<Point> points, Path dir, String status) throws IOException {
    Map<String, Double> knee = knee(points, e.p99Bound().toNanos() / 1000.0);
    write(e, points, knee, dir, status);
    return new Report(List.copyOf(points), knee, dir);
  }

  /** Every cluster of the sweep in turn, each point added to {@code points} as it is measured; logs under {@code dir}. */
  private static void sweep(OpenLoopExperiment e, Path dir, List<Point> points, Consumer<String> progress,
      Consumer<Point> pointDone) throws IOException, InterruptedException, ConfigException {
    for (Path file : e.clusters()) {
      ClusterConfig config = ClusterConfig.load(file);
      Protocol protocol = Protocols.byName(config.protocol());
      progress.accept("starting " + config.name() + " (" + protocol.name() + ", " + config.servers().size() + " servers)");
      LocalClusterProcesses cluster = null;
      // Each server JVM logs its safepoints and collections into the results directory, so that every rate's
      // pauses can be told apart from its queueing (unless the experiment's jvm options set up logging themselves).
      Path gcLogs = dir.resolve("gc-" + config.name());
      String logOptions = e.serverJvm().contains("-Xlog") ? null : JvmPauses.serverLogOptions(gcLogs);
      if (logOptions != null) {
        Files.createDirectories(gcLogs);
      }
      try {
        cluster = LocalClusterProcesses.start(file, config, false,
            logOptions == null ? e.serverJvm() : e.serverJvm() + " " + logOptions);
        cluster.awaitConnected(Duration.ofSeconds(300)); // a dead server fails at once; slow starts are waited for
      } catch (LocalClusterProcesses.LaunchException ex) {
        LocalClusterProcesses.stop(config, Duration.ofSeconds(10));
        throw new IOException("cluster " + config.name() + " did not come up: " + ex.getMessage(), ex);
      } catch (InterruptedException | IOException | RuntimeException ex) { // stopped (or failed) while it comes up
        LocalClusterProcesses.stop(config, Duration.ofSeconds(10));
        if (cluster != null) {
          cluster.destroyForcibly();
        }
        throw ex;
      }
      try (ClientRuntime rt = new ClientRuntime(forLoadGenerator(config), protocol, e.clientThreads())) {
        List<Session> sessions = new ArrayList<>();
        for (int i = 0; i < e.sessions(); i++) {
          sessions.add(rt.openSession(0));
        }
        OpenLoopLoad.load(sessions, e.workload());
        if (!e.prime().isZero()) {
          // JIT warm-up of the fresh server and client JVMs, at the lowest rate, not measured: otherwise the
          // first rate of the sweep measures the compilers
          double lowest = e.rates().stream().mapToDouble(Double::doubleValue).min().orElseThrow();
          progress.accept(String.format("priming %s at %,.0f/s for %s (not measured)", protocol.name(), lowest, e.prime()));
          OpenLoopLoad.run(sessions, e.workload(), lowest, 0, e.prime().toNanos(), Duration.ofSeconds(15).toNanos());
        }
        for (double rate : e.rates()) {
          if (e.collect()) {
            for (String failure : FullCollections.collect(cluster.processes(), Duration.ofSeconds(30))) {
              progress.accept("warning: " + failure);
            }
          }
          OpenLoopLoad.Outcome o = OpenLoopLoad.run(sessions, e.workload(), rate, e.warmup().toNanos(),
              e.duration().toNanos(), Duration.ofSeconds(15).toNanos());
          var h = o.latency();
          boolean any = h.getTotalCount() > 0;
          Point p = new Point(protocol.name(), config.name(), rate, o.achievedOpsPerSec(), o.measured(), o.errors(),
              o.abandoned(), any ? h.getValueAtPercentile(50) : Double.NaN, any ? h.getValueAtPercentile(90) : Double.NaN,
              any ? h.getValueAtPercentile(99) : Double.NaN, any ? h.getValueAtPercentile(99.9) : Double.NaN,
              any ? h.getMaxValue() : Double.NaN, o.perSecond(), o.firstError(),
              logOptions == null ? null : serverPauses(gcLogs, o), o.generator());
          points.add(p);
          pointDone.accept(p);
          progress.accept(String.format("%s offered %,.0f/s: achieved %,.0f/s, p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms%s%s%s",
              protocol.name(), rate, p.achievedOpsPerSec(), p.p50() / 1000, p.p99() / 1000, p.p999() / 1000,
              p.errors() > 0 ? ", " + p.errors() + " errors (" + p.firstError() + ")" : "",
              p.abandoned() ? ", abandoned: " + OpenLoopLoad.IN_FLIGHT_MAX + " requests in flight" : "",
              pauses(p)));
        }
      } finally {
        LocalClusterProcesses.stop(config, Duration.ofSeconds(10));
        cluster.destroyForcibly();
      }
    }
  }

  /**
   * The servers' pauses in the run's measured window, from their logs; the log thread writes asynchronously, so
   * this waits a moment for the window's last lines. Null if the logs cannot be read.
   */
  private static JvmPauses.Pauses serverPauses(Path gcLogs, OpenLoopLoad.Outcome o) throws InterruptedException {
    Thread.sleep(200);
    try {
      return JvmPauses.servers(gcLogs, o.windowFromMillis(), o.windowToMillis(), o.achievedOpsPerSec());
    } catch (IOException ex) {
      return null;
    }
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

  private static void write(OpenLoopExperiment e, List<Point> points, Map<String, Double> knee, Path dir, String status)
      throws IOException {
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
    json.put("generatorJvm", String.join(" ", java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()));
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
