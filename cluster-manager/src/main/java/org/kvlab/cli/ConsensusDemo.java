package org.kvlab.cli;

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
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.kvlab.api.Params;
import org.kvlab.api.Protocols;
import org.kvlab.sim.ConsensusRun;

/**
 * {@code ./kvlab demo --consensus}: M²Paxos, Multi-Paxos (M²Paxos with {@code leader=0}) and EPaxos side by side in the
 * simulator, the peak throughput of each at 3, 5 and 7 replicas of everything at 100% locality (seed 001 Fig 10.2a in
 * shape: {@link ConsensusRun}'s setup, 300 ms of virtual time per point), as a table and one chart. Virtual time: the
 * same numbers on any machine; the full evaluation is {@code scripts/bench/eval benchmarks ConsensusEvaluation}
 * (docs/benchmarks/m2paxos.md).
 */
final class ConsensusDemo {
  private ConsensusDemo() {}

  static final int[] SIZES = {3, 5, 7};
  static final String[][] PROTOCOLS = {{"M²Paxos", "m2paxos", "initialOwner=hash"}, {"Multi-Paxos", "m2paxos",
      "leader=0"}, {"EPaxos", "epaxos", ""}};

  static int run(Path output) throws IOException {
    for (String[] p : PROTOCOLS) {
      if (Protocols.installed(p[1]) == null) {
        System.err.println("kvlab demo --consensus: protocol '" + p[1] + "' is not installed. Fix: build kvlab with"
            + " protocols/" + p[1] + " (KVLAB_BUILD=always ./kvlab demo --consensus)");
        return Main.FAILED;
      }
    }
    System.out.println("kvlab demo --consensus: M²Paxos, Multi-Paxos (M²Paxos, leader=0) and EPaxos in the simulator,"
        + " N replicas of everything, 1000 objects per replica, 100% locality, 16-byte commands, open loop (8 in"
        + " flight per replica), 0.5 ms RTT, 10 µs of CPU per message; peak throughput in virtual time (commands/s)\n");
    System.out.printf("%-9s %12s %12s %12s%n", "replicas", PROTOCOLS[0][0], PROTOCOLS[1][0], PROTOCOLS[2][0]);
    Map<String, List<Double>> series = new LinkedHashMap<>();
    for (String[] p : PROTOCOLS) {
      series.put(p[0], new ArrayList<>());
    }
    for (int n : SIZES) {
      StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-9d", n));
      for (String[] p : PROTOCOLS) {
        ConsensusRun setup = ConsensusRun.of(n).withHashed(true).withLoad(200_000.0 / n, 8).withDuration(300_000);
        ConsensusRun.Measure m = setup.run(Protocols.byName(p[1]), params(p[2]), 1);
        if (!m.failures().isEmpty()) {
          System.err.println("kvlab demo --consensus: " + p[0] + " at " + n + " replicas failed: " + m.failures());
          return Main.FAILED;
        }
        series.get(p[0]).add(m.throughput());
        row.append(String.format(Locale.ROOT, " %12.0f", m.throughput()));
      }
      System.out.println(row);
    }
    Path dir = output.resolve("consensus-demo");
    Files.createDirectories(dir);
    Path chart = dir.resolve("throughput.svg");
    chart(chart, series);
    System.out.println("\nChart: " + chart.toAbsolutePath() + "\nWhy the shapes: docs/benchmarks/m2paxos.md; the"
        + " figures in full: scripts/bench/eval benchmarks ConsensusEvaluation full");
    return Main.OK;
  }

  private static Params params(String text) {
    Map<String, String> p = new LinkedHashMap<>();
    if (!text.isEmpty()) {
      String[] kv = text.split("=", 2);
      p.put(kv[0], kv[1]);
    }
    return new Params(p);
  }

  private static void chart(Path file, Map<String, List<Double>> series) throws IOException {
    XYChart c = new XYChartBuilder().width(640).height(400).title("Peak throughput, 100% locality (simulator)")
        .xAxisTitle("replicas").yAxisTitle("commands/s (virtual time)").build();
    c.getStyler().setLegendPosition(LegendPosition.InsideNE);
    c.getStyler().setYAxisMin(0.0);
    List<Double> xs = new ArrayList<>();
    for (int n : SIZES) {
      xs.add((double) n);
    }
    series.forEach((name, ys) -> c.addSeries(name, xs, ys).setMarker(SeriesMarkers.CIRCLE));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    VectorGraphicsEncoder.saveVectorGraphic(c, bytes, VectorGraphicsFormat.SVG);
    Files.writeString(file, bytes.toString(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
  }
}
