package org.kvlab.protocols.nukv;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.VectorGraphicsEncoder.VectorGraphicsFormat;
import org.kvlab.api.Params;
import org.kvlab.eval.ProgramArgs;
import org.kvlab.history.Operation;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;

/**
 * Seed 003 figures 4.2 and 4.3 in shape, simulated: 2 datacenters 15 ms apart, one partition, a 3-replica Raft
 * group per datacenter, closed-loop sessions (put:get 0.5:0.5, 1,000 uniform keys, up to 2 ms think time), with
 * 100% and 10% of the operations sent to the other datacenter. Legend as the seed's Table 4.1: write level /
 * read level, E = eventual, M = MW+WFR for writes and MR+RYW for reads, HLC = wait-free HLC writes.
 *
 * <p>Run: {@code scripts/bench/eval nukv NuKVFigures [svgDir [sessions [forwardPeriod]]]}, e.g.
 * {@code scripts/bench/eval nukv NuKVFigures docs/benchmarks/img 10} (see docs/benchmarks/nukv.md): the table to
 * standard output and to {@code svgDir/nukv-figures.md}, the two charts to {@code svgDir}.
 */
final class NuKVFigures {
  /** (label, write level, read level, hlc). */
  record Config(String label, String write, String read, boolean hlc) {}

  static final List<Config> CONFIGS = List.of(
      new Config("E", "eventual", "eventual", true),
      new Config("M/E", "mw+wfr", "eventual", false),
      new Config("E/M", "eventual", "mr+ryw", false),
      new Config("M/M", "mw+wfr", "mr+ryw", false),
      new Config("M/E HLC", "mw+wfr", "eventual", true),
      new Config("E/M HLC", "eventual", "mr+ryw", true),
      new Config("M/M HLC", "mw+wfr", "mr+ryw", true));

  /**
   * One run's figures; the wait columns come from the servers' counters over the whole run (warm-up included):
   * GETs (PUTs) a replica held until its sv covered the session's vectors, their mean hold, and the mean forwarding
   * lag (origin leader's stamp to commit at a replica of the other datacenter).
   */
  record Point(String label, double remote, double meanMillis, double p99Millis, double opsPerSecond, long ops,
      long getsHeld, double getHoldMillis, long putsHeld, double putHoldMillis, double forwardLagMillis) {}

  /** Mean of a recorded metric in ms ({@code scale} = its unit in ms), NaN if never recorded. */
  private static double mean(SimResult r, String name, double scale) {
    long n = r.counter(name + ".count");
    return n == 0 ? Double.NaN : r.counter(name + ".sum") * scale / n;
  }

  static final long WARMUP = 3_000_000;

  static Point run(Config c, double remote, int sessionsPerDc, long measureMicros, long seed) {
    return run(c, remote, sessionsPerDc, measureMicros, seed, "1ms");
  }

  static Point run(Config c, double remote, int sessionsPerDc, long measureMicros, long seed, String forwardPeriod) {
    SimSpec base = SimSpec.defaults().withTopology(2, 1, 3).withNetwork(NetworkModel.uniform(2, 15))
        .withDuration(WARMUP + measureMicros).withSettle(500_000)
        .withParams(new Params(Map.of("readLevel", c.read(), "writeLevel", c.write(), "hlc", String.valueOf(c.hlc()),
            "forwardPeriod", forwardPeriod)));
    SimSpec spec = base.withWorkload(base.workload().withKeys(1000).withSessionsPerDc(sessionsPerDc)
        .withRemoteRatio(remote));
    SimResult r = new Simulation(spec, new NuKV(), seed, List.of()).run();
    List<Long> lat = new ArrayList<>();
    for (Operation o : r.history().operations()) {
      if (o.ok() && o.session() < 2 * sessionsPerDc && o.invokeMicros() >= WARMUP
          && o.invokeMicros() < WARMUP + measureMicros) {
        lat.add(o.completeMicros() - o.invokeMicros());
      }
    }
    lat.sort(null);
    double mean = lat.stream().mapToLong(Long::longValue).average().orElse(Double.NaN) / 1000.0;
    double p99 = lat.isEmpty() ? Double.NaN : lat.get((int) Math.min(lat.size() - 1, Math.floor(lat.size() * 0.99))) / 1000.0;
    return new Point(c.label(), remote, mean, p99, lat.size() / (measureMicros / 1e6), lat.size(),
        r.counter("nukv.get.waitMicros.count"), mean(r, "nukv.get.waitMicros", 1e-3),
        r.counter("nukv.put.waitMicros.count"), mean(r, "nukv.put.waitMicros", 1e-3),
        mean(r, "nukv.forward.lagMillis", 1));
  }

  static List<Point> all(int sessionsPerDc, long measureMicros) {
    return all(sessionsPerDc, measureMicros, "1ms");
  }

  static List<Point> all(int sessionsPerDc, long measureMicros, String forwardPeriod) {
    List<Point> out = new ArrayList<>();
    for (double remote : new double[] {0.0, 0.1}) {
      for (Config c : CONFIGS) {
        out.add(run(c, remote, sessionsPerDc, measureMicros, 1, forwardPeriod));
      }
    }
    return out;
  }

  static String table(List<Point> points) {
    StringBuilder sb = new StringBuilder("| traffic | config | mean latency (ms) | p99 (ms) | throughput (ops/s) | ops"
        + " | GETs held | mean hold (ms) | PUTs held | mean hold (ms) | forwarding lag (ms) |\n"
        + "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Point p : points) {
      sb.append(String.format(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.0f | %d | %d | %.2f | %d | %.2f | %.2f |%n",
          p.remote() == 0 ? "100% local" : "10% remote", p.label(), p.meanMillis(), p.p99Millis(), p.opsPerSecond(),
          p.ops(), p.getsHeld(), p.getHoldMillis(), p.putsHeld(), p.putHoldMillis(), p.forwardLagMillis()).replace("NaN", "-"));
    }
    return sb.toString();
  }

  static void chart(List<Point> points, Path dir) throws IOException {
    chart(points, dir, "", "");
  }

  static void chart(List<Point> points, Path dir, String suffix, String note) throws IOException {
    Files.createDirectories(dir);
    for (double remote : new double[] {0.0, 0.1}) {
      CategoryChart c = new CategoryChartBuilder().width(640).height(360)
          .title("NuKV (simulated" + note + "), " + (remote == 0 ? "100% local (cf. Fig 4.2)" : "10% remote (cf. Fig 4.3)"))
          .xAxisTitle("write / read level").yAxisTitle("mean latency (ms)").build();
      Map<String, Double> series = new LinkedHashMap<>();
      for (Point p : points) {
        if (p.remote() == remote) {
          series.put(p.label(), p.meanMillis());
        }
      }
      c.addSeries("kvlab simulation", new ArrayList<>(series.keySet()), new ArrayList<>(series.values()));
      c.getStyler().setLegendVisible(false);
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      VectorGraphicsEncoder.saveVectorGraphic(c, bytes, VectorGraphicsFormat.SVG);
      Files.writeString(dir.resolve((remote == 0 ? "nukv-fig-4.2-local" : "nukv-fig-4.3-remote") + suffix + ".svg"),
          bytes.toString(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
    }
  }

  public static void main(String[] argv) throws IOException {
    ProgramArgs args = ProgramArgs.of("nukv", "NuKVFigures", "[svgDir [sessions [forwardPeriod]]]", argv, 3);
    if (args == null) {
      return;
    }
    int sessions = Math.toIntExact(args.positive(1, "sessions", 10));
    String forwardPeriod = args.text(2, "1ms");
    List<Point> points = all(sessions, 4_000_000, forwardPeriod);
    String table = table(points);
    System.out.print(table);
    Path dir = Path.of(args.text(0, "docs/benchmarks/img"));
    String suffix = forwardPeriod.equals("1ms") ? "" : "-fwd" + forwardPeriod;
    chart(points, dir, suffix, forwardPeriod.equals("1ms") ? "" : ", forwardPeriod " + forwardPeriod);
    Files.writeString(dir.resolve("nukv-figures" + suffix + ".md"), table, StandardCharsets.UTF_8);
  }
}
