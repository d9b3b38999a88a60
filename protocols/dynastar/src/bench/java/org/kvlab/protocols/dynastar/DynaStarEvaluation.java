package org.kvlab.protocols.dynastar;

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
import java.util.Set;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.VectorGraphicsEncoder.VectorGraphicsFormat;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.kvlab.api.Params;
import org.kvlab.api.Topology;
import org.kvlab.eval.ProgramArgs;
import org.kvlab.eval.Svg;
import org.kvlab.history.Operation;
import org.kvlab.partitioning.Partitioner;
import org.kvlab.partitioning.Placement;
import org.kvlab.partitioning.PlacementAdvice;
import org.kvlab.partitioning.WorkloadGraph;
import org.kvlab.partitioning.Partitioners;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.ServiceTime;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;
import org.kvlab.sim.Timeline;
import org.kvlab.sim.TxnWorkload;
import org.kvlab.sim.Workload;
import org.kvlab.workload.TxnFamily;
import org.kvlab.workload.chirper.Chirper;
import org.kvlab.workload.tpcc.Tpcc;

/**
 * Seed 002's dynamic figures in shape, in the simulator (virtual time, so the machine's load does not change them;
 * seed 1, no fault): 4 data partitions and the oracle, one server each, in one datacenter (0.2-0.3 ms one way),
 * closed-loop sessions without think time, and a CPU cost: every message, call and request a server handles keeps it
 * busy 100 µs, one at a time ({@link #SERVICE}; a partition handles at most 10,000 inputs a second, about the seed's
 * peak of Table 1), so servers saturate and queue. Time is <b>compressed</b> against the seed's runs: 10× in Fig 2 (its plan at 50 s is
 * at 5 s here), 20× in Fig 6 (its plan at about 50 s, celebrity at 200 s and second plan at about 300 s are at
 * 2.5 s, 10 s and 15 s here); buckets are 0.5 s. DynaStar's own dynamics (message delays, a plan's moves) are not
 * compressed.
 *
 * <ul>
 *   <li><b>Fig 2</b>: TPC-C-lite, 4 warehouses (one per data partition, as the seed's run), random placement, the
 *       oracle repartitioning every 5 s (its first plan at 5 s; later ones only if they cut 10% more: {@code
 *       planGain}), 15 s; throughput, p50/p99 latency and the multi-partition share per bucket.
 *   <li><b>Fig 6</b>: Chirper (85% timeline / 15% post, Zipf 0.95, {@code users} users in 8 communities with 5%
 *       of follows across, timelines of the newest 50 posts), the celebrity at 10 s (its fans, one community, follow
 *       it; 10% of the operations are its posts), 25 s:
 *       DynaStar from a random placement repartitioning every 5 s (plans at 5, 10, 15 s if they are not worse: {@link
 *       #FIG6_PLAN_GAIN}), against
 *       S-SMR* = DynaStar with {@code repartitionEvery=0} on a static placement computed beforehand by METIS ({@link PlacementAdvice}, the
 *       partitioning module's advisor, as {@code kvlab advise-placement}) from a 3 s trace of the same workload
 *       without the celebrity (the seed's "hand-optimised" placement was METIS-precomputed on the social graph).
 *   <li><b>Table 1</b>: per data partition, in DynaStar's Chirper run over the 2 s before the celebrity (the seed's
 *       t = 180 s: 8-10 s here): commands executed there per second, multi-partition ones, variables it lent
 *       per second.
 * </ul>
 *
 * <p>{@code scripts/bench/eval dynastar DynaStarEvaluation [users [sessions [outDir]]]} prints the tables and, with
 * outDir, writes them ({@code dynastar-figures.md}) and the charts ({@code dynastar-fig2.svg},
 * {@code dynastar-fig2-latency.svg}, {@code dynastar-fig6.svg}) there. Defaults: 300 users, 24 sessions.
 */
public final class DynaStarEvaluation {
  /** Data partitions; the topology has one more, the oracle. */
  static final int PARTS = 4;
  static final long SECOND = 1_000_000;
  static final long BUCKET = 500_000;
  static final long FIG2_DURATION = 15 * SECOND;
  static final long FIG6_DURATION = 25 * SECOND;
  static final long CELEBRITY_AT = 10 * SECOND;
  static final long TRACE_DURATION = 3 * SECOND;

  /** The servers' CPU cost per message, call and request they handle (the simulator's service-time model). */
  static final ServiceTime SERVICE = ServiceTime.of(100);

  private DynaStarEvaluation() {}

  /** A run of {@code family} on DynaStar with {@code params}, a time series in buckets of 0.5 s. */
  static SimSpec spec(TxnFamily family, int sessions, long durationMicros, Map<String, String> params) {
    return spec(family, sessions, durationMicros, params, SERVICE);
  }

  static SimSpec spec(TxnFamily family, int sessions, long durationMicros, Map<String, String> params,
      ServiceTime service) {
    Workload w = Workload.defaults().withSessionsPerDc(sessions).withThinkMicros(0)
        .withTxn(Workload.Txns.of(1.0, TxnWorkload.of(family)));
    return SimSpec.defaults().withTopology(1, PARTS + 1).withNetwork(NetworkModel.uniform(1, 2))
        .withParams(new Params(params)).withWorkload(w).withFaultKinds(Set.of()).withDuration(durationMicros)
        .withSettle(SECOND).withTrace(false).withFinalReads(false).withTimeline(BUCKET).withServiceTime(service);
  }

  static SimResult run(SimSpec spec) {
    SimResult r = new Simulation(spec, new DynaStar(), 1).run();
    if (r.failed()) {
      throw new IllegalStateException("seed 1 failed: " + r.failures());
    }
    return r;
  }

  /**
   * TPC-C-lite (4 warehouses) from a random placement for {@code durationMicros}, the oracle's first plan at
   * {@code planEvery} (Fig 2: 15 s, 5s).
   */
  static SimResult fig2(int sessions, long durationMicros, String planEvery) {
    return run(spec(Tpcc.of(PARTS), sessions, durationMicros, Map.of("placement", "random", "repartitionEvery",
        planEvery, "partitioner", "auto")));
  }

  /**
   * Posts kept per timeline. Chirper's default, 1,000, makes every post rewrite followers' timelines of up to 1,000
   * posts, and the run's history keeps each post's reads and writes: a 20 s run of 300 users ran out of a 3 GB heap.
   */
  static final int TIMELINE_CAP = 50;

  /** Communities of Chirper's follower graph (two per data partition) and the share of follows across them. */
  static final int COMMUNITIES = 2 * PARTS;
  static final double CROSS_SHARE = 0.05;

  static Chirper chirper(int users) {
    return Chirper.of(users).withCommunities(COMMUNITIES, CROSS_SHARE).withTimelineCap(TIMELINE_CAP);
  }

  /**
   * The edge-cut gain (%) a plan needs in Fig 6: 0, any plan that is not worse than the current placement. The
   * oracle's graph keeps every command since the start, and the posts of the most active user (user 0, a hub followed
   * from every community; a post adds an edge between every two keys it declares) make most of its cut, which no
   * placement removes: five seconds of the celebrity's posts add a few percent to the cut, less than a fresh
   * partitioning of the rest loses against the current placement: even with 0 no plan comes at 10 s or 15 s, the
   * second comes at 20 s, 10 s after the celebrity (the seed's came about 100 s after it: 5 s here), so Fig 6 runs
   * 25 s.
   */
  static final int FIG6_PLAN_GAIN = 0;

  /** DynaStar on Chirper from a random placement, repartitioning every 5 s, the celebrity at 10 s (Fig 6). */
  static SimResult fig6DynaStar(int users, int sessions) {
    return run(spec(chirper(users).withCelebrityAt(CELEBRITY_AT), sessions, FIG6_DURATION, Map.of("placement",
        "random", "repartitionEvery", "5s", "partitioner", "auto", "planGain", Integer.toString(FIG6_PLAN_GAIN))));
  }

  /**
   * The S-SMR* placement: METIS on the co-access graph of a trace (the keys of every transaction) of Chirper without
   * the celebrity, recorded on DynaStar with hash placement and no repartitioning; written as a placement file.
   */
  static PlacementAdvice advise(int users, int sessions, Path file) throws IOException {
    SimResult trace = run(spec(chirper(users), sessions, TRACE_DURATION, Map.of("placement", "hash",
        "repartitionEvery", "0")));
    List<List<String>> txns = new ArrayList<>();
    for (Operation op : trace.history().operations()) {
      if (op.type() == Operation.Type.TXN && op.ok()) {
        txns.add(op.txn().request().keys());
      }
    }
    Partitioner metis = Partitioners.byName("auto");
    Partitioner byData = new Partitioner() { // every key weighs 1: the parts balance the data, as DynaStar's oracle
      @Override
      public Placement partition(WorkloadGraph graph, int parts, double imbalance, long seed) {
        return metis.partition(graph.copy(true), parts, imbalance, seed);
      }

      @Override
      public String name() {
        return metis.name();
      }
    };
    PlacementAdvice a = PlacementAdvice.advise(txns, PARTS, byData, DynaStar.IMBALANCE, 1,
        new Topology(1, PARTS)::partitionOf);
    a.writeMap(file);
    return a;
  }

  /** S-SMR*: DynaStar with no repartitioning on the advised placement, the celebrity at 10 s (Fig 6). */
  static SimResult fig6Static(int users, int sessions, Path placement) {
    return run(spec(chirper(users).withCelebrityAt(CELEBRITY_AT), sessions, FIG6_DURATION, Map.of("placement",
        "file:" + placement, "repartitionEvery", "0")));
  }

  // ------------------------------------------------------------------------------------------------ measures

  /** Commands executed in bucket {@code b} (at their destination), at server {@code node} or (null) everywhere. */
  static long executed(Timeline.Bucket b, String node) {
    return node == null ? b.counter("dynastar.singlePartition") + b.counter("dynastar.multiPartition")
        : b.counter(node, "dynastar.singlePartition") + b.counter(node, "dynastar.multiPartition");
  }

  /** Multi-partition commands as a percentage of the commands executed in bucket {@code b}. */
  static double multiShare(Timeline.Bucket b) {
    long all = executed(b, null);
    return all == 0 ? 0 : 100.0 * b.counter("dynastar.multiPartition") / all;
  }

  /** OK operations per second in {@code b}. */
  static double perSecond(Timeline t, Timeline.Bucket b) {
    return b.ok() * 1e6 / t.bucketMicros();
  }

  /** Per-second means over the buckets starting in [from, to): OK ops, multi-partition share. */
  record Window(double opsPerSecond, double multiShare, double p50Ms, double p99Ms) {}

  static Window window(Timeline t, long from, long to) {
    long ok = 0;
    long multi = 0;
    long all = 0;
    long p50 = 0;
    long p99 = 0;
    int n = 0;
    for (Timeline.Bucket b : t.buckets()) {
      if (b.startMicros() >= from && b.startMicros() < to) {
        ok += b.ok();
        multi += b.counter("dynastar.multiPartition");
        all += executed(b, null);
        p50 = Math.max(p50, b.p50Micros());
        p99 = Math.max(p99, b.p99Micros());
        n++;
      }
    }
    double seconds = n * t.bucketMicros() / 1e6;
    return new Window(ok / seconds, all == 0 ? 0 : 100.0 * multi / all, p50 / 1e3, p99 / 1e3);
  }

  /** The first bucket whose counter {@code name} grew, as seconds (NaN if none). */
  static double first(Timeline t, String name) {
    return t.buckets().stream().filter(b -> b.counter(name) > 0).mapToDouble(b -> b.startMicros() / 1e6).findFirst()
        .orElse(Double.NaN);
  }

  // ------------------------------------------------------------------------------------------------ tables

  static String fig2Table(Timeline t) {
    StringBuilder out = new StringBuilder("| seconds | OK ops/s | p50 ms | p99 ms | multi-partition % | oracle"
        + " queries | variables moved |\n|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Timeline.Bucket b : t.buckets()) {
      out.append(String.format(Locale.ROOT, "| %.1f | %.0f | %.1f | %.1f | %.1f | %d | %d |%n", b.startMicros() / 1e6,
          perSecond(t, b), b.p50Micros() / 1e3, b.p99Micros() / 1e3, multiShare(b), b.counter(
              "dynastar.oracleQueries"), b.counter("dynastar.moved.sum")));
    }
    return out.toString();
  }

  static String fig6Table(Timeline dyn, Timeline fixed) {
    StringBuilder out = new StringBuilder("| seconds | DynaStar ops/s | DynaStar multi-partition % | S-SMR* ops/s |"
        + " S-SMR* multi-partition % | DynaStar variables moved |\n|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < dyn.buckets().size() && i < fixed.buckets().size(); i += 2) { // every second
      Timeline.Bucket a = dyn.buckets().get(i);
      Timeline.Bucket b = fixed.buckets().get(i);
      out.append(String.format(Locale.ROOT, "| %.0f | %.0f | %.1f | %.0f | %.1f | %d |%n", a.startMicros() / 1e6,
          perSecond(dyn, a), multiShare(a), perSecond(fixed, b), multiShare(b), a.counter("dynastar.moved.sum")));
    }
    return out.toString();
  }

  /** Per data partition over [from, to): commands executed/s, multi-partition/s, variables lent/s. */
  static String table1(Timeline t, long from, long to) {
    StringBuilder out = new StringBuilder("| partition | commands/s | multi-partition/s | variables lent/s |\n"
        + "|---|---:|---:|---:|\n");
    double seconds = (to - from) / 1e6;
    long[] total = new long[3];
    for (int p = 0; p < PARTS; p++) {
      String node = "0_" + p;
      long[] c = new long[3];
      for (Timeline.Bucket b : t.buckets()) {
        if (b.startMicros() >= from && b.startMicros() < to) {
          c[0] += executed(b, node);
          c[1] += b.counter(node, "dynastar.multiPartition");
          c[2] += b.counter(node, "dynastar.lent");
        }
      }
      for (int i = 0; i < 3; i++) {
        total[i] += c[i];
      }
      out.append(String.format(Locale.ROOT, "| P%d | %,.0f | %,.0f | %,.0f |%n", p + 1, c[0] / seconds,
          c[1] / seconds, c[2] / seconds));
    }
    out.append(String.format(Locale.ROOT, "| all | %,.0f | %,.0f | %,.0f |%n", total[0] / seconds, total[1] / seconds,
        total[2] / seconds));
    return out.toString();
  }

  // ------------------------------------------------------------------------------------------------ charts

  static double[] xs(Timeline t) {
    return t.buckets().stream().mapToDouble(b -> b.startMicros() / 1e6).toArray();
  }

  static XYChart chart(String title, String yTitle) {
    XYChart c = new XYChartBuilder().width(900).height(440).title(title).xAxisTitle("seconds of virtual time"
        + " (compressed)").yAxisTitle(yTitle).build();
    c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setMarkerSize(0);
    c.getStyler().setDecimalPattern("#,##0.#");
    return c;
  }

  static void series(XYChart c, String name, double[] x, double[] y, int axis) {
    var s = c.addSeries(name, x, y);
    s.setMarker(SeriesMarkers.NONE);
    s.setYAxisGroup(axis);
  }

  static void shareAxis(XYChart c) {
    c.setYAxisGroupTitle(1, "multi-partition % of commands executed");
    c.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
    c.getStyler().setYAxisMax(1, 100.0);
    c.getStyler().setYAxisMin(1, 0.0);
  }

  static void save(XYChart c, Path dir, String file) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    VectorGraphicsEncoder.saveVectorGraphic(c, bytes, VectorGraphicsFormat.SVG);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(file), Svg.deterministic(bytes.toString(StandardCharsets.UTF_8)),
        StandardCharsets.UTF_8);
  }

  static void charts(Timeline fig2, Timeline dyn, Timeline fixed, Path dir) throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYChart c = chart("Fig 2 in shape: TPC-C-lite, 4 warehouses, random placement, plan at 5 s", "operations/s (OK)");
    double[] x = xs(fig2);
    series(c, "OK operations/s", x, fig2.buckets().stream().mapToDouble(b -> perSecond(fig2, b)).toArray(), 0);
    series(c, "multi-partition %", x, fig2.buckets().stream().mapToDouble(DynaStarEvaluation::multiShare).toArray(),
        1);
    shareAxis(c);
    save(c, dir, "dynastar-fig2.svg");
    XYChart l = chart("Fig 2 in shape: latency per 0.5 s bucket", "latency (ms)");
    series(l, "p50", x, fig2.buckets().stream().mapToDouble(b -> b.p50Micros() / 1e3).toArray(), 0);
    series(l, "p99", x, fig2.buckets().stream().mapToDouble(b -> b.p99Micros() / 1e3).toArray(), 0);
    save(l, dir, "dynastar-fig2-latency.svg");
    XYChart f = chart("Fig 6 in shape: Chirper, celebrity at 10 s", "operations/s (OK)");
    int n = Math.min(dyn.buckets().size(), fixed.buckets().size());
    double[] x6 = java.util.Arrays.copyOf(xs(dyn), n);
    series(f, "DynaStar ops/s", x6, dyn.buckets().stream().limit(n).mapToDouble(b -> perSecond(dyn, b)).toArray(), 0);
    series(f, "S-SMR* ops/s", x6, fixed.buckets().stream().limit(n).mapToDouble(b -> perSecond(fixed, b)).toArray(),
        0);
    series(f, "DynaStar multi-partition %", x6, dyn.buckets().stream().limit(n)
        .mapToDouble(DynaStarEvaluation::multiShare).toArray(), 1);
    series(f, "S-SMR* multi-partition %", x6, fixed.buckets().stream().limit(n)
        .mapToDouble(DynaStarEvaluation::multiShare).toArray(), 1);
    shareAxis(f);
    save(f, dir, "dynastar-fig6.svg");
  }

  // ------------------------------------------------------------------------------------------------ main

  public static void main(String[] argv) throws IOException {
    ProgramArgs a = ProgramArgs.of("dynastar", "DynaStarEvaluation", "[users [sessions [outDir]]]", argv, 3);
    if (a == null) {
      return;
    }
    int users = Math.toIntExact(a.positive(0, "users", 300));
    int sessions = Math.toIntExact(a.positive(1, "sessions", 24));
    Map<String, String> out = new LinkedHashMap<>() {
      @Override
      public String put(String k, String v) {
        System.out.print("### " + k + "\n\n" + v + "\n"); // as each is done: the runs take minutes
        System.out.flush();
        return super.put(k, v);
      }
    };
    Timeline fig2 = fig2(sessions, FIG2_DURATION, "5s").timeline();
    Window before = window(fig2, 2 * SECOND, 5 * SECOND);
    Window after = window(fig2, 8 * SECOND, FIG2_DURATION);
    out.put("Fig 2", String.format(Locale.ROOT, "TPC-C-lite, 4 warehouses on 4 data partitions, %d sessions, random"
        + " placement, first plan at %.1f s.%nBefore (2-5 s): %.0f ops/s, %.1f%% multi-partition, p50 up to %.1f ms,"
        + " p99 up to %.1f ms. After (8-%d s): %.0f ops/s, %.1f%% multi-partition, p50 up to %.1f ms, p99 up to %.1f"
        + " ms.%n%n", sessions, first(fig2, "dynastar.plans"), before.opsPerSecond(), before.multiShare(),
        before.p50Ms(), before.p99Ms(), FIG2_DURATION / SECOND, after.opsPerSecond(), after.multiShare(),
        after.p50Ms(), after.p99Ms()) + fig2Table(fig2));
    Path placement = Files.createTempFile("dynastar-ssmr", ".tsv");
    PlacementAdvice advice = advise(users, sessions, placement);
    Timeline fixed = fig6Static(users, sessions, placement).timeline();
    Files.delete(placement);
    Timeline dyn = fig6DynaStar(users, sessions).timeline();
    StringBuilder fig6 = new StringBuilder(String.format(Locale.ROOT, "Chirper, %d users, %d sessions, celebrity at"
        + " %d s. S-SMR*'s placement: %s on a %d s trace (%d transactions, %d keys): multi-partition %.1f%% under"
        + " hash, %.1f%% advised.%nDynaStar's plans at:", users, sessions, CELEBRITY_AT / SECOND, advice.partitioner(),
        TRACE_DURATION / SECOND, advice.transactions(), advice.graph().vertices(),
        100 * advice.baseline().multiPartitionShare(), 100 * advice.proposed().multiPartitionShare()));
    dyn.buckets().stream().filter(b -> b.counter("dynastar.plans") > 0)
        .forEach(b -> fig6.append(String.format(Locale.ROOT, " %.1f s", b.startMicros() / 1e6)));
    for (long[] w : new long[][] {{1, 5}, {6, 10}, {11, 15}, {16, 20}, {21, 25}}) {
      Window d = window(dyn, w[0] * SECOND, w[1] * SECOND);
      Window s = window(fixed, w[0] * SECOND, w[1] * SECOND);
      fig6.append(String.format(Locale.ROOT, "%n%d-%d s: DynaStar %.0f ops/s, %.1f%% multi-partition; S-SMR* %.0f"
          + " ops/s, %.1f%% multi-partition.", w[0], w[1], d.opsPerSecond(), d.multiShare(), s.opsPerSecond(),
          s.multiShare()));
    }
    out.put("Fig 6", fig6.append("\n\n").append(fig6Table(dyn, fixed)).toString());
    out.put("Table 1", "Per data partition, DynaStar on Chirper, 8-10 s (before the celebrity):\n\n"
        + table1(dyn, CELEBRITY_AT - 2 * SECOND, CELEBRITY_AT));
    StringBuilder md = new StringBuilder();
    out.forEach((k, v) -> md.append("### ").append(k).append("\n\n").append(v).append('\n'));
    if (a.count() > 2) {
      Path dir = Path.of(a.text(2, null));
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("dynastar-figures.md"), md.toString(), StandardCharsets.UTF_8);
      charts(fig2, dyn, fixed, dir);
    }
  }
}
