package org.kvlab.protocols.causalspartanx;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.VectorGraphicsEncoder.VectorGraphicsFormat;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.XYSeries.XYSeriesRenderStyle;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.kvlab.eval.Svg;
import org.kvlab.protocols.causalspartanx.SeedComparisons.RotxLatencies;
import org.kvlab.sim.Scenarios;

/**
 * The charts of docs/benchmarks/seed-003-comparisons.md (SVG, XChart), drawn by {@link SeedComparisons#main} from the
 * numbers it measured: kvlab's simulated results as lines, the seed's reported points as separate "seed ..." marker
 * series. GentleRain is red, CausalSpartanX blue, throughout.
 */
final class SeedComparisonCharts {
  static final String PUT_VS_SKEW = "seed003-put-latency-vs-skew.svg";
  static final String VISIBILITY = "seed003-visibility-vs-third-dc.svg";
  static final String ROTX_CDF = "seed003-rotx-cdf-slow-partition.svg";

  private static final Color GR = new Color(0xC0392B);
  private static final Color CSX = new Color(0x2166AC);
  private static final BasicStroke DASHED =
      new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f);

  private final Path dir;

  SeedComparisonCharts(Path dir) throws IOException {
    this.dir = Files.createDirectories(dir);
  }

  private static XYChart chart(String title, String x, String y, int height) {
    XYChart c = new XYChartBuilder().width(760).height(height).title(title).xAxisTitle(x).yAxisTitle(y).build();
    c.getStyler().setLegendPosition(LegendPosition.InsideNW);
    c.getStyler().setChartTitleFont(c.getStyler().getChartTitleFont().deriveFont(14f));
    c.getStyler().setMarkerSize(7);
    return c;
  }

  /** kvlab's measurement: a line with small round markers. */
  private static XYSeries line(XYChart c, String name, double[] x, double[] y, Color color) {
    XYSeries s = c.addSeries(name, x, y);
    s.setXYSeriesRenderStyle(XYSeriesRenderStyle.Line);
    s.setMarker(SeriesMarkers.CIRCLE);
    s.setLineColor(color);
    s.setMarkerColor(color);
    return s;
  }

  /** The seed's reported numbers: large diamonds, no line. */
  private static void seed(XYChart c, String name, double[] x, double[] y, Color color) {
    XYSeries s = c.addSeries(name, x, y);
    s.setXYSeriesRenderStyle(XYSeriesRenderStyle.Scatter);
    s.setMarker(SeriesMarkers.DIAMOND);
    s.setMarkerColor(color.darker());
  }

  /** Writes the chart as SVG, the same bytes for the same chart ({@link Svg#deterministic}). */
  private void save(XYChart c, String file) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    VectorGraphicsEncoder.saveVectorGraphic(c, bytes, VectorGraphicsFormat.SVG);
    Files.writeString(dir.resolve(file), Svg.deterministic(bytes.toString(StandardCharsets.UTF_8)),
        StandardCharsets.UTF_8);
    if (Boolean.getBoolean("seed003.png")) { // previews for a quick look
      org.knowm.xchart.BitmapEncoder.saveBitmap(c, dir.resolve(file.replace(".svg", ".png")).toString(),
          org.knowm.xchart.BitmapEncoder.BitmapFormat.PNG);
    }
  }


  /** Fig 5.1a: {@code put[0]} GentleRain, {@code put[1]} CausalSpartanX, mean PUT latency (ms) per skew (ms). */
  void putLatencyVsSkew(double[] skews, double[][] put) throws IOException {
    XYChart c = chart("PUT latency vs clock skew (seed 003 Fig 5.1a)", "clock skew (ms)", "mean PUT latency (ms)",
        440);
    line(c, "GentleRain (kvlab sim)", skews, put[0], GR);
    line(c, "CausalSpartanX (kvlab sim)", skews, put[1], CSX);
    seed(c, "seed GentleRain", new double[] {SeedComparisons.SEED_SKEW}, new double[] {SeedComparisons.SEED_PUT_AT_10MS[0]},
        GR);
    seed(c, "seed CausalSpartanX", new double[] {SeedComparisons.SEED_SKEW},
        new double[] {SeedComparisons.SEED_PUT_AT_10MS[1]}, CSX);
    c.getStyler().setYAxisMin(0.0);
    save(c, PUT_VS_SKEW);
  }

  /**
   * Fig 5.4: visibility latency (ms) A→B per location of C, plotted against C's RTT to B; {@code vis} measured by a
   * polling reader, {@code oddEven} the time per increment of the odd/even scenario ([0] GentleRain, [1] CSX).
   */
  void visibilityVsThirdDc(double[][] vis, double[][] oddEven) throws IOException {
    int n = Scenarios.C_LOCATIONS.size();
    double[] x = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = Scenarios.C_RTTS.get(i)[1];
    }
    XYChart c = chart("Update visibility A→B as DC C moves away (seed 003 Fig 5.4)", "RTT from C to B (ms)",
        "latency (ms)", 440);
    line(c, "GentleRain visibility (kvlab sim)", x, vis[0], GR);
    line(c, "CausalSpartanX visibility (kvlab sim)", x, vis[1], CSX);
    line(c, "GentleRain odd/even per increment (kvlab sim)", x, oddEven[0], GR).setLineStyle(DASHED);
    line(c, "CausalSpartanX odd/even per increment (kvlab sim)", x, oddEven[1], CSX).setLineStyle(DASHED);
    List<Integer> seedAt = new ArrayList<>(SeedComparisons.SEED_GR_VISIBILITY.keySet());
    seedAt.sort(null);
    Function<Function<Integer, Double>, double[]> at = f -> seedAt.stream().mapToDouble(f::apply).toArray();
    double[] seedX = at.apply(i -> x[i]);
    seed(c, "seed GentleRain", seedX, at.apply(SeedComparisons.SEED_GR_VISIBILITY::get), GR);
    seed(c, "seed CausalSpartanX (from its % reduction)", seedX, at.apply(
        i -> SeedComparisons.SEED_GR_VISIBILITY.get(i) * (1 - SeedComparisons.SEED_CSX_LOWER_BY.get(i))), CSX);
    double top = 0;
    for (double[] row : List.of(vis[0], oddEven[0])) {
      for (double v : row) {
        top = Math.max(top, v);
      }
    }
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setYAxisMax(top * 1.1);
    for (int i = 0; i < n; i++) {
      c.addAnnotation(new AnnotationText(Scenarios.C_LOCATIONS.get(i), x[i], top * 0.03, false));
    }
    save(c, VISIBILITY);
  }

  /** Fig 5.6/5.7: CDF of ROTX latency with one partition slowed by 100 ms, latencies pooled over the seeds. */
  void rotxCdf(List<RotxLatencies> gr, List<RotxLatencies> csx) throws IOException {
    XYChart c = chart("ROTX latency CDF, 1 of 6 partitions slowed by 100 ms (seed 003 Fig 5.6/5.7a)",
        "ROTX latency (ms, log scale)", "fraction of ROTX", 440);
    c.getStyler().setXAxisLogarithmic(true);
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setYAxisMax(1.0);
    c.getStyler().setLegendPosition(LegendPosition.InsideS);
    cdf(c, "GentleRain, ROTX not touching the slow partition (sim)", gr, RotxLatencies::notTouching, GR, false);
    cdf(c, "GentleRain, ROTX touching it (sim)", gr, RotxLatencies::touching, GR, true);
    cdf(c, "CausalSpartanX, not touching it (sim)", csx, RotxLatencies::notTouching, CSX, false);
    cdf(c, "CausalSpartanX, touching it (sim)", csx, RotxLatencies::touching, CSX, true);
    int notTouching = SeedComparisons.P90;
    int touching = SeedComparisons.TOUCHING + SeedComparisons.P90;
    seed(c, "seed GentleRain p90 (not touching, touching)", new double[] {SeedComparisons.SEED_ROTX.get(notTouching)[0],
        SeedComparisons.SEED_ROTX.get(touching)[0]}, new double[] {0.9, 0.9}, GR);
    seed(c, "seed CausalSpartanX p90 (not touching, touching)", new double[] {
        SeedComparisons.SEED_ROTX.get(notTouching)[1], SeedComparisons.SEED_ROTX.get(touching)[1]},
        new double[] {0.9, 0.9}, CSX);
    save(c, ROTX_CDF);
  }

  /** 100 points of the empirical CDF of the pooled latencies. */
  private static void cdf(XYChart c, String name, List<RotxLatencies> runs, Function<RotxLatencies, List<Double>> side,
      Color color, boolean dashed) {
    double[] all = runs.stream().flatMap(r -> side.apply(r).stream()).mapToDouble(Double::doubleValue).sorted()
        .toArray();
    int points = Math.min(100, all.length);
    double[] x = new double[points];
    double[] y = new double[points];
    for (int i = 0; i < points; i++) {
      int rank = (int) Math.ceil((i + 1.0) / points * all.length) - 1;
      x[i] = Math.max(all[rank], 0.01); // log axis
      y[i] = (rank + 1.0) / all.length;
    }
    XYSeries s = c.addSeries(name, x, y);
    s.setXYSeriesRenderStyle(XYSeriesRenderStyle.Line);
    s.setMarker(SeriesMarkers.NONE);
    s.setLineColor(color);
    if (dashed) {
      s.setLineStyle(DASHED);
    }
  }
}
