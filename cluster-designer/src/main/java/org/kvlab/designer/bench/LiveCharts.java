package org.kvlab.designer.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.ValueAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.layout.StackPane;
import org.kvlab.experiment.Experiment;
import org.kvlab.experiment.ExperimentListener;
import org.kvlab.openloop.OpenLoopBench;

/**
 * The live charts of a running benchmark: throughput and latency (p50 and p99) against the seconds of each
 * run's run phase, one series per run (its protocol and variation), so the protocols of an experiment lie on
 * top of each other. Fed by {@link ExperimentListener.Interval}s. For an open-loop experiment ({@link
 * #openLoop}), one point per offered rate as each is measured: achieved against offered throughput, and the
 * latency-throughput curve (p50 and p99 against achieved throughput), one series per protocol. The latency axis
 * is linear or logarithmic ({@link #setLogScale}). FX thread only.
 */
final class LiveCharts {
  private final LineChart<Number, Number> throughput;
  private LineChart<Number, Number> latency;
  /** Holds the latency chart: switching the scale replaces the chart (a chart's axes are fixed). */
  private final StackPane latencyPane = new StackPane();
  private boolean logScale;
  private boolean openLoop;
  /** Per series label, the open-loop points measured so far. */
  private final Map<String, List<OpenLoopBench.Point>> points = new LinkedHashMap<>();
  /** Open loop: each cluster's series label. */
  private final Map<String, String> clusterLabels = new LinkedHashMap<>();
  /** Per run label, every interval of its run phase (to redraw the latency chart for another operation). */
  private final Map<String, List<ExperimentListener.Interval>> intervals = new LinkedHashMap<>();
  private final Map<String, XYChart.Series<Number, Number>> throughputSeries = new LinkedHashMap<>();
  private final Map<String, XYChart.Series<Number, Number>> p50Series = new LinkedHashMap<>();
  private final Map<String, XYChart.Series<Number, Number>> p99Series = new LinkedHashMap<>();
  private final ObservableList<String> operations = FXCollections.observableArrayList(ExperimentListener.Interval.ALL);
  private String operation = ExperimentListener.Interval.ALL;
  /** Which percentiles the latency chart draws. */
  static final List<String> PERCENTILES = List.of("p50 and p99", "p50", "p99");
  private String percentiles = PERCENTILES.get(0);

  LiveCharts() {
    throughput = chart("throughput (ops/s)", "seconds of the run phase", new NumberAxis());
    throughput.setId("bench-throughput-chart");
    latency = newLatencyChart();
    latencyPane.getChildren().setAll(latency);
  }

  private LineChart<Number, Number> newLatencyChart() {
    ValueAxis<Number> y = logScale ? new LogAxis("") : new NumberAxis();
    LineChart<Number, Number> c = chart(latencyTitle(), openLoop ? "achieved throughput (ops/s)" : "seconds of the run phase", y);
    y.setLabel(logScale ? "ms (log scale)" : "ms");
    y.setId(logScale ? "bench-latency-axis-log" : "bench-latency-axis");
    c.setId("bench-latency-chart");
    c.setPrefWidth(400);
    return c;
  }

  private String latencyTitle() {
    String what = percentiles.equals("p50 and p99") ? "p50 solid, p99 dashed" : percentiles;
    return "latency (ms): " + what;
  }

  private static LineChart<Number, Number> chart(String title, String x, ValueAxis<Number> yAxis) {
    NumberAxis xAxis = new NumberAxis();
    xAxis.setLabel(x);
    xAxis.setForceZeroInRange(true);
    if (yAxis.getLabel() == null) {
      yAxis.setLabel("ops/s");
    }
    LineChart<Number, Number> c = new LineChart<>(xAxis, yAxis);
    c.setTitle(title);
    c.setAnimated(false);
    c.setCreateSymbols(true);
    c.setMinHeight(220);
    return c;
  }

  LineChart<Number, Number> throughputChart() {
    return throughput;
  }

  LineChart<Number, Number> latencyChart() {
    return latency;
  }

  /** Where the latency chart is shown (its chart is replaced when the scale changes). */
  StackPane latencyPane() {
    return latencyPane;
  }

  boolean logScale() {
    return logScale;
  }

  /** Draws the latency axis on a logarithmic (true) or linear scale: the same points, another chart. */
  void setLogScale(boolean log) {
    if (log == logScale) {
      return;
    }
    logScale = log;
    latency = newLatencyChart();
    latencyPane.getChildren().setAll(latency);
    redrawLatency();
  }

  /**
   * Switches between a YCSB experiment's charts (against the seconds of each run) and an open-loop experiment's
   * (one point per offered rate); clears both.
   */
  void openLoop(boolean on) {
    clear();
    if (on == openLoop) {
      return;
    }
    openLoop = on;
    throughput.setTitle(on ? "achieved vs. offered throughput (ops/s)" : "throughput (ops/s)");
    throughput.getXAxis().setLabel(on ? "offered (requests/s)" : "seconds of the run phase");
    latency = newLatencyChart();
    latencyPane.getChildren().setAll(latency);
  }

  /** One rate of an open-loop sweep, as soon as it is measured. */
  void add(OpenLoopBench.Point p) {
    String label = clusterLabels.computeIfAbsent(p.cluster(), c -> clusterLabels.containsValue(p.protocol())
        ? p.protocol() + " (" + c + ")" : p.protocol()); // the protocol, and the cluster when two share one
    points.computeIfAbsent(label, k -> new ArrayList<>()).add(p);
    series(throughput, throughputSeries, label, label).getData().add(new XYChart.Data<>(p.targetRate(), p.achievedOpsPerSec()));
    addLatency(label, p);
  }

  private void addLatency(String label, OpenLoopBench.Point p) {
    if (!percentiles.equals("p99") && !Double.isNaN(p.p50())) {
      series(latency, p50Series, label, label + " p50").getData().add(new XYChart.Data<>(p.achievedOpsPerSec(), p.p50() / 1000.0));
    }
    if (!percentiles.equals("p50") && !Double.isNaN(p.p99())) {
      series(latency, p99Series, label, label + " p99").getData().add(new XYChart.Data<>(p.achievedOpsPerSec(), p.p99() / 1000.0));
    }
    styleLatency();
  }

  /** The operations seen so far ({@code ALL} first), for the latency chart's choice. */
  ObservableList<String> operations() {
    return operations;
  }

  /** Draws the latency chart for {@code op} ({@code ALL}: every operation). */
  void showOperation(String op) {
    if (op == null || op.equals(operation)) {
      return;
    }
    operation = op;
    redrawLatency();
  }

  /** Draws {@code which} of {@link #PERCENTILES} (p50 alone is easier to read when p99 is far above it). */
  void showPercentiles(String which) {
    if (which == null || which.equals(percentiles) || !PERCENTILES.contains(which)) {
      return;
    }
    percentiles = which;
    redrawLatency();
  }

  private void redrawLatency() {
    p50Series.clear();
    p99Series.clear();
    latency.getData().clear();
    latency.setTitle(latencyTitle());
    intervals.forEach((label, list) -> list.forEach(i -> addLatency(label, i)));
    points.forEach((label, list) -> list.forEach(p -> addLatency(label, p)));
  }

  void clear() {
    intervals.clear();
    points.clear();
    clusterLabels.clear();
    throughputSeries.clear();
    p50Series.clear();
    p99Series.clear();
    throughput.getData().clear();
    latency.getData().clear();
    operations.setAll(ExperimentListener.Interval.ALL);
    operation = ExperimentListener.Interval.ALL;
  }

  /** A series' name: the run's protocol, variation and repeat. */
  static String label(Experiment.Run run) {
    return run.protocol() + (run.variation().values().isEmpty() ? "" : " " + run.variation().label())
        + (run.repeat() > 1 ? " #" + run.repeat() : "");
  }

  /** Adds one interval; intervals of the load phase are not drawn. */
  void add(ExperimentListener.Interval i) {
    if (!i.phase().equals("run")) {
      return;
    }
    String label = label(i.run());
    intervals.computeIfAbsent(label, k -> new ArrayList<>()).add(i);
    put(series(throughput, throughputSeries, label, label), i.seconds(), i.opsPerSecond());
    for (String op : new TreeSet<>(i.latencies().keySet())) {
      if (!operations.contains(op)) {
        operations.add(op); // added, not replaced: the choice box keeps its value
      }
    }
    addLatency(label, i);
  }

  private void addLatency(String label, ExperimentListener.Interval i) {
    ExperimentListener.Latency l = i.latencies().get(operation);
    if (l == null || l.count() == 0) {
      return;
    }
    if (!percentiles.equals("p99")) {
      put(series(latency, p50Series, label, label + " p50"), i.seconds(), l.p50Micros() / 1000.0);
    }
    if (!percentiles.equals("p50")) {
      put(series(latency, p99Series, label, label + " p99"), i.seconds(), l.p99Micros() / 1000.0);
    }
    styleLatency();
  }

  /**
   * Adds a point, or replaces the last one when it has the same second: the clients' status lines and the
   * runner's polls are both about a second apart, so two polls can see the same second.
   */
  private static void put(XYChart.Series<Number, Number> s, long second, double value) {
    var data = s.getData();
    if (!data.isEmpty() && data.get(data.size() - 1).getXValue().longValue() == second) {
      data.get(data.size() - 1).setYValue(value);
    } else {
      data.add(new XYChart.Data<>(second, value));
    }
  }

  private static XYChart.Series<Number, Number> series(LineChart<Number, Number> chart,
      Map<String, XYChart.Series<Number, Number>> byLabel, String label, String name) {
    XYChart.Series<Number, Number> s = byLabel.get(label);
    if (s == null) {
      s = new XYChart.Series<>();
      s.setName(name);
      byLabel.put(label, s);
      chart.getData().add(s);
    }
    return s;
  }

  /** p99 lines dashed (their colour is the chart's, as in the legend). */
  private void styleLatency() {
    for (XYChart.Series<Number, Number> p99 : p99Series.values()) {
      if (p99.getNode() != null) {
        p99.getNode().setStyle("-fx-stroke-dash-array: 6 4;");
      }
    }
  }

  /** Points drawn so far in the throughput chart (for tests and the status line). */
  int throughputPoints() {
    return throughputSeries.values().stream().mapToInt(s -> s.getData().size()).sum();
  }

  int latencyPoints() {
    return latency.getData().stream().mapToInt(s -> s.getData().size()).sum();
  }
}
