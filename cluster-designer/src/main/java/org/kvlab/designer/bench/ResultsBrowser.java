package org.kvlab.designer.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import javafx.application.Platform;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.chart.BarChart;
import javafx.scene.chart.CategoryAxis;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import org.HdrHistogram.Histogram;
import org.kvlab.designer.Workspace;
import org.kvlab.experiment.Aggregation;
import org.kvlab.experiment.Reports;
import org.kvlab.experiment.Results;
import org.kvlab.openloop.OpenLoopBench;

/**
 * Earlier results: every {@code results/<name>/<timestamp>/results.json} that {@code kvlab bench} (or this
 * tab) wrote under the workspace, and every {@code openloop.json} of an open-loop sweep, listed newest first; two or
 * more selected are compared side by side, in a table (throughput, p50 and p99 per protocol and variation; per
 * protocol and offered rate for a sweep) and a grouped bar chart.
 */
final class ResultsBrowser {
  /**
   * One earlier experiment run: its directory, name, status, runs (points of a sweep) done and planned, protocols,
   * and what its results.json says, or, for an open-loop sweep, the rows of its points.
   */
  record Earlier(Path dir, String name, String status, int runs, int runsPlanned, List<String> protocols,
      Results.ExperimentResult result, List<Row> openLoop) {
    Earlier(Path dir, Results.ExperimentResult result) {
      this(dir, result.name(), result.status(), result.runs().size(), result.runsPlanned(), result.protocols(), result,
          null);
    }

    String label() {
      return name + " " + dir.getFileName();
    }

    /** What Open report opens: the HTML report, or a sweep's latency-throughput chart. */
    Path report() {
      return dir.resolve(result != null ? "report.html" : "latency-throughput.svg");
    }
  }

  /** One row of the comparison: one run of one earlier result, for the chosen operation. */
  record Row(String result, String protocol, String variation, int repeat, String status, double throughput,
      double p50Millis, double p99Millis) {}

  static final String ALL = "ALL";
  static final List<String> METRICS = List.of("throughput (ops/s)", "p50 latency (ms)", "p99 latency (ms)");

  private final Workspace workspace;
  private final Consumer<Path> openReport;
  private final TableView<Earlier> list = new TableView<>();
  private final TableView<Row> table = new TableView<>();
  private final ComboBox<String> op = new ComboBox<>(FXCollections.observableArrayList(ALL));
  private final ComboBox<String> metric = new ComboBox<>(FXCollections.observableArrayList(METRICS));
  private final BarChart<String, Number> chart;
  private final Label info = new Label("Select two or more results (Ctrl+click) and press Compare.");
  private final VBox node = new VBox(6);
  private List<Earlier> compared = List.of();

  ResultsBrowser(Workspace workspace, Consumer<Path> openReport) {
    this.workspace = workspace;
    this.openReport = openReport;
    list.setId("bench-results-table");
    list.getSelectionModel().setSelectionMode(SelectionMode.MULTIPLE);
    list.getColumns().add(column("experiment", e -> e.name() + (e.openLoop() != null ? " (open loop)" : "")));
    list.getColumns().add(column("started", e -> e.dir().getFileName().toString()));
    list.getColumns().add(column("status", Earlier::status));
    list.getColumns().add(column("runs", e -> e.runs() + "/" + e.runsPlanned()));
    list.getColumns().add(column("protocols", e -> String.join(", ", e.protocols())));
    list.getColumns().add(column("directory", e -> workspace.home().relativize(e.dir().toAbsolutePath()).toString()));
    list.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
    list.setPlaceholder(new Label("No results yet under " + resultsRoot() + " (run a benchmark first)."));
    list.setOnMouseClicked(ev -> {
      if (ev.getClickCount() == 2 && list.getSelectionModel().getSelectedItem() != null) {
        compare();
      }
    });

    Button refresh = new Button("Refresh");
    refresh.setId("bench-results-refresh");
    refresh.setOnAction(ev -> refresh());
    Button compare = new Button("Compare selected");
    compare.setId("bench-compare");
    compare.disableProperty().bind(javafx.beans.binding.Bindings.isEmpty(list.getSelectionModel().getSelectedItems()));
    compare.setOnAction(ev -> compare());
    Button open = new Button("Open report");
    open.setId("bench-results-open");
    open.disableProperty().bind(list.getSelectionModel().selectedItemProperty().isNull());
    open.setOnAction(ev -> openReport.accept(list.getSelectionModel().getSelectedItem().report()));
    HBox bar = new HBox(8, refresh, compare, open, info);
    bar.setAlignment(javafx.geometry.Pos.CENTER_LEFT);

    table.setId("bench-compare-table");
    table.getColumns().add(rowColumn("result", Row::result));
    table.getColumns().add(rowColumn("protocol", Row::protocol));
    table.getColumns().add(rowColumn("variation", Row::variation));
    table.getColumns().add(rowColumn("repeat", r -> Integer.toString(r.repeat())));
    table.getColumns().add(rowColumn("status", Row::status));
    table.getColumns().add(rowColumn("throughput (ops/s)", r -> String.format(Locale.ROOT, "%,.0f", r.throughput())));
    table.getColumns().add(rowColumn("p50 (ms)", r -> ms(r.p50Millis())));
    table.getColumns().add(rowColumn("p99 (ms)", r -> ms(r.p99Millis())));
    double[] widths = {190, 110, 170, 60, 75, 130, 80, 80};
    for (int i = 0; i < widths.length; i++) {
      table.getColumns().get(i).setPrefWidth(widths[i]);
    }
    table.setPlaceholder(new Label("Nothing compared yet."));

    op.setId("bench-compare-op");
    op.setValue(ALL);
    op.valueProperty().addListener((o, a, b) -> redraw());
    metric.setId("bench-compare-metric");
    metric.setValue(METRICS.get(0));
    metric.valueProperty().addListener((o, a, b) -> redraw());

    CategoryAxis x = new CategoryAxis();
    x.setLabel("protocol and variation");
    NumberAxis y = new NumberAxis();
    chart = new BarChart<>(x, y);
    chart.setId("bench-compare-chart");
    chart.setAnimated(false);
    chart.setTitle("Compared results");

    HBox choices = new HBox(8, new Label("operation"), op, new Label("chart"), metric);
    choices.setAlignment(javafx.geometry.Pos.CENTER_LEFT);
    VBox comparison = new VBox(6, choices, table, chart);
    table.setPrefHeight(170);
    table.setMinHeight(110);
    VBox.setVgrow(chart, Priority.ALWAYS);
    SplitPane split = new SplitPane(list, comparison);
    split.setOrientation(Orientation.VERTICAL);
    split.setDividerPositions(0.22);
    node.getChildren().addAll(bar, split);
    node.setPadding(new Insets(8));
    VBox.setVgrow(split, Priority.ALWAYS);
  }

  Node node() {
    return node;
  }

  TableView<Earlier> list() {
    return list;
  }

  TableView<Row> table() {
    return table;
  }

  BarChart<String, Number> chart() {
    return chart;
  }

  /** Where {@code kvlab bench} writes (its default {@code --output}), under the workspace. */
  Path resultsRoot() {
    return workspace.home().resolve("results");
  }

  /** Lists the results again (in the background) and keeps the selection where it can. */
  void refresh() {
    Path root = resultsRoot();
    BenchView.inBackground(workspace, () -> {
      List<Earlier> found = scan(root, workspace::log);
      Platform.runLater(() -> {
        List<Path> selected = list.getSelectionModel().getSelectedItems().stream().map(Earlier::dir).toList();
        list.getItems().setAll(found);
        for (int i = 0; i < found.size(); i++) {
          if (selected.contains(found.get(i).dir())) {
            list.getSelectionModel().select(i);
          }
        }
      });
    });
  }

  /**
   * Every {@code <name>/<timestamp>/results.json} and {@code openloop.json} under {@code root}, newest first (the
   * {@code latest} links left out).
   */
  static List<Earlier> scan(Path root, Consumer<String> log) {
    List<Earlier> found = new ArrayList<>();
    if (!Files.isDirectory(root)) {
      return found;
    }
    try (Stream<Path> names = Files.list(root)) {
      for (Path name : names.filter(Files::isDirectory).toList()) {
        try (Stream<Path> stamps = Files.list(name)) {
          for (Path dir : stamps.filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)).toList()) {
            Path json = dir.resolve("results.json");
            Path openLoop = dir.resolve("openloop.json");
            try {
              if (Files.isRegularFile(json)) {
                found.add(new Earlier(dir, Reports.readJson(json)));
              } else if (Files.isRegularFile(openLoop)) {
                found.add(readOpenLoop(dir));
              }
            } catch (IOException | RuntimeException e) {
              log.accept("results: cannot read " + (Files.isRegularFile(json) ? json : openLoop) + ": " + e.getMessage());
            }
          }
        }
      }
    } catch (IOException e) {
      log.accept("results: cannot list " + root + ": " + e.getMessage());
    }
    found.sort(Comparator.comparing((Earlier e) -> e.dir().getFileName().toString()).reversed()
        .thenComparing(Earlier::name));
    return found;
  }

  /**
   * An open-loop sweep's {@code openloop.json}: one row per point (protocol, offered rate; achieved throughput, p50
   * and p99 from the intended send time). A point with errors, or abandoned, has that status instead of ok. Files
   * written before sweeps recorded a status were written only by complete sweeps.
   */
  static Earlier readOpenLoop(Path dir) throws IOException {
    OpenLoopBench.Written w = OpenLoopBench.read(dir.resolve("openloop.json"));
    String label = w.name() + " " + dir.getFileName();
    List<Row> rows = new ArrayList<>();
    java.util.Set<String> protocols = new java.util.LinkedHashSet<>();
    for (OpenLoopBench.Point p : w.points()) {
      protocols.add(p.protocol());
      String status = p.abandoned() ? "abandoned" : p.errors() > 0 ? "errors" : Results.OK;
      rows.add(new Row(label, p.protocol(), String.format(Locale.ROOT, "offered %,.0f/s", p.targetRate()), 1, status,
          p.achievedOpsPerSec(), p.p50() / 1000.0, p.p99() / 1000.0));
    }
    return new Earlier(dir, w.name(), w.status(), rows.size(), w.pointsPlanned(), List.copyOf(protocols), null,
        List.copyOf(rows));
  }

  /** Compares the selected results. */
  void compare() {
    compared = list.getSelectionModel().getSelectedItems().stream()
        .sorted(Comparator.comparing((Earlier e) -> e.dir().getFileName().toString())).toList(); // oldest first
    List<String> ops = new ArrayList<>(List.of(ALL));
    compared.stream().filter(e -> e.result() != null).flatMap(e -> e.result().runs().stream()).flatMap(r -> r.ops().stream())
        .map(Results.OpStats::op).distinct().sorted().forEach(ops::add);
    String keep = op.getValue();
    op.getItems().setAll(ops);
    op.setValue(ops.contains(keep) ? keep : ALL);
    info.setText(compared.size() == 1 ? "One result shown; select more (Ctrl+click) to compare."
        : compared.size() + " results compared.");
    redraw();
  }

  private void redraw() {
    List<Row> rows = rows(compared, op.getValue() == null ? ALL : op.getValue());
    table.getItems().setAll(rows);
    chart.getData().clear();
    int m = Math.max(0, METRICS.indexOf(metric.getValue()));
    chart.getYAxis().setLabel(METRICS.get(m));
    chart.setTitle(METRICS.get(m) + ", " + (op.getValue() == null ? ALL : op.getValue()) + " operations"
        + " (mean over repeats)");
    // categories in the order the rows first name them, one series per result
    List<String> categories = new ArrayList<>();
    Map<String, Map<String, List<Double>>> values = new LinkedHashMap<>();
    for (Row r : rows) {
      if (!r.status().equals(Results.OK)) {
        continue;
      }
      String category = r.protocol() + (r.variation().isEmpty() ? "" : " " + r.variation());
      if (!categories.contains(category)) {
        categories.add(category);
      }
      double v = m == 0 ? r.throughput() : m == 1 ? r.p50Millis() : r.p99Millis();
      values.computeIfAbsent(r.result(), k -> new LinkedHashMap<>()).computeIfAbsent(category, k -> new ArrayList<>()).add(v);
    }
    ((CategoryAxis) chart.getXAxis()).setCategories(FXCollections.observableArrayList(categories));
    values.forEach((result, byCategory) -> {
      XYChart.Series<String, Number> s = new XYChart.Series<>();
      s.setName(result);
      byCategory.forEach((c, v) -> s.getData().add(new XYChart.Data<>(c,
          v.stream().mapToDouble(Double::doubleValue).average().orElse(0))));
      chart.getData().add(s);
    });
  }

  /** The comparison rows of {@code results} for operation {@code op} ({@code ALL}: every operation, histograms merged). */
  static List<Row> rows(List<Earlier> results, String op) {
    List<Row> rows = new ArrayList<>();
    for (Earlier e : results) {
      if (e.openLoop() != null) { // one latency per point, every operation together
        if (op.equals(ALL)) {
          rows.addAll(e.openLoop());
        }
        continue;
      }
      for (Results.RunResult r : e.result().runs()) {
        String variation = r.variation().isEmpty() ? "" : String.join(" ", r.variation().entrySet().stream()
            .map(v -> v.getKey() + "=" + v.getValue()).toList());
        double throughput;
        double p50 = Double.NaN;
        double p99 = Double.NaN;
        if (op.equals(ALL)) {
          throughput = r.throughput();
          Histogram merged = new Histogram(3);
          for (Results.OpStats s : r.ops()) {
            if (s.histogram() != null && !s.histogram().isEmpty()) {
              merged.add(Aggregation.decode(s.histogram()));
            }
          }
          if (merged.getTotalCount() > 0) {
            p50 = merged.getValueAtPercentile(50) / 1000.0;
            p99 = merged.getValueAtPercentile(99) / 1000.0;
          }
        } else {
          Results.OpStats s = r.op(op);
          if (s == null) {
            continue;
          }
          throughput = s.throughput();
          p50 = s.p50() / 1000.0;
          p99 = s.p99() / 1000.0;
        }
        rows.add(new Row(e.label(), r.protocol(), variation, r.repeat(), r.status(), throughput, p50, p99));
      }
    }
    return rows;
  }

  static String ms(double millis) {
    return Double.isNaN(millis) ? "-" : String.format(Locale.ROOT, millis < 10 ? "%.3f" : "%.1f", millis);
  }

  private static TableColumn<Earlier, String> column(String title, Function<Earlier, String> value) {
    TableColumn<Earlier, String> c = new TableColumn<>(title);
    c.setCellValueFactory(d -> new ReadOnlyObjectWrapper<>(value.apply(d.getValue())));
    return c;
  }

  private static TableColumn<Row, String> rowColumn(String title, Function<Row, String> value) {
    TableColumn<Row, String> c = new TableColumn<>(title);
    c.setCellValueFactory(d -> new ReadOnlyObjectWrapper<>(value.apply(d.getValue())));
    return c;
  }
}
