package org.kvlab.protocols.camu;

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
import java.util.Set;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.VectorGraphicsEncoder.VectorGraphicsFormat;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.kvlab.api.Params;
import org.kvlab.eval.ProgramArgs;
import org.kvlab.eval.Svg;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;
import org.kvlab.sim.Workload;

/**
 * The thesis's LAN evaluation (Ch. 5, Figs. 5.3/5.4/5.6/5.7) in shape, in simulation: 50 partitions with 3 ms rounds
 * and 100 partitions with 5 ms rounds, one node per partition, uniform or Zipf (s = 2) choice of the partner
 * partitions, 2- or 4-partition transactions, for PB, TOM and CaMu. The metric is the thesis's: mean latency from
 * the batching round to execution at the last participant ({@code camu.latencyMicros}, virtual time).
 *
 * <p>The thesis's setup, as far as the simulator can hold it: CaMu's PB partners are the 6 partitions nearest each
 * partition (p±1..p±3), every other link TOM; under Zipf the partners of home h rank h+1, h+2, ... so the top three
 * ranks are PB partners (the thesis puts its 4-6 PB partners first); under Uniform CaMu runs with every link PB, as
 * in the thesis (so it is PB plus CaMu's overhead). Load: {@code n} closed-loop sessions with a think time of one
 * round (the thesis: one transaction per partition per round, open loop). LAN one-way latency 0.2 ms ± 0.1.
 * What grows with the partition count in the thesis is the all-to-all exchange; the simulator charges each server
 * a receive cost per server-to-server message it takes in (one at a time), the only cost model here.
 *
 * <p>{@code scripts/bench/eval camu CamuEvaluation [rounds [table.md [svgDir]]]} prints the tables (one per receive
 * cost) and writes them and the charts (docs/benchmarks/camu.md).
 */
public final class CamuEvaluation {
  /** Per-message receive costs (µs) the harness sweeps; the thesis gives none. */
  static final long[] RECEIVE_MICROS = {0, 25, 50};
  static final String[] MODES = {"pb", "tom", "camu"};

  record Cell(long receiveMicros, int partitions, String partner, int parts, String mode, double meanMs, long txns, long messages, long virtualMs) {}

  static SimSpec spec(long receive, int n, long roundMicros, String mode, String partner, int parts, long durationMicros) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("mode", mode);
    p.put("round", roundMicros + "us");
    p.put("pbPartners", partner.equals("uniform") ? Integer.toString(n) : "3");
    p.put("durableState", "false"); // no crashes here; saving the state costs wall time, no virtual time
    Workload w = Workload.defaults().withKeys(5 * n).withSessionsPerDc(n).withThinkMicros(2 * roundMicros)
        .withTxn(new Workload.Txns(1.0, parts, partner, 2, 1, 0));
    return SimSpec.defaults().withTopology(1, n).withNetwork(NetworkModel.uniform(1, 1)
        .withReceiveMicros(receive)).withParams(new Params(p)).withWorkload(w).withFaultKinds(Set.of())
        .withDuration(durationMicros).withSettle(30 * roundMicros).withTrace(false)
        .withFinalReads(false);
  }

  static Cell run(long receive, int n, long roundMicros, String mode, String partner, int parts, long durationMicros,
      long seed) {
    SimResult r = new Simulation(spec(receive, n, roundMicros, mode, partner, parts, durationMicros), new Camu(), seed).run();
    if (r.failed()) {
      throw new IllegalStateException(mode + " n=" + n + " " + partner + " " + parts + ": " + r.failures());
    }
    long count = r.counter("camu.latencyMicros.count");
    long sum = r.counter("camu.latencyMicros.sum");
    if (count == 0) {
      throw new IllegalStateException(mode + " n=" + n + ": no transaction completed");
    }
    return new Cell(receive, n, partner, parts, mode, sum / 1000.0 / count, count, r.deliveries(), r.virtualMicros() / 1000);
  }

  /** Every cell of the grid: partitions {50 (3 ms), 100 (5 ms)} x partner x parts x mode. */
  static List<Cell> grid(long receive, long durationRounds, long seed) {
    List<Cell> out = new ArrayList<>();
    for (int n : new int[] {50, 100}) {
      long round = n == 50 ? 3_000 : 5_000;
      for (String partner : new String[] {"uniform", "zipf"}) {
        for (int parts : new int[] {2, 4}) {
          for (String mode : MODES) {
            out.add(run(receive, n, round, mode, partner, parts, durationRounds * round, seed));
          }
        }
      }
    }
    return out;
  }

  static double mean(List<Cell> cells, int n, String partner, int parts, String mode) {
    return cells.stream().filter(c -> c.partitions() == n && c.partner().equals(partner) && c.parts() == parts
        && c.mode().equals(mode)).findFirst().orElseThrow().meanMs();
  }

  static String f(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }

  static String table(List<Cell> cells) {
    StringBuilder out = new StringBuilder();
    out.append("| partitions (round) | partners | parts/txn | PB (ms) | TOM (ms) | CaMu (ms) | best |\n");
    out.append("|---|---|---|---|---|---|---|\n");
    for (int n : new int[] {50, 100}) {
      for (String partner : new String[] {"uniform", "zipf"}) {
        for (int parts : new int[] {2, 4}) {
          double pb = mean(cells, n, partner, parts, "pb");
          double tom = mean(cells, n, partner, parts, "tom");
          double camu = mean(cells, n, partner, parts, "camu");
          String best = pb <= tom && pb <= camu ? "PB" : tom <= camu ? "TOM" : "CaMu";
          out.append("| ").append(n).append(" (").append(n == 50 ? 3 : 5).append(" ms) | ").append(partner)
              .append(" | ").append(parts).append(" | ").append(f(pb)).append(" | ").append(f(tom)).append(" | ")
              .append(f(camu)).append(" | ").append(best).append(" |\n");
        }
      }
    }
    return out.toString();
  }

  private static final Color[] COLORS = {new Color(0x2166AC), new Color(0xC0392B), new Color(0x1B7837)};

  static void chart(Path dir, String file, String title, List<Cell> cells, int parts) throws IOException {
    List<String> xs = List.of("50 uniform", "50 zipf", "100 uniform", "100 zipf");
    Map<String, List<Double>> series = new LinkedHashMap<>();
    String[] names = {"PB", "TOM", "CaMu"};
    for (int m = 0; m < 3; m++) {
      List<Double> ys = new ArrayList<>();
      for (String x : xs) {
        String[] a = x.split(" ");
        ys.add(mean(cells, Integer.parseInt(a[0]), a[1], parts, MODES[m]));
      }
      series.put(names[m], ys);
    }
    bars(dir, file, title, "partitions, partner choice", xs, series);
  }

  /** A bar chart (one colour per series: PB, TOM, CaMu) written as a deterministic SVG. */
  static void bars(Path dir, String file, String title, String xTitle, List<String> xs, Map<String, List<Double>> series)
      throws IOException {
    CategoryChart c = new CategoryChartBuilder().width(640).height(400).title(title).xAxisTitle(xTitle)
        .yAxisTitle("mean latency, batching to execution (ms)").build();
    c.getStyler().setLegendPosition(LegendPosition.InsideNW);
    c.getStyler().setYAxisMin(0.0);
    int m = 0;
    for (Map.Entry<String, List<Double>> e : series.entrySet()) {
      CategorySeries s = c.addSeries(e.getKey(), xs, e.getValue());
      s.setFillColor(COLORS[m++ % COLORS.length]);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    VectorGraphicsEncoder.saveVectorGraphic(c, bytes, VectorGraphicsFormat.SVG);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(file), Svg.deterministic(bytes.toString(StandardCharsets.UTF_8)),
        StandardCharsets.UTF_8);
  }

  /** {@code CamuEvaluation [rounds [table.md [svgDir]]]}. */
  public static void main(String[] argv) throws Exception {
    ProgramArgs args = ProgramArgs.of("camu", "CamuEvaluation", "[rounds [table.md [svgDir]]]", argv, 3);
    if (args == null) {
      return;
    }
    long rounds = args.positive(0, "rounds", 200);
    long start = System.nanoTime();
    StringBuilder t = new StringBuilder();
    List<Cell> cells = new ArrayList<>();
    for (long receive : RECEIVE_MICROS) {
      List<Cell> g = grid(receive, rounds, 1);
      cells.addAll(g);
      t.append("\nReceive cost ").append(receive).append(" µs per message:\n\n").append(table(g));
    }
    System.out.print(t);
    System.out.println("(" + (System.nanoTime() - start) / 1_000_000_000 + " s wall)");
    for (Cell c : cells) {
      System.out.println(c);
    }
    if (args.count() > 1) {
      Files.writeString(Path.of(args.text(1, null)), t.toString(), StandardCharsets.UTF_8);
    }
    if (args.count() > 2) {
      Path dir = Path.of(args.text(2, null));
      for (long receive : RECEIVE_MICROS) {
        List<Cell> g = cells.stream().filter(c -> c.receiveMicros() == receive).toList();
        chart(dir, "camu-2-partitions-" + receive + "us.svg", "2-partition txns, receive cost " + receive + " µs", g, 2);
        chart(dir, "camu-4-partitions-" + receive + "us.svg", "4-partition txns, receive cost " + receive + " µs", g, 4);
      }
    }
  }
}
