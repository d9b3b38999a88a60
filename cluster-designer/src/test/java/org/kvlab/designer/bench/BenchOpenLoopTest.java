package org.kvlab.designer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javafx.scene.Scene;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Label;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.FlowPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.kvlab.designer.MainWindow;
import org.kvlab.designer.Workspace;
import org.kvlab.designer.testing.Screenshots;
import org.kvlab.designer.testing.Typing;
import org.kvlab.openloop.OpenLoopBench;
import org.kvlab.runtime.LoopbackPorts;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Open-loop experiments ({@code mode: open-loop}, docs/bench.md) from the Benchmark tab, as a person runs them:
 * open the file by typing its path, Run, watch each offered rate's point appear in the charts while the sweep goes
 * on, get the knee, the result files and their charts at the end, and no process left; switch the latency axis to
 * a log scale and back; Stop during a sweep stops its cluster and writes the points measured, which Earlier results
 * lists and compares.
 */
@ExtendWith(ApplicationExtension.class)
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class BenchOpenLoopTest {
  private Workspace workspace;
  private Stage stage;
  private BenchView view;
  private Path home;

  @Start
  void start(Stage stage) throws Exception {
    this.stage = stage;
    home = Files.createTempDirectory("kvlab-benchopenloop");
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

  /** One Eventual server in memory on a free loopback port, and an open-loop experiment offering it {@code rates}. */
  private Path experiment(String name, String rates, String duration) throws Exception {
    return experiment(home, name, "-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1", "rates: " + rates
        + "\nwarmup: 1s\nduration: " + duration + "\np99bound: 50ms\nsessions: 4\nrecords: 100\n");
  }

  /**
   * Under {@code home}: one Eventual server in memory on a free loopback port ({@code openloop/NAME-eventual-1.yaml}),
   * and the open-loop experiment {@code experiments/NAME.yaml} sweeping it with {@code sweep} (rates, windows...).
   */
  static Path experiment(Path home, String name, String jvm, String sweep) throws Exception {
    Path cluster = home.resolve("openloop").resolve(name + "-eventual-1.yaml");
    Files.createDirectories(cluster.getParent());
    Files.writeString(cluster, "name: " + name + "-eventual-1\nprotocol: eventual\ndatacenters: 1\npartitions: 1\n"
        + "servers:\n  - { id: 0_0, host: 127.0.0.1, port: " + LoopbackPorts.freeBlock(1) + " }\n"
        + "storage: { engine: memory, durability: none }\n"
        + "security: { secretFile: '" + home.resolve(name + ".secret") + "' }\n");
    Path file = home.resolve("experiments").resolve(name + ".yaml");
    Files.createDirectories(file.getParent());
    Files.writeString(file, """
        # a short open-loop sweep of one Eventual server
        mode: open-loop
        name: %s
        clusters: [../openloop/%s-eventual-1.yaml]
        jvm: %s
        """.formatted(name, name, jvm) + sweep);
    return file;
  }

  private static <T> T onFx(Callable<T> c) throws Exception {
    return WaitForAsyncUtils.asyncFx(c).get(30, TimeUnit.SECONDS);
  }

  private void openByTyping(FxRobot robot, String path) throws Exception {
    robot.clickOn("#tab-benchmark");
    Typing.replaceText(robot, "#bench-file", path).type(KeyCode.ENTER);
    Label validation = robot.lookup("#bench-validation").queryAs(Label.class);
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> onFx(validation::getText).startsWith("valid:"));
  }

  /** Every child process of this JVM seen while {@code running} holds (the servers a sweep starts). */
  private static Thread watchChildren(Set<Long> children, AtomicBoolean running) {
    Thread watcher = new Thread(() -> {
      while (running.get()) {
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
    return watcher;
  }

  private static void allGone(Set<Long> pids) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (pids.stream().anyMatch(p -> ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false))
        && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    for (long p : pids) {
      assertFalse(ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false), "process " + p + " is gone");
    }
  }

  private static List<double[]> points(XYChart.Series<Number, Number> s) {
    List<double[]> out = new ArrayList<>();
    for (XYChart.Data<Number, Number> d : s.getData()) {
      out.add(new double[] {d.getXValue().doubleValue(), d.getYValue().doubleValue()});
    }
    return out;
  }

  @Test
  void runsAnOpenLoopSweepWithLiveChartsAndSwitchesTheLatencyAxisToALogScale(FxRobot robot) throws Exception {
    Path file = experiment("gui-openloop", "[200, 500, 1000]", "2s");
    openByTyping(robot, "experiments/gui-openloop.yaml");
    Label validation = robot.lookup("#bench-validation").queryAs(Label.class);
    assertEquals("valid: gui-openloop, open loop: 1 cluster(s) x 3 rates = 3 points", onFx(validation::getText));
    assertTrue(onFx(() -> robot.lookup("#bench-runs").queryAs(Label.class).getText())
        .contains("rates (requests/s): 200, 500, 1000"));
    assertEquals(file, workspace.experimentFile().get());

    Set<Long> children = ConcurrentHashMap.newKeySet();
    AtomicBoolean watching = new AtomicBoolean(true);
    Thread watcher = watchChildren(children, watching);
    LiveCharts charts = view.charts();
    try {
      robot.clickOn("#bench-run");
      // live: a rate's point is drawn while the sweep goes on (the next rates take seconds more each)
      WaitForAsyncUtils.waitFor(150, TimeUnit.SECONDS, () -> onFx(() -> charts.throughputPoints() >= 1 || !view.running()));
      assertTrue(onFx(() -> view.running() && charts.throughputPoints() >= 1 && charts.throughputPoints() < 3),
          "a point drawn while the sweep runs; points: " + onFx(charts::throughputPoints));
      assertTrue(onFx(charts::latencyPoints) >= 2, "p50 and p99 of the first rate");
      Screenshots.save(stage.getScene(), "bench-openloop-running");
      WaitForAsyncUtils.waitFor(150, TimeUnit.SECONDS, () -> !onFx(view::running));
    } finally {
      watching.set(false);
      watcher.join(5_000);
    }
    String status = onFx(() -> robot.lookup("#bench-status").queryAs(Label.class).getText());
    OpenLoopBench.Report report = view.lastOpenLoop();
    assertTrue(report != null, "finished: " + status);
    assertEquals(3, report.points().size(), report.points().toString());
    assertTrue(status.startsWith("gui-openloop: open loop done, 3 points; knee (p99 <= 50.0 ms): eventual "), status);
    for (String f : List.of("openloop.json", "openloop.csv", "latency-throughput.png", "throughput-over-time.png")) {
      assertTrue(Files.size(report.directory().resolve(f)) > 0, f);
    }
    FlowPane shown = robot.lookup("#bench-report-charts").queryAs(FlowPane.class);
    assertEquals(2, onFx(() -> shown.getChildren().size()), "the two charts of the sweep");

    // the charts hold the report's figures: achieved against offered, p50 and p99 against achieved
    List<XYChart.Series<Number, Number>> tput = onFx(() -> List.copyOf(charts.throughputChart().getData()));
    assertEquals(1, tput.size());
    List<double[]> offered = onFx(() -> points(tput.get(0)));
    assertEquals(List.of(200.0, 500.0, 1000.0), offered.stream().map(p -> p[0]).toList());
    for (int i = 0; i < 3; i++) {
      assertEquals(report.points().get(i).achievedOpsPerSec(), offered.get(i)[1], 1e-9);
    }
    LineChart<Number, Number> linear = onFx(charts::latencyChart);
    assertInstanceOf(NumberAxis.class, linear.getYAxis());
    List<XYChart.Series<Number, Number>> lat = onFx(() -> List.copyOf(linear.getData()));
    assertEquals(List.of("eventual p50", "eventual p99"), lat.stream().map(XYChart.Series::getName).toList());
    List<double[]> p50 = onFx(() -> points(lat.get(0)));
    List<double[]> p99 = onFx(() -> points(lat.get(1)));
    for (int i = 0; i < 3; i++) {
      assertEquals(report.points().get(i).p50() / 1000.0, p50.get(i)[1], 1e-9);
      assertTrue(p99.get(i)[1] >= p50.get(i)[1], "p99 >= p50 at rate " + i);
    }
    allGone(children);
    assertTrue(children.size() >= 1, "the sweep started its server: " + children);

    // log scale: the same points on a logarithmic latency axis, p99 drawn above p50, decades equally tall
    robot.clickOn("#bench-latency-log");
    WaitForAsyncUtils.waitForFxEvents();
    LineChart<Number, Number> log = onFx(charts::latencyChart);
    assertInstanceOf(LogAxis.class, log.getYAxis());
    LogAxis axis = (LogAxis) log.getYAxis();
    assertEquals(6, onFx(charts::latencyPoints));
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> onFx(() -> axis.getHeight() > 0));
    double lower = onFx(axis::getLowerBound);
    double upper = onFx(axis::getUpperBound);
    double min = p50.stream().mapToDouble(p -> p[1]).min().orElseThrow();
    double max = p99.stream().mapToDouble(p -> p[1]).max().orElseThrow();
    assertTrue(lower <= min && max <= upper, lower + " <= " + min + ", " + max + " <= " + upper);
    assertEquals(0, Math.log10(lower) % 1, 1e-9, "whole decades: " + lower);
    assertEquals(0, Math.log10(upper) % 1, 1e-9, "whole decades: " + upper);
    double h = onFx(axis::getHeight);
    assertEquals(h, onFx(() -> axis.getDisplayPosition(lower)), 1e-6);
    assertEquals(0, onFx(() -> axis.getDisplayPosition(upper)), 1e-6);
    double decade = onFx(() -> axis.getDisplayPosition(lower) - axis.getDisplayPosition(lower * 10));
    double nextDecade = onFx(() -> axis.getDisplayPosition(lower * 10) - axis.getDisplayPosition(lower * 100));
    assertEquals(decade, nextDecade, 1e-6, "each decade the same height");
    assertEquals(h / Math.log10(upper / lower), decade, 1e-6);
    for (int i = 0; i < 3; i++) {
      int at = i;
      double y50 = onFx(() -> axis.getDisplayPosition(p50.get(at)[1]));
      double y99 = onFx(() -> axis.getDisplayPosition(p99.get(at)[1]));
      assertTrue(y99 <= y50, "p99 above p50");
    }
    List<Double> ticks = onFx(() -> axis.getTickMarks().stream().map(t -> t.getValue().doubleValue()).toList());
    assertTrue(ticks.stream().anyMatch(t -> Math.abs(t - lower * 10) < 1e-9 * lower), "a tick at each decade: " + ticks);
    assertEquals(List.of("0.001", "0.5", "1", "20", "5,000"), List.of(axis.getTickMarkLabel(0.001),
        axis.getTickMarkLabel(0.5), axis.getTickMarkLabel(1.0), axis.getTickMarkLabel(20.0), axis.getTickMarkLabel(5000.0)));
    Screenshots.save(stage.getScene(), "bench-openloop-log");

    robot.clickOn("#bench-latency-log");
    WaitForAsyncUtils.waitForFxEvents();
    assertInstanceOf(NumberAxis.class, onFx(charts::latencyChart).getYAxis());
    assertEquals(6, onFx(charts::latencyPoints));
  }

  @Test
  void stopDuringAnOpenLoopSweepStopsItsClusterWritesThePointsMeasuredAndListsThemAsEarlierResults(FxRobot robot)
      throws Exception {
    // eight rates of 2 s: Stop comes after the first point, long before the last (each takes 3 s with its warm-up)
    experiment("gui-openloop-stop", "[200, 300, 400, 500, 600, 700, 800, 900]", "2s");
    openByTyping(robot, "experiments/gui-openloop-stop.yaml");
    Set<Long> children = ConcurrentHashMap.newKeySet();
    AtomicBoolean watching = new AtomicBoolean(true);
    Thread watcher = watchChildren(children, watching);
    LiveCharts charts = view.charts();
    Label status = robot.lookup("#bench-status").queryAs(Label.class);
    try {
      robot.clickOn("#bench-run");
      WaitForAsyncUtils.waitFor(150, TimeUnit.SECONDS, () -> onFx(() -> charts.throughputPoints() >= 1 || !view.running()));
      assertTrue(onFx(view::running), onFx(status::getText));
      robot.clickOn("#bench-stop");
      WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> !onFx(view::running));
    } finally {
      watching.set(false);
      watcher.join(5_000);
    }
    allGone(children);
    String said = onFx(status::getText);
    OpenLoopBench.Report partial = view.lastOpenLoop();
    assertTrue(partial != null, "the points measured before Stop are a result: " + said);
    int n = partial.points().size();
    assertTrue(n >= 1 && n < 8, n + " points");
    assertTrue(said.startsWith("gui-openloop-stop: open loop stopped after " + n + " of 8 points; the cluster was"
        + " stopped; the " + n + " points measured are written; knee (p99 <= 50.0 ms): eventual "), said);
    OpenLoopBench.Written written = OpenLoopBench.read(partial.directory().resolve("openloop.json"));
    assertEquals("stopped", written.status());
    assertEquals(8, written.pointsPlanned());
    assertEquals(partial.points().stream().map(OpenLoopBench.Point::targetRate).toList(),
        written.points().stream().map(OpenLoopBench.Point::targetRate).toList());
    for (String f : List.of("openloop.csv", "latency-throughput.png", "throughput-over-time.png")) {
      assertTrue(Files.size(partial.directory().resolve(f)) > 0, f);
    }

    // Earlier results lists the sweep (stopped, n of 8 points), and compares its points as a result's runs
    robot.clickOn("Earlier results");
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> onFx(() -> view.results().list().getItems().stream()
        .anyMatch(e -> e.dir().equals(partial.directory()))));
    ResultsBrowser.Earlier listed = onFx(() -> view.results().list().getItems().stream()
        .filter(e -> e.dir().equals(partial.directory())).findFirst().orElseThrow());
    assertEquals("stopped", listed.status());
    assertEquals(List.of(n, 8), List.of(listed.runs(), listed.runsPlanned()));
    assertEquals(List.of("eventual"), listed.protocols());
    assertEquals(partial.directory().resolve("latency-throughput.svg"), listed.report());
    onFx(() -> {
      view.results().list().getSelectionModel().clearSelection();
      view.results().list().getSelectionModel().select(listed);
      view.results().compare();
      return null;
    });
    List<ResultsBrowser.Row> rows = onFx(() -> List.copyOf(view.results().table().getItems()));
    assertEquals(n, rows.size(), rows.toString());
    for (int i = 0; i < n; i++) {
      OpenLoopBench.Point p = partial.points().get(i);
      ResultsBrowser.Row r = rows.get(i);
      assertEquals(String.format(java.util.Locale.ROOT, "offered %,.0f/s", p.targetRate()), r.variation());
      assertEquals(p.achievedOpsPerSec(), r.throughput(), 1e-9);
      assertEquals(p.p50() / 1000.0, r.p50Millis(), 1e-9);
    }
    Screenshots.save(stage.getScene(), "bench-openloop-earlier");
  }
}
