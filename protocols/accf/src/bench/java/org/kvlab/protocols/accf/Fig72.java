package org.kvlab.protocols.accf;

import java.awt.Color;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.VectorGraphicsEncoder.VectorGraphicsFormat;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.api.Topology;
import org.kvlab.eval.ProgramArgs;
import org.kvlab.eval.Svg;
import org.kvlab.history.Operation;
import org.kvlab.sim.Fault;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.Scenarios;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;

/**
 * Seed 003 Fig 7.2 (§7.3) re-run in the deterministic simulator: ACCF with the 2 x 2 grouping (tracking and checking
 * per datacenter, Fig 7.1a) and the 4 x 1 grouping (per server, Fig 7.1b) on partitions A, B with copies A1 = 0.0,
 * B1 = 0.1 (datacenter 0) and A2 = 1.0, B2 = 1.1 (datacenter 1), 20 ms RTT between the datacenters. Throughputs are
 * measured in virtual time from the operation history, median over seeds.
 *
 * <ul>
 *   <li>App1 (Fig 7.2b): C1 at A1 and C2 at A2 take turns incrementing a counter on partition A (each waits to read
 *       the other's value, then writes the next). Every message B1 sends is delayed by delay_B1. Normalised to a
 *       system of A1 and A2 only.
 *   <li>App2 (Fig 7.2c): C3 in datacenter 0 alternates GETs of a key on A (at A1) and one on B (at B1) while a writer
 *       in datacenter 1 keeps writing both (at A2 and B2). Every message B2 sends is delayed by delay_B2. Normalised
 *       to the same reads with no writer.
 * </ul>
 *
 * <p>Fig 7.2a (B1 moved to farther AWS regions) is not re-run: in kvlab's topology B1 shares A1's datacenter, and a
 * farther B1 acts on the protocol through the same path as delay_B1 (B1's messages arrive later).
 *
 * <p>Run: {@code scripts/bench/eval accf Fig72 [table.md [svgDir]]} (builds the module, then runs this with its test
 * class path).
 */
public final class Fig72 {
  static final long[] SEEDS = {1, 2, 3};
  static final double WAN_RTT_MILLIS = 20;
  static final double[] DELAYS_MILLIS = {0, 30, 60, 90, 120, 150, 180};
  static final Params TWO_BY_TWO = new Params(Map.of("tracking", "datacenter", "checking", "datacenter"));
  static final Params FOUR_BY_ONE = new Params(Map.of("tracking", "server", "checking", "server"));
  static final long START = 300_000; // heartbeats and stable vectors warmed up

  private Fig72() {}

  static double median(double[] xs) {
    double[] s = xs.clone();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  static SimResult run(SimSpec spec, long seed, List<Script> scripts) {
    SimResult r = new Simulation(spec, new Accf(), seed, scripts).run();
    if (r.failed()) {
      throw new IllegalStateException("ACCF seed " + seed + " failed: " + r.failures());
    }
    return r;
  }

  static SimSpec spec(int partitions, Params params, List<Fault> faults) {
    return SimSpec.defaults().withTopology(2, partitions).withNetwork(NetworkModel.uniform(2, WAN_RTT_MILLIS))
        .withTrace(false).withDuration(500_000).withSettle(500_000).withParams(params).withFaults(faults);
  }

  // ---------------------------------------------------------------------------------------------- App1

  /** App1 increments per second, one seed; {@code partitions} 1 is the A1/A2-only baseline. */
  static double app1Throughput(int partitions, Params params, long delayB1Micros, long seed, int increments) {
    Topology t = new Topology(2, partitions);
    String key = Scenarios.keyOn(t, "counter", 0);
    List<Fault> faults = delayB1Micros == 0 ? List.of()
        : List.of(new Fault.Slow(new NodeId(0, 1), delayB1Micros, 0, Long.MAX_VALUE));
    Script c1 = Script.at(0).startingAt(START).put(key, "0");
    Script c2 = Script.at(1).startingAt(START);
    for (int n = 1; n <= increments; n++) {
      if (n % 2 == 1) {
        c2 = c2.awaitValue(key, String.valueOf(n - 1), 5_000_000).put(key, String.valueOf(n));
      } else {
        c1 = c1.awaitValue(key, String.valueOf(n - 1), 5_000_000).put(key, String.valueOf(n));
      }
    }
    SimResult r = run(spec(partitions, params, faults), seed, List.of(c1, c2));
    long first = -1;
    long last = -1;
    int written = 0;
    for (Operation op : r.history().operations()) {
      if (op.ok() && op.type() == Operation.Type.PUT && key.equals(op.key()) && op.session() <= 1) {
        int n = Integer.parseInt(op.value().toStringUtf8());
        first = n == 0 ? op.completeMicros() : first;
        last = n == increments ? op.completeMicros() : last;
        written++;
      }
    }
    if (first < 0 || last < 0 || written != increments + 1) {
      throw new IllegalStateException("App1 did not finish: " + written + " of " + (increments + 1) + " writes");
    }
    return increments / ((last - first) / 1e6);
  }

  static double app1(int partitions, Params params, long delayB1Micros, int increments) {
    double[] per = new double[SEEDS.length];
    for (int i = 0; i < SEEDS.length; i++) {
      per[i] = app1Throughput(partitions, params, delayB1Micros, SEEDS[i], increments);
    }
    return median(per);
  }

  // ---------------------------------------------------------------------------------------------- App2

  /** App2 reads per second of C3, one seed. */
  static double app2Throughput(Params params, long delayB2Micros, boolean writer, long seed, int reads) {
    Topology t = new Topology(2, 2);
    String ka = Scenarios.keyOn(t, "a", 0);
    String kb = Scenarios.keyOn(t, "b", 1);
    List<Fault> faults = delayB2Micros == 0 ? List.of()
        : List.of(new Fault.Slow(new NodeId(1, 1), delayB2Micros, 0, Long.MAX_VALUE));
    Script c3 = Script.at(0).startingAt(START);
    for (int i = 0; i < reads; i++) {
      c3 = c3.get(i % 2 == 0 ? ka : kb);
    }
    List<Script> scripts = new ArrayList<>();
    scripts.add(c3);
    if (writer) {
      Script w = Script.at(1).startingAt(START - 100_000);
      long cover = 100_000 + (long) reads * (delayB2Micros + 2_000) + 500_000; // outlasts C3's reads
      for (long i = 0; i * 5_000 < cover; i++) {
        w = w.put(i % 2 == 0 ? ka : kb, "w" + i).pause(3_000);
      }
      scripts.add(w);
    }
    SimResult r = run(spec(2, params, faults), seed, scripts);
    long first = Long.MAX_VALUE;
    long last = -1;
    int done = 0;
    for (Operation op : r.history().operations()) {
      if (op.session() == 0 && op.type() == Operation.Type.GET && op.ok() && op.invokeMicros() >= START) {
        first = Math.min(first, op.invokeMicros());
        last = Math.max(last, op.completeMicros());
        done++;
      }
    }
    if (done < reads) {
      throw new IllegalStateException("App2: only " + done + " of " + reads + " reads succeeded");
    }
    return done / ((last - first) / 1e6);
  }

  static double app2(Params params, long delayB2Micros, boolean writer, int reads) {
    double[] per = new double[SEEDS.length];
    for (int i = 0; i < SEEDS.length; i++) {
      per[i] = app2Throughput(params, delayB2Micros, writer, SEEDS[i], reads);
    }
    return median(per);
  }

  /** Normalised throughputs per delay: [0] 2 x 2, [1] 4 x 1. */
  record Curves(double[] delays, double[][] app1, double[][] app2) {}

  static Curves measure(double[] delays, int increments, int reads) {
    double base1 = app1(1, FOUR_BY_ONE, 0, increments);
    double[][] a1 = new double[2][delays.length];
    double[][] a2 = new double[2][delays.length];
    Params[] groupings = {TWO_BY_TWO, FOUR_BY_ONE};
    for (int g = 0; g < 2; g++) {
      double base2 = app2(groupings[g], 0, false, reads);
      for (int i = 0; i < delays.length; i++) {
        long d = (long) (delays[i] * 1000);
        a1[g][i] = app1(2, groupings[g], d, increments) / base1;
        a2[g][i] = app2(groupings[g], d, true, reads) / base2;
      }
    }
    return new Curves(delays, a1, a2);
  }

  // ---------------------------------------------------------------------------------------------- output

  static final String APP1_SVG = "accf-fig-7.2-app1.svg";
  static final String APP2_SVG = "accf-fig-7.2-app2.svg";
  private static final Color G22 = new Color(0xC0392B);
  private static final Color G41 = new Color(0x2166AC);

  static void chart(Path dir, String file, String title, String x, double[] delays, double[][] y) throws IOException {
    XYChart c = new XYChartBuilder().width(640).height(400).title(title).xAxisTitle(x)
        .yAxisTitle("normalised throughput").build();
    c.getStyler().setLegendPosition(LegendPosition.InsideSW);
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setYAxisMax(1.1);
    String[] names = {"2 x 2 (per datacenter)", "4 x 1 (per server)"};
    Color[] colors = {G22, G41};
    for (int g = 0; g < 2; g++) {
      XYSeries s = c.addSeries(names[g], delays, y[g]);
      s.setMarker(SeriesMarkers.CIRCLE);
      s.setLineColor(colors[g]);
      s.setMarkerColor(colors[g]);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    VectorGraphicsEncoder.saveVectorGraphic(c, bytes, VectorGraphicsFormat.SVG);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(file), Svg.deterministic(bytes.toString(StandardCharsets.UTF_8)),
        StandardCharsets.UTF_8);
  }

  static String f(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }

  static String table(Curves c) {
    StringBuilder out = new StringBuilder();
    out.append("| delay (ms) | App1 2x2 | App1 4x1 | App2 2x2 | App2 4x1 |\n|---|---|---|---|---|\n");
    for (int i = 0; i < c.delays().length; i++) {
      out.append("| ").append((long) c.delays()[i]).append(" | ").append(f(c.app1()[0][i])).append(" | ")
          .append(f(c.app1()[1][i])).append(" | ").append(f(c.app2()[0][i])).append(" | ").append(f(c.app2()[1][i]))
          .append(" |\n");
    }
    return out.toString();
  }

  /** {@code Fig72 [table.md [svgDir]]}: measures, prints the table, writes it and the two charts. */
  public static void main(String[] argv) throws Exception {
    ProgramArgs args = ProgramArgs.of("accf", "Fig72", "[table.md [svgDir]]", argv, 2);
    if (args == null) {
      return;
    }
    Curves c = measure(DELAYS_MILLIS, 20, 60);
    String t = table(c);
    System.out.print(t);
    if (args.count() > 0) {
      Files.writeString(Path.of(args.text(0, null)), t, StandardCharsets.UTF_8);
    }
    if (args.count() > 1) {
      Path dir = Path.of(args.text(1, null));
      chart(dir, APP1_SVG, "App1 (seed 003 Fig 7.2b): C1 at A1, C2 at A2", "delay_B1 (ms)", c.delays(), c.app1());
      chart(dir, APP2_SVG, "App2 (seed 003 Fig 7.2c): C3 reads A1 and B1", "delay_B2 (ms)", c.delays(), c.app2());
    }
  }
}
