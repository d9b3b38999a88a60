package org.kvlab.designer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javafx.scene.Scene;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.FlowPane;
import javafx.stage.Stage;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.kvlab.designer.MainWindow;
import org.kvlab.designer.Workspace;
import org.kvlab.designer.testing.Screenshots;
import org.kvlab.designer.testing.Typing;
import org.kvlab.experiment.Aggregation;
import org.kvlab.experiment.Reports;
import org.kvlab.experiment.Results;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The Benchmark tab as a person uses it, in a real window: open an experiment file by typing its path, see
 * the loader's message for a mistake, run a short benchmark on this machine by clicking Run, see the live
 * charts gain points while it runs, the report's charts at the end and no server left; and compare two
 * earlier results side by side.
 */
@ExtendWith(ApplicationExtension.class)
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class BenchViewTest {
  private Workspace workspace;
  private Stage stage;
  private BenchView view;
  private Path home;

  @Start
  void start(Stage stage) throws Exception {
    this.stage = stage;
    home = Files.createTempDirectory("kvlab-benchview");
    workspace = new Workspace(home);
    MainWindow window = new MainWindow(workspace, stage);
    view = (BenchView) window.views().stream().filter(v -> v instanceof BenchView).findFirst().orElseThrow();
    stage.setScene(new Scene(window.root(), 1400, 900));
    stage.show();
  }

  @AfterEach
  void close() throws Exception {
    workspace.close();
    try (var walk = Files.walk(home)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static final String EXPERIMENT = """
      # a short Eventual benchmark: 2 runs of 5 s (1 s warm-up) on one server, in memory
      name: designer-gui-bench
      cluster: { datacenters: 1, partitions: 1, storage: memory }
      protocols: [eventual]
      workload: { fieldcount: 1, fieldlength: 16 }
      sweep:
        readproportion: [0.5, 0.95]
      clients: { processes: 1, threads: 2 }
      recordcount: 200
      duration: 4s
      warmup: 1s
      """;

  /** Writes EXPERIMENT to experiments/{@code name} and opens it in the Benchmark tab by typing its path. */
  private Path openByTyping(FxRobot robot, String name) throws Exception {
    Path file = home.resolve("experiments").resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, EXPERIMENT);
    robot.clickOn("Benchmark");
    Typing.replaceText(robot, "#bench-file", "experiments/" + name).type(KeyCode.ENTER);
    return file;
  }

  @Test
  void runsAShortBenchmarkFromTheGuiWithLiveCharts(FxRobot robot) throws Exception {
    Path file = openByTyping(robot, "gui-bench.yaml");
    Label validation = robot.lookup("#bench-validation").queryAs(Label.class);
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> validation.getText().startsWith("valid:"));
    assertEquals("valid: designer-gui-bench, 2 runs (eventual)", validation.getText());
    assertEquals(file, workspace.experimentFile().get());

    // a typo: the CLI's message (file, line, column, fix) below the editor
    robot.clickOn("#bench-editor").press(KeyCode.CONTROL).type(KeyCode.END).release(KeyCode.CONTROL);
    robot.write("duraton: 3s\n");
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> validation.getText().contains("duraton"));
    assertTrue(validation.getText().startsWith("kvlab: " + file + ":" + (EXPERIMENT.lines().count() + 1)
        + ":1: unknown top-level key 'duraton'"),
        validation.getText());
    assertTrue(validation.getText().contains("Fix: did you mean 'duration'?"), validation.getText());
    robot.clickOn("#bench-run");
    assertFalse(view.running(), "an invalid experiment is not run");
    // undo the typo by reopening the file (the edit was saved by Run; write the good text back first)
    Files.writeString(file, EXPERIMENT);
    robot.doubleClickOn("#bench-file").type(KeyCode.ENTER);
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> validation.getText().startsWith("valid:"));

    // the servers and clients this run starts: every child process seen while it runs
    Set<Long> children = ConcurrentHashMap.newKeySet();
    AtomicBoolean watching = new AtomicBoolean(true);
    Thread watcher = new Thread(() -> {
      while (watching.get()) {
        ProcessHandle.current().descendants().forEach(p -> children.add(p.pid()));
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    watcher.setDaemon(true);
    watcher.start();
    try {
      robot.clickOn("#bench-run");
      assertTrue(view.running());
      // live: the second run's series gets points while it runs
      WaitForAsyncUtils.waitFor(180, TimeUnit.SECONDS, () -> !view.running()
          || (view.charts().throughputChart().getData().size() == 2
              && view.charts().throughputChart().getData().get(1).getData().size() >= 3
              && view.charts().latencyPoints() >= 4));
      assertTrue(view.running(), "the charts had points while the benchmark ran");
      int seen = view.charts().throughputPoints();
      Path shot = Screenshots.save(stage.getScene(), "bench-running");
      assertTrue(Files.size(shot) > 1000);
      for (XYChart.Series<Number, Number> s : view.charts().throughputChart().getData()) {
        assertTrue(s.getName().startsWith("eventual readproportion="), s.getName());
        assertTrue(s.getData().stream().anyMatch(d -> d.getYValue().doubleValue() > 0), "throughput > 0 in " + s.getName());
      }
      assertTrue(view.charts().latencyChart().getData().stream()
          .allMatch(s -> s.getData().stream().allMatch(d -> d.getYValue().doubleValue() > 0)), "latencies > 0 ms");
      WaitForAsyncUtils.waitFor(180, TimeUnit.SECONDS, () -> !view.running());
      assertTrue(view.charts().throughputPoints() >= seen);
    } finally {
      watching.set(false);
      watcher.join(5_000);
    }
    WaitForAsyncUtils.waitForFxEvents();
    Results.ExperimentResult r = view.lastResult();
    assertEquals(Results.OK, r.status(), String.valueOf(r));
    assertEquals(2, r.runs().size());
    assertTrue(r.runs().stream().allMatch(x -> x.ok() && x.throughput() > 0), r.runs().toString());
    TextField report = robot.lookup("#bench-report-path").queryAs(TextField.class);
    assertTrue(report.getText().endsWith("report.html"), report.getText());
    assertTrue(Files.isRegularFile(Path.of(report.getText())), report.getText());
    assertTrue(Path.of(report.getText()).startsWith(home.resolve("results").resolve("designer-gui-bench")));
    FlowPane pngs = robot.lookup("#bench-report-charts").queryAs(FlowPane.class);
    assertTrue(pngs.getChildren().size() >= 2, "the report's charts shown: " + pngs.getChildren().size());
    assertTrue(robot.lookup("#bench-status").queryAs(Label.class).getText().contains("ok, 2 of 2 runs ok"));
    assertFalse(children.isEmpty(), "the benchmark started server and client JVMs");
    for (long pid : children) {
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " is gone");
    }
    Screenshots.save(stage.getScene(), "bench-done");

    // log scale: the same latency points on a logarithmic axis, so the p50 lines (a fraction of a millisecond) and
    // the p99 lines (tens) both show; unticked, the linear axis again
    int latencyPoints = WaitForAsyncUtils.asyncFx(() -> view.charts().latencyPoints()).get(30, TimeUnit.SECONDS);
    robot.clickOn("#bench-latency-log");
    WaitForAsyncUtils.waitForFxEvents();
    assertTrue(WaitForAsyncUtils.asyncFx(() -> view.charts().latencyChart().getYAxis() instanceof LogAxis)
        .get(30, TimeUnit.SECONDS), "a log axis");
    assertEquals(latencyPoints, (int) WaitForAsyncUtils.asyncFx(() -> view.charts().latencyPoints()).get(30, TimeUnit.SECONDS));
    LogAxis axis = (LogAxis) view.charts().latencyChart().getYAxis();
    double min = WaitForAsyncUtils.asyncFx(() -> view.charts().latencyChart().getData().stream()
        .flatMap(s -> s.getData().stream()).mapToDouble(d -> d.getYValue().doubleValue()).min().orElseThrow())
        .get(30, TimeUnit.SECONDS);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> axis.getHeight() > 0).get());
    assertTrue(WaitForAsyncUtils.asyncFx(() -> axis.getLowerBound() <= min && axis.getLowerBound() > min / 10)
        .get(30, TimeUnit.SECONDS), "the axis starts at the decade below the lowest latency " + min);
    Screenshots.save(stage.getScene(), "bench-done-log");
    robot.clickOn("#bench-latency-log");
    WaitForAsyncUtils.waitForFxEvents();
    assertTrue(WaitForAsyncUtils.asyncFx(() -> view.charts().latencyChart().getYAxis() instanceof javafx.scene.chart.NumberAxis)
        .get(30, TimeUnit.SECONDS), "linear again");

    // the run is listed with the earlier results
    robot.clickOn("Earlier results");
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> view.results().list().getItems().size() == 1);
    assertEquals("designer-gui-bench", view.results().list().getItems().get(0).result().name());
  }

  @Test
  void showsTheExperimentFileAnotherTabWroteAndKeepsUnsavedEdits(FxRobot robot) throws Exception {
    Path file = openByTyping(robot, "shared.yaml");
    javafx.scene.control.TextArea editor = robot.lookup("#bench-editor").queryAs(javafx.scene.control.TextArea.class);
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> EXPERIMENT.equals(editor.getText()));

    // another tab writes the file and sets the property again, as the Design tab's client groups do
    String changed = EXPERIMENT.replace("threads: 2", "threads: 3");
    Files.writeString(file, changed);
    robot.interact(() -> {
      workspace.experimentFile().set(null);
      workspace.experimentFile().set(file);
    });
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> changed.equals(editor.getText()));

    // with edits of its own the editor keeps them, and says the file changed
    robot.clickOn("#bench-editor").type(KeyCode.END).write("# mine\n");
    WaitForAsyncUtils.waitForFxEvents();
    String mine = editor.getText();
    assertTrue(mine.contains("# mine"), mine);
    Files.writeString(file, EXPERIMENT);
    robot.interact(() -> {
      workspace.experimentFile().set(null);
      workspace.experimentFile().set(file);
    });
    assertEquals(mine, editor.getText());
    String said = robot.lookup("#bench-status").queryAs(Label.class).getText();
    assertTrue(said.startsWith("The experiment file changed on disk; your unsaved edits here are kept"), said);
    assertEquals(EXPERIMENT, Files.readString(file), "nothing written over the other tab's file");
  }

  @Test
  void stopEndsARunningBenchmarkAndKeepsWhatItHas(FxRobot robot) throws Exception {
    Path file = home.resolve("long.yaml");
    Files.writeString(file, """
        name: designer-gui-stop
        cluster: { datacenters: 1, partitions: 1, storage: memory }
        protocols: [eventual]
        clients: { processes: 1, threads: 2 }
        recordcount: 100
        duration: 120s
        """);
    robot.clickOn("Benchmark");
    Typing.replaceText(robot, "#bench-file", file.toString()).type(KeyCode.ENTER);
    Label validation = robot.lookup("#bench-validation").queryAs(Label.class);
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> validation.getText().startsWith("valid:"));
    Set<Long> children = ConcurrentHashMap.newKeySet();
    robot.clickOn("#bench-run");
    WaitForAsyncUtils.waitFor(120, TimeUnit.SECONDS, () -> !view.running() || view.charts().throughputPoints() >= 2);
    assertTrue(view.running(), "still running when Stop is pressed");
    ProcessHandle.current().descendants().forEach(p -> children.add(p.pid()));
    assertFalse(children.isEmpty(), "a server and a client run");
    robot.clickOn("#bench-stop");
    WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> !view.running()); // a bound, far below the 120 s run
    WaitForAsyncUtils.waitForFxEvents();
    Results.ExperimentResult r = view.lastResult();
    assertEquals(Results.INTERRUPTED, r.status());
    assertEquals(Results.INTERRUPTED, r.runs().get(0).status());
    assertTrue(Files.isRegularFile(Path.of(robot.lookup("#bench-report-path").queryAs(TextField.class).getText())),
        "the report of what was done is written");
    for (long pid : children) {
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " is gone");
    }
  }

  @Test
  void comparesTwoEarlierResultsSideBySide(FxRobot robot) throws Exception {
    Path a = earlier("getput", "20261101-100000", Map.of("eventual", 4000.0, "gentlerain", 3000.0), 800);
    Path b = earlier("getput", "20261102-100000", Map.of("eventual", 5000.0, "gentlerain", 2500.0), 1200);
    robot.clickOn("Benchmark");
    robot.clickOn("Earlier results");
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> view.results().list().getItems().size() == 2);
    // newest first
    assertEquals(b, view.results().list().getItems().get(0).dir());
    robot.clickOn(row(robot, a));
    robot.press(KeyCode.CONTROL).clickOn(row(robot, b)).release(KeyCode.CONTROL);
    assertEquals(2, view.results().list().getSelectionModel().getSelectedItems().size());
    robot.clickOn("#bench-compare");
    WaitForAsyncUtils.waitForFxEvents();

    List<ResultsBrowser.Row> rows = view.results().table().getItems();
    assertEquals(4, rows.size(), rows.toString());
    assertEquals(Set.of("getput 20261101-100000", "getput 20261102-100000"),
        Set.copyOf(rows.stream().map(ResultsBrowser.Row::result).toList()));
    ResultsBrowser.Row bEventual = rows.stream().filter(r -> r.result().endsWith("02-100000") && r.protocol().equals("eventual"))
        .findFirst().orElseThrow();
    assertEquals(5000.0, bEventual.throughput(), 1e-9);
    assertEquals(1.2, bEventual.p50Millis(), 0.01); // the recorded histogram's median, 1,200 us
    // the chart: one series per result, one bar per protocol and variation
    var chart = view.results().chart();
    assertEquals(List.of("getput 20261101-100000", "getput 20261102-100000"),
        chart.getData().stream().map(XYChart.Series::getName).sorted().toList());
    for (XYChart.Series<String, Number> s : chart.getData()) {
      assertEquals(2, s.getData().size(), s.getName());
    }
    Screenshots.save(stage.getScene(), "bench-compare");

    // p99 instead of throughput
    robot.clickOn("#bench-compare-metric").clickOn("p99 latency (ms)");
    WaitForAsyncUtils.waitForFxEvents();
    assertTrue(chart.getYAxis().getLabel().startsWith("p99"));
    List<Double> p99 = new ArrayList<>();
    chart.getData().forEach(s -> s.getData().forEach(d -> p99.add(d.getYValue().doubleValue())));
    assertTrue(p99.stream().allMatch(v -> v > 1.0 && v < 15.0), p99.toString());
  }

  /** The row of the earlier-results table that shows {@code dir}. */
  private static javafx.scene.control.TableRow<?> row(FxRobot robot, Path dir) {
    return robot.lookup("#bench-results-table .table-row-cell").queryAllAs(javafx.scene.control.TableRow.class).stream()
        .filter(r -> r.getItem() instanceof ResultsBrowser.Earlier e && e.dir().equals(dir))
        .findFirst().orElseThrow(() -> new AssertionError("no row shows " + dir));
  }

  /** An earlier result as kvlab bench writes it (results.json), with histograms of the given median latency. */
  private Path earlier(String name, String stamp, Map<String, Double> throughput, long medianMicros) throws Exception {
    Path dir = home.resolve("results").resolve(name).resolve(stamp);
    Files.createDirectories(dir);
    List<Results.RunResult> runs = new ArrayList<>();
    int i = 1;
    for (String protocol : List.of("eventual", "gentlerain")) {
      Histogram h = new Histogram(3);
      for (int k = 0; k < 1000; k++) {
        h.recordValue(k < 980 ? medianMicros : medianMicros * 8);
      }
      double t = throughput.get(protocol);
      Results.OpStats read = Aggregation.stats("READ", h, t, Map.of("OK", 1000L));
      runs.add(new Results.RunResult(i, String.format("%03d-%s-1", i, protocol), protocol, Map.of(), 1, Results.OK,
          null, "2026-11-01T10:00:00Z", 1, 2, 10, 5, t, 1000, List.of(read), Map.of(), List.of(), List.of()));
      i++;
    }
    Results.ExperimentResult r = new Results.ExperimentResult(name, "experiments/" + name + ".yaml", Results.OK,
        "2026-11-01T10:00:00Z", "2026-11-01T10:01:00Z", dir.toString(), null, List.of("eventual", "gentlerain"), 2,
        new Results.Environment("kvlab bench", home.toString(), "17", "vendor", "Linux", 2, 4096, "abc", "kvlab 0.1.0"),
        Map.of(), runs);
    Reports.writeJson(r, dir);
    return dir;
  }
}
