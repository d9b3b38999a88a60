package org.kvlab.protocols.conveyorbelt;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.VectorGraphicsEncoder.VectorGraphicsFormat;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.kvlab.eval.Svg;

/** The charts of seed 004's Figs 5 and 6 from {@link ConveyorBeltEvaluation}'s micro-benchmark sweep (SVG). */
final class ConveyorBeltCharts {
  private ConveyorBeltCharts() {}

  /**
   * {@code conveyorbelt-fig5.svg} (saturation throughput vs local ratio), {@code conveyorbelt-fig6a.svg} and
   * {@code -fig6b.svg} (mean latency of local, global and all operations at light and at saturating load).
   *
   * @param points per local ratio: the light-load measure, then the saturating one
   */
  static void figures(Path dir, double[] localRatios, List<ConveyorBeltEvaluation.Measure[]> points)
      throws IOException {
    Map<String, ToDoubleFunction<ConveyorBeltEvaluation.Measure>> throughput = Map.of("Conveyor Belt, 3 servers",
        ConveyorBeltEvaluation.Measure::perSecond);
    chart(dir, "conveyorbelt-fig5.svg", "Fig 5: saturation throughput", "ops/s", localRatios, points, 1, throughput);
    Map<String, ToDoubleFunction<ConveyorBeltEvaluation.Measure>> latency = new LinkedHashMap<>();
    latency.put("local", ConveyorBeltEvaluation.Measure::localMs);
    latency.put("global", ConveyorBeltEvaluation.Measure::globalMs);
    latency.put("all", ConveyorBeltEvaluation.Measure::allMs);
    chart(dir, "conveyorbelt-fig6a.svg", "Fig 6(a): mean latency, light load", "ms", localRatios, points, 0, latency);
    chart(dir, "conveyorbelt-fig6b.svg", "Fig 6(b): mean latency, saturating load", "ms", localRatios, points, 1,
        latency);
  }

  private static void chart(Path dir, String file, String title, String yTitle, double[] localRatios,
      List<ConveyorBeltEvaluation.Measure[]> points, int which,
      Map<String, ToDoubleFunction<ConveyorBeltEvaluation.Measure>> series) throws IOException {
    XYChart c = new XYChartBuilder().width(560).height(360).title(title).xAxisTitle("local operations (%)")
        .yAxisTitle(yTitle).build();
    c.getStyler().setLegendPosition(LegendPosition.InsideNW);
    c.getStyler().setYAxisMin(0.0);
    for (Map.Entry<String, ToDoubleFunction<ConveyorBeltEvaluation.Measure>> e : series.entrySet()) {
      List<Double> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      for (int i = 0; i < localRatios.length; i++) {
        double y = e.getValue().applyAsDouble(points.get(i)[which]);
        if (!Double.isNaN(y)) { // no local operation at 0% local
          xs.add(100 * localRatios[i]);
          ys.add(y);
        }
      }
      c.addSeries(e.getKey(), xs, ys);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    VectorGraphicsEncoder.saveVectorGraphic(c, bytes, VectorGraphicsFormat.SVG);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(file), Svg.deterministic(bytes.toString(StandardCharsets.UTF_8)),
        StandardCharsets.UTF_8);
  }
}
