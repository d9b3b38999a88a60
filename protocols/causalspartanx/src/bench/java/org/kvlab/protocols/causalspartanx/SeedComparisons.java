package org.kvlab.protocols.causalspartanx;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.kvlab.api.NodeId;
import org.kvlab.api.Protocol;
import org.kvlab.api.Topology;
import org.kvlab.eval.ProgramArgs;
import org.kvlab.history.Operation;
import org.kvlab.protocols.gentlerain.GentleRain;
import org.kvlab.sim.Fault;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.Scenarios;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;
import org.kvlab.sim.Workload;

/**
 * Seed 003 §8.2 (dissertation §5.5) experiments re-run in the deterministic simulator, GentleRain vs
 * CausalSpartanX, every number measured from the simulator's operation history (virtual time):
 *
 * <ol>
 *   <li>Fig 5.1a: mean PUT latency vs clock skew (1 DC x 2 partitions, partition 1 ahead by the skew, sessions
 *       alternating PUTs between the two partitions).
 *   <li>Fig 5.4: update visibility latency. DCs A (dc0) and B (dc1) close together, DC C (dc2) at the Table 5.1
 *       RTTs; a writer in A, a reader in B polling every 1 ms; latency = first GET in B returning the value minus
 *       the PUT's completion in A.
 *   <li>Fig 5.6: ROTX latency p90 with one partition (of 6, in every DC) slowed by 100 ms; 50% ROTX of 3 keys,
 *       25% GET, 25% PUT on 12 hot keys; ROTX split into "touching the slow partition" or not.
 * </ol>
 *
 * Run: {@code scripts/bench/eval causalspartanx SeedComparisons [out.md [svgDir]]} (builds the module, then runs this
 * with its test class path; see docs/benchmarks/seed-003-comparisons.md).
 */
public final class SeedComparisons {
  static final long[] SEEDS = {1, 2, 3};
  static final Protocol[] PROTOCOLS = {new GentleRain(), new CausalSpartanX()};

  private SeedComparisons() {}

  // ---------------------------------------------------------------------------------------------
  // helpers

  static double median(double[] xs) {
    double[] s = xs.clone();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  static double percentile(List<Double> xs, double p) {
    if (xs.isEmpty()) {
      return Double.NaN;
    }
    double[] s = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    int i = (int) Math.ceil(p * s.length) - 1;
    return s[Math.max(0, Math.min(s.length - 1, i))];
  }

  static double mean(List<Double> xs) {
    return xs.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
  }

  static SimResult run(SimSpec spec, Protocol protocol, long seed, List<Script> scripts) {
    SimResult r = new Simulation(spec, protocol, seed, scripts).run();
    if (r.failed()) {
      throw new IllegalStateException(protocol.name() + " seed " + seed + " failed: " + r.failures());
    }
    return r;
  }

  // ---------------------------------------------------------------------------------------------
  // (1) PUT latency vs clock skew (Fig 5.1a)

  /** Mean PUT latency in ms, one seed. */
  static double putLatencyMillis(Protocol protocol, long skewMillis, long seed, int putsPerSession) {
    Topology t = new Topology(1, 2);
    String k0 = Scenarios.keyOn(t, "a", 0);
    String k1 = Scenarios.keyOn(t, "b", 1);
    List<Fault> faults = skewMillis == 0 ? List.of()
        : List.of(new Fault.Skew(new NodeId(0, 1), skewMillis * 1000, 0));
    SimSpec spec = SimSpec.defaults().withTopology(1, 2).withNetwork(NetworkModel.uniform(1, 0))
        .withTrace(false).withDuration(1_000_000).withFaults(faults);
    List<Script> scripts = new ArrayList<>();
    for (int s = 0; s < 4; s++) {
      Script sc = Script.at(0).startingAt(10_000 + 137L * s);
      for (int i = 0; i < putsPerSession; i++) {
        sc = sc.put(i % 2 == 0 ? k0 : k1, "s" + s + "." + i);
      }
      scripts.add(sc);
    }
    SimResult r = run(spec, protocol, seed, scripts);
    List<Double> lat = new ArrayList<>();
    for (Operation op : r.history().operations()) {
      if (op.type() == Operation.Type.PUT && op.ok()) {
        lat.add((op.completeMicros() - op.invokeMicros()) / 1000.0);
      }
    }
    return mean(lat);
  }

  static double putLatency(Protocol protocol, long skewMillis, long[] seeds, int putsPerSession) {
    double[] per = new double[seeds.length];
    for (int i = 0; i < seeds.length; i++) {
      per[i] = putLatencyMillis(protocol, skewMillis, seeds[i], putsPerSession);
    }
    return median(per);
  }

  // ---------------------------------------------------------------------------------------------
  // (2) update visibility latency (Fig 5.4, Table 5.1)

  /** Mean visibility latency in ms (PUT completion in dc0 to first GET in dc1 returning it), one seed. */
  static double visibilityMillis(Protocol protocol, double[] cRtt, long seed, int updates) {
    SimSpec spec = SimSpec.defaults().withTopology(3, 2).withNetwork(Scenarios.threeDcs(cRtt)).withTrace(false)
        .withDuration(1_000_000);
    Topology t = spec.topology();
    List<Script> scripts = new ArrayList<>();
    long start = 300_000; // let heartbeats/stable times warm up
    long gap = 400_000; // > any visibility latency, so each reader poll targets one update
    for (int p = 0; p < t.partitions(); p++) {
      String key = Scenarios.keyOn(t, "v", p);
      Script writer = Script.at(0).startingAt(start + p * 50_000L);
      Script reader = Script.at(1).startingAt(start + p * 50_000L);
      for (int i = 0; i < updates; i++) {
        String value = key + "#" + i;
        writer = writer.put(key, value).pause(gap);
        reader = reader.awaitValue(key, value);
      }
      scripts.add(writer);
      scripts.add(reader);
    }
    SimResult r = run(spec, protocol, seed, scripts);
    Map<String, Long> written = new HashMap<>();
    Map<String, Long> firstSeen = new HashMap<>();
    for (Operation op : r.history().operations()) {
      if (!op.ok()) {
        continue;
      }
      if (op.type() == Operation.Type.PUT && op.dc() == 0) {
        written.put(op.value().toStringUtf8(), op.completeMicros());
      } else if (op.type() == Operation.Type.GET && op.dc() == 1) {
        op.readValue().ifPresent(v -> firstSeen.merge(v.toStringUtf8(), op.completeMicros(), Math::min));
      }
    }
    List<Double> lat = new ArrayList<>();
    for (Map.Entry<String, Long> e : written.entrySet()) {
      Long seen = firstSeen.get(e.getKey());
      if (seen == null) {
        throw new IllegalStateException(protocol.name() + ": update " + e.getKey() + " never seen in dc1");
      }
      lat.add(Math.max(0, seen - e.getValue()) / 1000.0);
    }
    return mean(lat);
  }

  static double visibility(Protocol protocol, double[] cRtt, long[] seeds, int updates) {
    double[] per = new double[seeds.length];
    for (int i = 0; i < seeds.length; i++) {
      per[i] = visibilityMillis(protocol, cRtt, seeds[i], updates);
    }
    return median(per);
  }

  /** Mean time per increment of the odd/even scenario (the seed's own Fig 5.4 experiment), median over seeds. */
  static double oddEven(Protocol protocol, double[] cRtt, long[] seeds, int increments) {
    double[] per = new double[seeds.length];
    for (int i = 0; i < seeds.length; i++) {
      Scenarios.OddEven run = Scenarios.oddEven(protocol, seeds[i], increments, cRtt, 0);
      if (!run.problems().isEmpty()) {
        throw new IllegalStateException(protocol.name() + " odd/even seed " + seeds[i] + ": " + run.problems());
      }
      per[i] = run.meanIncrementMillis();
    }
    return median(per);
  }

  // ---------------------------------------------------------------------------------------------
  // (3) ROTX latency with one slow partition (Fig 5.6)

  static final int SLOW_PARTITION = 0;

  /** ROTX latencies (ms) of one run after warm-up, split by whether a key lives on the slow partition. */
  record RotxLatencies(List<Double> notTouching, List<Double> touching) {}

  static RotxLatencies rotxLatencies(Protocol protocol, long slowMillis, long seed, long durationMicros) {
    int dcs = 2;
    Topology t = new Topology(dcs, 6);
    List<Fault> faults = new ArrayList<>();
    for (int dc = 0; dc < dcs; dc++) {
      faults.add(new Fault.Slow(t.node(dc, SLOW_PARTITION), slowMillis * 1000, 0, durationMicros));
    }
    Workload w = new Workload(4, 12, 0.5, 0.5, 3, "uniform", 2_000, null);
    SimSpec spec = SimSpec.defaults().withTopology(dcs, 6).withNetwork(NetworkModel.uniform(dcs, 20))
        .withTrace(false).withDuration(durationMicros).withWorkload(w).withFaults(faults);
    SimResult r = run(spec, protocol, seed, List.of());
    List<Double> clean = new ArrayList<>();
    List<Double> touching = new ArrayList<>();
    for (Operation op : r.history().operations()) {
      if (op.type() != Operation.Type.ROTX || !op.ok() || op.invokeMicros() < 500_000) {
        continue; // skip warm-up
      }
      boolean touches = op.reads().keySet().stream().anyMatch(k -> t.partitionOf(k) == SLOW_PARTITION);
      (touches ? touching : clean).add((op.completeMicros() - op.invokeMicros()) / 1000.0);
    }
    return new RotxLatencies(clean, touching);
  }

  static List<RotxLatencies> rotxRuns(Protocol protocol, long slowMillis, long[] seeds, long durationMicros) {
    List<RotxLatencies> out = new ArrayList<>();
    for (long seed : seeds) {
      out.add(rotxLatencies(protocol, slowMillis, seed, durationMicros));
    }
    return out;
  }

  /** Indexes of {@link #rotx}'s result: {p90, mean, p50, p99} of ROTX not touching, then touching the slow partition. */
  static final int P90 = 0;
  static final int MEAN = 1;
  static final int P50 = 2;
  static final int P99 = 3;
  static final int TOUCHING = 4;

  /** Per statistic (index {@link #P90} ... {@link #TOUCHING} + {@link #P99}), the median over the runs. */
  static double[] rotx(List<RotxLatencies> runs) {
    double[][] per = new double[8][runs.size()];
    for (int i = 0; i < runs.size(); i++) {
      List<List<Double>> both = List.of(runs.get(i).notTouching(), runs.get(i).touching());
      for (int side = 0; side < 2; side++) {
        List<Double> xs = both.get(side);
        per[side * TOUCHING + P90][i] = percentile(xs, 0.9);
        per[side * TOUCHING + MEAN][i] = mean(xs);
        per[side * TOUCHING + P50][i] = percentile(xs, 0.5);
        per[side * TOUCHING + P99][i] = percentile(xs, 0.99);
      }
    }
    double[] out = new double[8];
    for (int j = 0; j < 8; j++) {
      out[j] = median(per[j]);
    }
    return out;
  }

  static double[] rotx(Protocol protocol, long slowMillis, long[] seeds, long durationMicros) {
    return rotx(rotxRuns(protocol, slowMillis, seeds, durationMicros));
  }

  // ---------------------------------------------------------------------------------------------
  // The seed's numbers (digest §8.2)

  /** Fig 5.1a: PUT latency (ms) at 10 ms of skew, {GentleRain, CausalSpartanX}. */
  static final double SEED_SKEW = 10;
  static final double[] SEED_PUT_AT_10MS = {7.6, 4.5};
  /** Fig 5.4: GentleRain visibility (ms) and CausalSpartanX's reduction, with C in Oregon (index 1) and Singapore (5). */
  static final Map<Integer, Double> SEED_GR_VISIBILITY = Map.of(1, 46.0, 5, 88.0);
  static final Map<Integer, Double> SEED_CSX_LOWER_BY = Map.of(1, 0.83, 5, 0.92);
  /** Fig 5.6/5.7a, 100 ms slowdown: {GentleRain, CausalSpartanX} per statistic index of {@link #rotx}. */
  static final Map<Integer, double[]> SEED_ROTX = Map.of(
      P90, new double[] {129, 18}, MEAN, new double[] {29, 8},
      TOUCHING + P90, new double[] {289, 203}, TOUCHING + MEAN, new double[] {169, 142});

  // ---------------------------------------------------------------------------------------------

  static String f(double x) {
    return String.format(Locale.ROOT, "%.1f", x);
  }

  static String seedCell(Map<Integer, Double> seed, int i, String format) {
    return seed.containsKey(i) ? String.format(Locale.ROOT, format, seed.get(i)) : "–";
  }

  /**
   * Prints the three tables; {@code args[0]}, if given, is a file to write them to, and {@code args[1]} a directory to
   * draw the charts into (SVG, see {@link SeedComparisonCharts}).
   */
  public static void main(String[] argv) throws Exception {
    ProgramArgs args = ProgramArgs.of("causalspartanx", "SeedComparisons", "[out.md [svgDir]]", argv, 2);
    if (args == null) {
      return;
    }
    StringBuilder out = new StringBuilder();
    String seeds = Arrays.toString(SEEDS);
    SeedComparisonCharts charts = args.count() > 1 ? new SeedComparisonCharts(java.nio.file.Path.of(args.text(1, null)))
        : null;

    out.append("### (1) Mean PUT latency vs clock skew (Fig 5.1a), ms, median of seeds ").append(seeds).append("\n\n");
    out.append("| skew (ms) | GentleRain (sim) | CausalSpartanX (sim) | GR − CSX (sim) | GentleRain (seed) | CausalSpartanX (seed) |\n");
    out.append("|---|---|---|---|---|---|\n");
    double[] skews = {0, 5, 10, 15};
    double[][] put = new double[2][skews.length];
    for (int i = 0; i < skews.length; i++) {
      put[0][i] = putLatency(PROTOCOLS[0], (long) skews[i], SEEDS, 200);
      put[1][i] = putLatency(PROTOCOLS[1], (long) skews[i], SEEDS, 200);
      boolean seedPoint = skews[i] == SEED_SKEW;
      out.append("| ").append((long) skews[i]).append(" | ").append(f(put[0][i])).append(" | ").append(f(put[1][i]))
          .append(" | ").append(f(put[0][i] - put[1][i])).append(" | ")
          .append(seedPoint ? f(SEED_PUT_AT_10MS[0]) : "–").append(" | ")
          .append(seedPoint ? f(SEED_PUT_AT_10MS[1]) : "–").append(" |\n");
    }
    if (charts != null) {
      charts.putLatencyVsSkew(skews, put);
    }

    out.append("\n### (2) Update visibility latency A→B vs location of DC C (Fig 5.4, Table 5.1 RTTs), ms, median of seeds ")
        .append(seeds).append("\n\n");
    out.append("| C in | RTT C–A / C–B | GentleRain (sim) | CausalSpartanX (sim) | CSX lower by (sim) | GentleRain (seed) | CSX lower by (seed) | GentleRain odd/even (sim) | CausalSpartanX odd/even (sim) |\n");
    out.append("|---|---|---|---|---|---|---|---|---|\n");
    int locations = Scenarios.C_LOCATIONS.size();
    double[][] vis = new double[2][locations];
    double[][] oddEven = new double[2][locations];
    for (int i = 0; i < locations; i++) {
      double[] cRtt = Scenarios.C_RTTS.get(i);
      for (int p = 0; p < 2; p++) {
        vis[p][i] = visibility(PROTOCOLS[p], cRtt, SEEDS, 10);
        oddEven[p][i] = oddEven(PROTOCOLS[p], cRtt, SEEDS, 20);
      }
      out.append("| ").append(Scenarios.C_LOCATIONS.get(i)).append(" | ").append(cRtt[0]).append(" / ").append(cRtt[1])
          .append(" | ").append(f(vis[0][i])).append(" | ").append(f(vis[1][i])).append(" | ")
          .append(String.format(Locale.ROOT, "%.0f%%", 100 * (1 - vis[1][i] / vis[0][i]))).append(" | ")
          .append(seedCell(SEED_GR_VISIBILITY, i, "%.0f")).append(" | ")
          .append(SEED_CSX_LOWER_BY.containsKey(i) ? String.format(Locale.ROOT, "%.0f%%", 100 * SEED_CSX_LOWER_BY.get(i))
              : "–")
          .append(" | ").append(f(oddEven[0][i])).append(" | ").append(f(oddEven[1][i])).append(" |\n");
    }
    if (charts != null) {
      charts.visibilityVsThirdDc(vis, oddEven);
    }

    out.append("\n### (3) ROTX latency with one of 6 partitions slowed by 100 ms (Fig 5.6/5.7a), ms, median of seeds ")
        .append(seeds).append("\n\n");
    out.append("| ROTX | metric | GentleRain (sim) | CausalSpartanX (sim) | GentleRain (seed) | CausalSpartanX (seed) |\n");
    out.append("|---|---|---|---|---|---|\n");
    List<RotxLatencies> grRuns = rotxRuns(PROTOCOLS[0], 100, SEEDS, 5_000_000);
    List<RotxLatencies> csxRuns = rotxRuns(PROTOCOLS[1], 100, SEEDS, 5_000_000);
    double[] gr = rotx(grRuns);
    double[] csx = rotx(csxRuns);
    String[] metric = {"p90", "mean", "p50", "p99"};
    for (int side = 0; side < 2; side++) {
      for (int m : new int[] {P50, P90, P99, MEAN}) {
        int j = side * TOUCHING + m;
        double[] seed = SEED_ROTX.get(j);
        out.append("| ").append(side == 0 ? "not touching" : "touching").append(" slow partition | ").append(metric[m])
            .append(" | ").append(f(gr[j])).append(" | ").append(f(csx[j])).append(" | ")
            .append(seed == null ? "–" : String.format(Locale.ROOT, "%.0f", seed[0])).append(" | ")
            .append(seed == null ? "–" : String.format(Locale.ROOT, "%.0f", seed[1])).append(" |\n");
      }
    }
    if (charts != null) {
      charts.rotxCdf(grRuns, csxRuns);
    }

    System.out.print(out);
    if (args.count() > 0) {
      java.nio.file.Files.writeString(java.nio.file.Path.of(args.text(0, null)), out.toString());
    }
  }
}
