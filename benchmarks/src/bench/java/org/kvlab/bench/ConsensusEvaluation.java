package org.kvlab.bench;

import java.awt.Color;
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
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.VectorGraphicsEncoder.VectorGraphicsFormat;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.kvlab.api.Params;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.eval.ProgramArgs;
import org.kvlab.eval.Svg;
import org.kvlab.sim.ConsensusRun;

/**
 * The M²Paxos evaluation of seed 001 §10.3 in shape, in the simulator: M²Paxos, Multi-Paxos (M²Paxos with
 * {@code leader=0}: one node owns every object) and EPaxos over N replicas of everything ({@link ConsensusRun}: N
 * datacenters x 1 partition, a LAN of 0.5 ms RTT, 10 µs of CPU per message sent or taken in, 1000 objects per replica
 * laid out by M²Paxos's initial owners, 16-byte payloads, open loop with 8 commands in flight per replica at most).
 * Figures: peak throughput vs replicas at 100% locality (Fig 10.2a), median latency under low load (Fig 10.2b),
 * latency vs throughput at 100% and 0% locality (Fig 10.5), throughput vs the share of complex two-object commands
 * (Fig 10.4). Virtual time only: deterministic for a seed, whatever the machine's load.
 *
 * <p>{@code scripts/bench/eval benchmarks ConsensusEvaluation [quick|full|large [tables.md [svgDir]]]}: {@code quick}
 * is 3, 5, 11 replicas (Fig 10.5 at 5 and 11, Fig 10.4 at 11), {@code full} adds 25 and 49 (Fig 10.5 at 49 too),
 * {@code large} is Fig 10.2 alone at 25 and 49. Prints the tables (docs/benchmarks/m2paxos.md) and writes them and the
 * charts.
 */
public final class ConsensusEvaluation {
  /** A protocol as the thesis names it: the plug-in and its parameters. */
  record Proto(String label, String name, Map<String, String> params) {
    Protocol protocol() {
      return Protocols.byName(name);
    }
  }

  static final List<Proto> PROTOS = List.of(
      new Proto("M²Paxos", "m2paxos", Map.of("initialOwner", "hash")),
      new Proto("Multi-Paxos", "m2paxos", Map.of("leader", "0")),
      new Proto("EPaxos", "epaxos", Map.of()));
  static final long SEED = 1;
  /** Offered load of the peak runs, in total (spread over the replicas): far beyond what any of them takes. */
  static final double SATURATING = 200_000;
  /** Offered load of the low-load runs, in total. */
  static final double LOW = 200;

  static ConsensusRun.Measure run(Proto p, ConsensusRun setup) {
    ConsensusRun.Measure m = setup.run(p.protocol(), new Params(p.params()), SEED);
    if (!m.failures().isEmpty()) {
      throw new IllegalStateException(p.label() + " on " + setup + " failed: " + m.failures());
    }
    return m;
  }

  static ConsensusRun base(int n) {
    return ConsensusRun.of(n).withHashed(true);
  }

  static ConsensusRun peakSetup(int n) {
    return base(n).withLoad(SATURATING / n, 8).withDuration(500_000);
  }

  static String f0(double v) {
    return String.format(Locale.ROOT, "%,.0f", v);
  }

  static String f2(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }

  static void log(String what) {
    System.err.println(what);
  }

  /** Fig 10.2(a) and (b): peak throughput and low-load median latency per replica count. */
  static String scaling(List<Integer> sizes, Map<String, double[]> peaks, Map<String, double[]> latencies) {
    for (Proto p : PROTOS) {
      peaks.put(p.label(), new double[sizes.size()]);
      latencies.put(p.label(), new double[sizes.size()]);
    }
    for (int i = 0; i < sizes.size(); i++) {
      int n = sizes.get(i);
      for (Proto p : PROTOS) {
        ConsensusRun.Measure peak = run(p, peakSetup(n));
        ConsensusRun.Measure low = run(p, base(n).withLoad(LOW / n, 8).withDuration(2_000_000));
        peaks.get(p.label())[i] = peak.throughput();
        latencies.get(p.label())[i] = low.medianMillis();
        log(p.label() + " n=" + n + " peak " + peak + " low " + low);
      }
    }
    StringBuilder t = new StringBuilder();
    t.append("Fig 10.2(a), peak throughput (commands/s, virtual time), 100% locality:\n\n");
    t.append("| replicas | M²Paxos | Multi-Paxos | EPaxos | M²Paxos / Multi-Paxos | M²Paxos / EPaxos | thesis |\n");
    t.append("|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < sizes.size(); i++) {
      double m2 = peaks.get("M²Paxos")[i];
      double mp = peaks.get("Multi-Paxos")[i];
      double ep = peaks.get("EPaxos")[i];
      t.append("| ").append(sizes.get(i)).append(" | ").append(f0(m2)).append(" | ").append(f0(mp)).append(" | ")
          .append(f0(ep)).append(" | ").append(f2(m2 / mp)).append("x | ").append(f2(m2 / ep)).append("x | ")
          .append(sizes.get(i) == 3 ? "3x the nearest" : sizes.get(i) == 49 ? "11x the nearest; 7x EPaxos"
              : "3–11x the nearest").append(" |\n");
    }
    t.append("\nFig 10.2(b), median latency under low load (").append(f0(LOW))
        .append(" commands/s in total), 100% locality:\n\n");
    t.append("| replicas | M²Paxos (ms) | Multi-Paxos (ms) | EPaxos (ms) | M²Paxos vs Multi-Paxos | M²Paxos vs EPaxos"
        + " | thesis |\n|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < sizes.size(); i++) {
      double m2 = latencies.get("M²Paxos")[i];
      double mp = latencies.get("Multi-Paxos")[i];
      double ep = latencies.get("EPaxos")[i];
      t.append("| ").append(sizes.get(i)).append(" | ").append(f2(m2)).append(" | ").append(f2(mp)).append(" | ")
          .append(f2(ep)).append(" | ").append(pct(m2, mp)).append(" | ").append(pct(m2, ep)).append(" | ")
          .append(sizes.get(i) <= 5 ? "−23% vs Multi-Paxos (low N)" : "up to −41% vs EPaxos").append(" |\n");
    }
    return t.toString();
  }

  static String pct(double ours, double other) {
    return String.format(Locale.ROOT, "%+.0f%%", 100 * (ours / other - 1));
  }

  /** Fig 10.5: latency vs throughput at 100% and 0% locality, M²Paxos and EPaxos; the peak at 0% vs at 100%. */
  static String locality(List<Integer> sizes, Path svgDir) throws IOException {
    StringBuilder t = new StringBuilder("\nFig 10.5, peak throughput at 0% vs 100% locality (commands/s):\n\n");
    t.append("| replicas | protocol | 100% | 0% | 0% vs 100% | thesis |\n|---|---|---|---|---|---|\n");
    for (int n : sizes) {
      Map<String, List<double[]>> curves = new LinkedHashMap<>();
      for (Proto p : List.of(PROTOS.get(0), PROTOS.get(2))) {
        double[] peak = new double[2];
        for (double loc : new double[] {1.0, 0.0}) {
          List<double[]> curve = new ArrayList<>();
          ConsensusRun.Measure top = run(p, peakSetup(n).withLocality(loc));
          peak[loc == 1.0 ? 0 : 1] = top.throughput();
          for (double share : new double[] {0.1, 0.3, 0.5, 0.7, 0.9}) {
            ConsensusRun.Measure m = run(p, base(n).withLocality(loc).withLoad(share * top.throughput() / n, 8)
                .withDuration(500_000));
            curve.add(new double[] {m.throughput(), m.medianMillis()});
          }
          curve.add(new double[] {top.throughput(), top.medianMillis()});
          curves.put(p.label() + " " + (int) (loc * 100) + "%", curve);
          log(p.label() + " n=" + n + " locality " + loc + " " + top);
        }
        t.append("| ").append(n).append(" | ").append(p.label()).append(" | ").append(f0(peak[0])).append(" | ")
            .append(f0(peak[1])).append(" | ").append(pct(peak[1], peak[0])).append(" | ")
            .append(p.label().equals("M²Paxos") ? "−13% to −16%" : "breaks down 2–6% earlier").append(" |\n");
      }
      if (svgDir != null) {
        lines(svgDir, "m2paxos-fig10.5-" + n + ".svg", "Latency vs throughput, " + n + " replicas",
            "throughput (commands/s)", "median latency (ms)", curves);
      }
    }
    return t.toString();
  }

  /** Fig 10.4: peak throughput vs the share of complex (two-object) commands. */
  static String complex(int n, Path svgDir) throws IOException {
    double[] shares = {0, 0.1, 0.25, 0.5, 0.75, 1.0};
    Map<String, List<double[]>> curves = new LinkedHashMap<>();
    StringBuilder t = new StringBuilder("\nFig 10.4, peak throughput (commands/s) vs complex commands (2 objects each),"
        + " " + n + " replicas, 1000 objects per replica:\n\n| complex | M²Paxos | Multi-Paxos | EPaxos |\n"
        + "|---|---|---|---|\n");
    double[][] tput = new double[PROTOS.size()][shares.length];
    for (int pi = 0; pi < PROTOS.size(); pi++) {
      Proto p = PROTOS.get(pi);
      List<double[]> curve = new ArrayList<>();
      for (int s = 0; s < shares.length; s++) {
        ConsensusRun.Measure m = run(p, peakSetup(n).withComplex(shares[s], 2));
        tput[pi][s] = m.throughput();
        curve.add(new double[] {shares[s] * 100, m.throughput()});
        log(p.label() + " n=" + n + " complex " + shares[s] + " " + m);
      }
      curves.put(p.label(), curve);
    }
    for (int s = 0; s < shares.length; s++) {
      t.append("| ").append((int) (shares[s] * 100)).append("% | ").append(f0(tput[0][s])).append(" | ")
          .append(f0(tput[1][s])).append(" | ").append(f0(tput[2][s])).append(" |\n");
    }
    t.append("\nThesis (49 replicas): M²Paxos sustains its throughput up to about 50% complex commands with 1000 objects"
        + " per node, then drops; Multi-Paxos is unaffected; EPaxos drops a little near 100%.\n");
    if (svgDir != null) {
      lines(svgDir, "m2paxos-fig10.4.svg", "Throughput vs complex commands, " + n + " replicas", "complex commands (%)",
          "peak throughput (commands/s)", curves);
    }
    return t.toString();
  }

  private static final Color[] COLORS = {new Color(0x2166AC), new Color(0xC0392B), new Color(0x1B7837),
      new Color(0x7B3294), new Color(0xE08214), new Color(0x555555)};

  /** A line chart (one colour per series, markers at the points) written as a deterministic SVG. */
  static void lines(Path dir, String file, String title, String xTitle, String yTitle,
      Map<String, List<double[]>> series) throws IOException {
    XYChart c = new XYChartBuilder().width(640).height(400).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    c.getStyler().setLegendPosition(LegendPosition.InsideNW);
    c.getStyler().setYAxisMin(0.0);
    int i = 0;
    for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
      List<Double> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      for (double[] point : e.getValue()) {
        xs.add(point[0]);
        ys.add(point[1]);
      }
      XYSeries s = c.addSeries(e.getKey(), xs, ys);
      s.setLineColor(COLORS[i % COLORS.length]);
      s.setMarkerColor(COLORS[i % COLORS.length]);
      s.setMarker(SeriesMarkers.CIRCLE);
      i++;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    VectorGraphicsEncoder.saveVectorGraphic(c, bytes, VectorGraphicsFormat.SVG);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(file), Svg.deterministic(bytes.toString(StandardCharsets.UTF_8)),
        StandardCharsets.UTF_8);
  }

  /** Series "label" → (x = replicas, y = values[i]) for a chart over the replica counts. */
  static Map<String, List<double[]>> bySize(List<Integer> sizes, Map<String, double[]> values) {
    Map<String, List<double[]>> out = new LinkedHashMap<>();
    values.forEach((label, ys) -> {
      List<double[]> points = new ArrayList<>();
      for (int i = 0; i < sizes.size(); i++) {
        points.add(new double[] {sizes.get(i), ys[i]});
      }
      out.put(label, points);
    });
    return out;
  }

  /** {@code ConsensusEvaluation [quick|full [tables.md [svgDir]]]}. */
  public static void main(String[] argv) throws Exception {
    ProgramArgs args = ProgramArgs.of("benchmarks", "ConsensusEvaluation", "[quick|full|large [tables.md [svgDir]]]",
        argv, 3);
    if (args == null) {
      return;
    }
    String scale = args.choices("scale", args.text(0, "quick"), List.of("quick", "full", "large")).get(0);
    boolean full = scale.equals("full");
    List<Integer> sizes = full ? List.of(3, 5, 11, 25, 49) : scale.equals("large") ? List.of(25, 49)
        : List.of(3, 5, 11);
    Path svgDir = args.count() > 2 ? Path.of(args.text(2, null)) : null;
    Map<String, double[]> peaks = new LinkedHashMap<>();
    Map<String, double[]> latencies = new LinkedHashMap<>();
    StringBuilder t = new StringBuilder(scaling(sizes, peaks, latencies));
    if (svgDir != null) {
      String suffix = scale.equals("large") ? "-large" : "";
      lines(svgDir, "m2paxos-fig10.2a" + suffix + ".svg", "Peak throughput, 100% locality", "replicas", "commands/s",
          bySize(sizes, peaks));
      lines(svgDir, "m2paxos-fig10.2b" + suffix + ".svg", "Median latency under low load", "replicas", "ms",
          bySize(sizes, latencies));
    }
    if (!scale.equals("large")) { // large: Fig 10.2 only, at 25 and 49 replicas
      t.append(locality(full ? List.of(5, 11, 49) : List.of(5, 11), svgDir));
      t.append(complex(11, svgDir));
    }
    System.out.print(t);
    if (args.count() > 1) {
      Files.writeString(Path.of(args.text(1, null)), t.toString(), StandardCharsets.UTF_8);
    }
  }
}
