package org.kvlab.experiment;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Charts of an experiment, drawn with XChart as SVG and PNG: throughput against the swept variable
 * (one series per protocol, and per value of the other swept variables), and p50/p99 latency of each
 * operation against it. Without a sweep, bars per protocol.
 */
final class Charts {
  private static final int WIDTH = 960;
  private static final int HEIGHT = 480;

  private Charts() {}

  /** Draws the charts into {@code dir}; returns the SVG files, in display order. */
  static List<Path> write(Results.ExperimentResult r, List<Reports.Point> points, Path dir) throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<Reports.Point> ok = points.stream().filter(p -> p.okRuns() > 0).toList();
    if (ok.isEmpty()) {
      return List.of();
    }
    List<Path> out = new ArrayList<>();
    String x = r.xAxis();
    List<String> ops = Reports.operations(r).stream().filter(o -> !o.endsWith("-FAILED")).toList();
    boolean numeric = x != null && ok.stream().allMatch(p -> isNumber(p.variation().get(x)));
    out.add(save(throughputChart(r, ok, x, numeric), dir, "throughput"));
    for (String op : ops) {
      out.add(save(latencyChart(r, ok, x, numeric, op), dir, "latency-" + op.toLowerCase().replaceAll("[^a-z0-9-]", "_")));
    }
    // Latency distributions: one chart per operation with a line per protocol; when a protocol ran in several
    // variations, one chart per operation and protocol instead, a line per variation (fifteen lines in one chart
    // are not readable, and colors would repeat).
    List<String> protocols = ok.stream().map(Reports.Point::protocol).distinct().toList();
    boolean perProtocol = protocols.stream().anyMatch(pr -> ok.stream().filter(p -> p.protocol().equals(pr)).count() > 1);
    for (String op : ops) {
      String base = "percentiles-" + op.toLowerCase().replaceAll("[^a-z0-9-]", "_");
      if (!perProtocol || protocols.size() == 1) {
        out.add(save(percentileChart(r, ok, op, perProtocol ? protocols.get(0) : null), dir, base));
      } else {
        for (String pr : protocols) {
          List<Reports.Point> mine = ok.stream().filter(p -> p.protocol().equals(pr)).toList();
          out.add(save(percentileChart(r, mine, op, pr), dir, base + "-" + pr.toLowerCase().replaceAll("[^a-z0-9-]", "_")));
        }
      }
    }
    XYChart time = throughputOverTimeChart(r);
    if (time != null) {
      out.add(save(time, dir, "throughput-over-time"));
    }
    return out;
  }

  /**
   * Operations per second over each measured run (warm-up included, summed over its clients), one line per
   * run (protocol, variation, repeat; repeats after the first dashed in their group's color), and a vertical
   * line where the warm-up ends: warm-up, stalls and drift
   * within a run show here, where the throughput chart has only each run's mean. Null if no run has a
   * timeline (results written before it was recorded).
   */
  static XYChart throughputOverTimeChart(Results.ExperimentResult r) {
    List<Results.RunResult> runs = r.runs().stream()
        .filter(run -> run.ok() && run.opsPerSecond() != null && !run.opsPerSecond().isEmpty()).toList();
    if (runs.isEmpty()) {
      return null;
    }
    XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT)
        .title(r.name() + ": throughput over time, per run (warm-up included; sum over clients)")
        .xAxisTitle("seconds since the run's clients started").yAxisTitle("operations/s").build();
    style(c);
    c.getStyler().setMarkerSize(0);
    c.getStyler().setDecimalPattern("#,##0");
    double top = 0;
    int last = 0;
    // one color per run group (protocol and variation), its repeats in the same color
    List<String> groups = runs.stream().map(run -> run.protocol() + "\u0000" + run.variation()).distinct().toList();
    for (Results.RunResult run : runs) {
      List<Double> ps = run.opsPerSecond();
      int n = ps.size();
      while (n > 1 && ps.get(n - 1) == 0) {
        n--; // the empty interval YCSB logs while it exports
      }
      double[] x = new double[n];
      double[] y = new double[n];
      for (int k = 0; k < n; k++) {
        x[k] = k;
        y[k] = ps.get(k);
        top = Math.max(top, y[k]);
      }
      last = Math.max(last, n - 1);
      StringBuilder name = new StringBuilder(run.protocol());
      run.variation().forEach((k, v) -> name.append(' ').append(k).append('=').append(v));
      if (runs.stream().anyMatch(o -> o != run && o.protocol().equals(run.protocol())
          && o.variation().equals(run.variation()))) {
        name.append(" #").append(run.repeat());
      }
      var line = c.addSeries(name.toString(), x, y);
      line.setMarker(SeriesMarkers.NONE);
      color(line, c, groups.indexOf(run.protocol() + "\u0000" + run.variation()), false);
      if (run.repeat() > 1) { // repeats: the group's color, dashed (longer dashes for later repeats)
        float dash = 2f + 3f * (run.repeat() - 1);
        line.setLineStyle(new java.awt.BasicStroke(1.5f, java.awt.BasicStroke.CAP_BUTT, java.awt.BasicStroke.JOIN_MITER,
            10f, new float[] {dash, 3f}, 0f));
      } else {
        line.setLineStyle(new java.awt.BasicStroke(1.5f));
      }
    }
    Object warmup = r.settings() == null ? null : r.settings().get("warmup");
    if (warmup != null && top > 0) {
      double w = Double.parseDouble(warmup.toString().replaceAll("s$", ""));
      if (w > 0 && w < last) {
        var mark = c.addSeries("warm-up ends (dotted)", new double[] {w, w}, new double[] {0, top});
        mark.setMarker(SeriesMarkers.NONE);
        mark.setLineColor(java.awt.Color.GRAY);
        mark.setLineStyle(new java.awt.BasicStroke(1f, java.awt.BasicStroke.CAP_BUTT, java.awt.BasicStroke.JOIN_MITER,
            10f, new float[] {2f, 3f}, 0f));
      }
    }
    return c;
  }

  private static Chart<?, ?> throughputChart(Results.ExperimentResult r, List<Reports.Point> ok, String x, boolean numeric) {
    String title = r.name() + ": throughput (sum over clients)";
    if (x == null) {
      CategoryChart c = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle("protocol")
          .yAxisTitle("operations/s").build();
      c.addSeries("throughput", ok.stream().map(Reports.Point::protocol).toList(),
          ok.stream().map(p -> (Number) p.throughput()).toList());
      style(c);
      return c;
    }
    Map<String, List<Reports.Point>> series = series(ok, x);
    if (numeric) {
      XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(x).yAxisTitle("operations/s").build();
      int i = 0;
      for (Map.Entry<String, List<Reports.Point>> s : series.entrySet()) {
        var line = c.addSeries(s.getKey(), xs(s.getValue(), x),
            s.getValue().stream().mapToDouble(Reports.Point::throughput).toArray());
        line.setMarker(SeriesMarkers.CIRCLE);
        color(line, c, i++, false);
      }
      style(c);
      return c;
    }
    CategoryChart c = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(x)
        .yAxisTitle("operations/s").build();
    series.forEach((name, pts) -> c.addSeries(name, pts.stream().map(p -> p.variation().get(x)).toList(),
        pts.stream().map(p -> (Number) p.throughput()).toList()));
    style(c);
    return c;
  }

  private static Chart<?, ?> latencyChart(Results.ExperimentResult r, List<Reports.Point> ok, String x, boolean numeric,
      String op) {
    // The title describes what is drawn: bars (one per percentile) unless a numeric variable is swept.
    String bars = r.name() + ": " + op + " latency (bars: p50 and p99 per series; merged histograms)";
    String lines = r.name() + ": " + op + " latency (p50 solid with circles, p99 dashed with diamonds; merged histograms)";
    String title = x != null && numeric ? lines : bars;
    if (x == null) {
      CategoryChart c = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle("protocol")
          .yAxisTitle("ms").build();
      for (double q : new double[] {50, 99}) {
        c.addSeries("p" + (int) q, ok.stream().map(Reports.Point::protocol).toList(),
            ok.stream().map(p -> (Number) percentileMs(p, op, q)).toList());
      }
      style(c);
      return c;
    }
    Map<String, List<Reports.Point>> series = series(ok, x);
    if (numeric) {
      XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(x).yAxisTitle("ms").build();
      int i = 0;
      for (Map.Entry<String, List<Reports.Point>> s : series.entrySet()) {
        String name = s.getKey();
        List<Reports.Point> with = s.getValue().stream().filter(p -> p.histograms().containsKey(op)).toList();
        int index = i++;
        if (!with.isEmpty()) {
          var p50 = c.addSeries(name + " p50", xs(with, x), with.stream().mapToDouble(p -> percentileMs(p, op, 50)).toArray());
          p50.setMarker(SeriesMarkers.CIRCLE);
          color(p50, c, index, false);
          var p99 = c.addSeries(name + " p99", xs(with, x), with.stream().mapToDouble(p -> percentileMs(p, op, 99)).toArray());
          p99.setMarker(SeriesMarkers.DIAMOND);
          p99.setLineStyle(new java.awt.BasicStroke(1.5f, java.awt.BasicStroke.CAP_BUTT, java.awt.BasicStroke.JOIN_MITER,
              10f, new float[] {6f, 4f}, 0f));
          color(p99, c, index, true);
        }
      }
      style(c);
      return c;
    }
    CategoryChart c = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(x).yAxisTitle("ms").build();
    series.forEach((name, pts) -> {
      for (double q : new double[] {50, 99}) {
        c.addSeries(name + " p" + (int) q, pts.stream().map(p -> p.variation().get(x)).toList(),
            pts.stream().map(p -> (Number) percentileMs(p, op, q)).toList());
      }
    });
    style(c);
    return c;
  }

  /** Percentiles drawn on the distribution charts: p50 up to p99.999 (fewer if a histogram has fewer values). */
  static final double[] DISTRIBUTION_PERCENTILES = {50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999};

  /**
   * The latency distribution of one operation, one line per protocol and variation (merged histograms):
   * x is the number of nines of the percentile (0.3 = p50, 1 = p90, 2 = p99, 3 = p99.9, ...), y the latency in
   * ms on a log scale, so the tail is as readable as the median.
   */
  static XYChart percentileChart(Results.ExperimentResult r, List<Reports.Point> ok, String op, String protocol) {
    XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT)
        .title(r.name() + ": " + op + " latency distribution" + (protocol == null ? ", per protocol" : " of " + protocol
            + ", per variation") + " (merged repeats)")
        .xAxisTitle("percentile (axis: number of nines, so p90, p99, p99.9 are equally spaced)")
        .yAxisTitle("ms (log scale)").build();
    c.getStyler().setYAxisLogarithmic(true);
    c.getStyler().setxAxisTickLabelsFormattingFunction(Charts::percentileLabel);
    c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
    c.getStyler().setLegendLayout(org.knowm.xchart.style.Styler.LegendLayout.Vertical);
    c.getStyler().setDecimalPattern("#,##0.###");
    int index = 0;
    for (Reports.Point p : ok) {
      Histogram h = p.histograms().get(op);
      if (h == null || h.getTotalCount() == 0) {
        continue;
      }
      List<Double> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      for (double q : DISTRIBUTION_PERCENTILES) {
        if (h.getTotalCount() * (1 - q / 100) < 1 && q > 50) {
          break; // beyond the histogram's resolution: fewer than one value above this percentile
        }
        xs.add(-Math.log10(1 - q / 100));
        ys.add(Math.max(0.001, h.getValueAtPercentile(q) / 1000.0));
      }
      StringBuilder name = new StringBuilder(protocol == null ? p.protocol() : "");
      p.variation().forEach((k, v) -> name.append(name.length() > 0 ? " " : "").append(k).append('=').append(v));
      var line = c.addSeries(name.length() == 0 ? p.protocol() : name.toString(), xs, ys);
      line.setMarker(SeriesMarkers.CIRCLE);
      line.setLineStyle(new java.awt.BasicStroke(2f)); // solid for all: the color tells the lines apart
      color(line, c, index++, false);
    }
    return c;
  }

  /** The tick label at {@code nines} on the distribution charts: the percentile, e.g. 2 → "p99", 0.5 → "p68.4". */
  static String percentileLabel(double nines) {
    double q = 100 * (1 - Math.pow(10, -nines));
    String s = new java.text.DecimalFormat("0.###", java.text.DecimalFormatSymbols.getInstance(java.util.Locale.ROOT))
        .format(q);
    return "p" + s;
  }

  /** The same color for a series (protocol) in every chart; p99 lines a darker shade of it. */
  private static void color(org.knowm.xchart.XYSeries series, XYChart c, int index, boolean darker) {
    java.awt.Color[] palette = c.getStyler().getSeriesColors();
    java.awt.Color color = palette[index % palette.length];
    if (darker) {
      color = color.darker();
    }
    series.setLineColor(color);
    series.setMarkerColor(color);
  }

  private static double percentileMs(Reports.Point p, String op, double q) {
    Histogram h = p.histograms().get(op);
    return h == null ? Double.NaN : h.getValueAtPercentile(q) / 1000.0;
  }

  /** Points grouped by protocol and the values of the variables other than {@code x}; each sorted by x. */
  private static Map<String, List<Reports.Point>> series(List<Reports.Point> ok, String x) {
    Map<String, List<Reports.Point>> series = new LinkedHashMap<>();
    for (Reports.Point p : ok) {
      StringBuilder name = new StringBuilder(p.protocol());
      p.variation().forEach((k, v) -> {
        if (!k.equals(x)) {
          name.append(' ').append(k).append('=').append(v);
        }
      });
      series.computeIfAbsent(name.toString(), k -> new ArrayList<>()).add(p);
    }
    return series;
  }

  private static double[] xs(List<Reports.Point> pts, String x) {
    return pts.stream().mapToDouble(p -> Double.parseDouble(p.variation().get(x))).toArray();
  }

  static boolean isNumber(String s) {
    if (s == null) {
      return false;
    }
    try {
      Double.parseDouble(s);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  static void style(Chart<?, ?> c) {
    c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
    c.getStyler().setLegendLayout(org.knowm.xchart.style.Styler.LegendLayout.Vertical);
    if (c instanceof XYChart xy) {
      xy.getStyler().setYAxisMin(0.0);
      xy.getStyler().setDecimalPattern("#,##0.##");
    } else if (c instanceof CategoryChart cc) {
      cc.getStyler().setYAxisMin(0.0);
      cc.getStyler().setDecimalPattern("#,##0.##");
    }
  }

  static Path save(Chart<?, ?> chart, Path dir, String name) throws IOException {
    Path base = dir.resolve(name);
    BitmapEncoder.saveBitmap(chart, base.toString(), BitmapEncoder.BitmapFormat.PNG);
    VectorGraphicsEncoder.saveVectorGraphic(chart, base.toString(), VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
    return dir.resolve(name + ".svg");
  }
}
