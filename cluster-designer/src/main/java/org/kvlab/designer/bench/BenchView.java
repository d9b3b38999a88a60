package org.kvlab.designer.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import javafx.animation.PauseTransition;
import javafx.application.Platform;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.collections.FXCollections;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.image.Image;
import javafx.scene.image.ImageView;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.stage.Stage;
import org.kvlab.designer.DesignerView;
import org.kvlab.designer.Workspace;
import org.kvlab.experiment.Experiment;
import org.kvlab.experiment.ExperimentListener;
import org.kvlab.openloop.OpenLoopBench;
import org.kvlab.openloop.OpenLoopExperiment;
import org.kvlab.config.ConfigException;
import javafx.scene.control.CheckBox;
import org.kvlab.experiment.ExperimentRunner;
import org.kvlab.experiment.Results;
import org.kvlab.designer.deploy.BackendChoice;

/**
 * The "Benchmark" tab: edit an experiment file (YAML, checked live by kvlab's experiment loader, with the
 * CLI's messages), run it through the cluster-manager library's {@link ExperimentRunner} (what {@code kvlab bench}
 * runs) where the user picks ({@link BackendChoice}: this machine, SSH hosts, EC2 instances made for it after the
 * cost is confirmed, or the cluster running in the Deploy tab; see {@link BenchLaunch}; open-loop sweeps on all but the
 * last, which they cannot use as they start their clusters themselves), watch throughput and p50/p99 latency per run
 * (open loop: each offered rate's point) while it runs, stop it, see
 * the report's charts when it is done; and list, open and compare earlier results.
 */
public final class BenchView implements DesignerView {
  static final String TEMPLATE = """
      # A small YCSB experiment (format: docs/bench.md). Save, then Run.
      name: my-experiment
      cluster:
        datacenters: 1
        partitions: 2
        storage: memory
      protocols: [eventual]
      workload:
        fieldcount: 1
        fieldlength: 64
        requestdistribution: zipfian
      clients:
        processes: 1
        threads: 4
      recordcount: 1000
      duration: 10s
      warmup: 2s
      """;

  private final Workspace workspace;
  private final Stage stage;
  private final BorderPane root = new BorderPane();
  private final TextField fileField = new TextField();
  private final ComboBox<String> examples = new ComboBox<>();
  private final TextArea editor = new TextArea();
  private final Label validation = new Label();
  private final Label runsLabel = new Label();
  private final Label status = new Label("Pick or write an experiment, save it, and press Run.");
  private final ListView<String> log = new ListView<>();
  private final LiveCharts charts = new LiveCharts();
  private final ComboBox<String> latencyOp = new ComboBox<>(charts.operations());
  private final TextField reportPath = new TextField();
  private final FlowPane reportCharts = new FlowPane(8, 8);
  private final ResultsBrowser results;
  private final TabPane inner = new TabPane();
  private final BooleanProperty running = new SimpleBooleanProperty(false);
  private final BooleanProperty dirty = new SimpleBooleanProperty(false);
  private final PauseTransition recheck = new PauseTransition(javafx.util.Duration.millis(300));
  private final AtomicLong checkSeq = new AtomicLong();
  private Path file;
  private volatile ExperimentCheck check;
  private volatile ExperimentRunner runner;
  private volatile Results.ExperimentResult lastResult;
  /** The thread running an open-loop sweep (an interrupt stops it), or null. */
  private volatile Thread openLoopThread;
  private volatile java.util.concurrent.CountDownLatch openLoopDone;
  private volatile OpenLoopBench.Report lastOpenLoop;
  /** Stop was pressed (or the window closes) during the open-loop sweep. */
  private volatile boolean openLoopStopping;
  /** The benchmark running (or last run) is an open-loop sweep. */
  private volatile boolean openLoopRunning;
  /** ... on SSH hosts or EC2 instances (the launch made them). */
  private volatile boolean openLoopRemote;
  private final CheckBox logScale = new CheckBox("log scale");
  private final BackendChoice backendChoice;
  private final BenchLaunch launch;
  private boolean loading;

  public BenchView(Workspace workspace, Stage stage) {
    this.workspace = workspace;
    this.stage = stage;
    this.results = new ResultsBrowser(workspace, this::openReport);
    this.backendChoice = new BackendChoice(workspace, stage, "bench-",
        "One JVM per server and per YCSB client, on loopback (kvlab bench).",
        "The instances come from the ec2: section of the design's cluster file (Design tab; docs/ec2.md), sized for"
            + " the experiment's cluster; you see the cost and confirm before anything is created, and they are"
            + " deleted when the benchmark ends or is stopped.", true);
    this.launch = new BenchLaunch(workspace, backendChoice, new LaunchUi());
    build();
    listExamples();
    results.refresh();
    workspace.experimentFile().addListener((o, a, f) -> experimentFileSet(f));
  }

  /**
   * Another tab made {@code f} the experiment file, or wrote it (the Design tab's client groups set the property
   * again after each write): the editor shows what is on disk, unless it holds edits of its own, which are kept (a
   * save here would otherwise write the old text back over the other tab's change).
   */
  private void experimentFileSet(Path f) {
    if (f == null || loading || running.get()) {
      return;
    }
    Path p = f.toAbsolutePath().normalize();
    if (dirty.get()) {
      status.setText((p.equals(file) ? "The experiment file changed on disk" : "Another tab chose " + p)
          + "; your unsaved edits here are kept. Save them, or open the file again to see its text.");
      return;
    }
    String onDisk;
    try {
      onDisk = Files.readString(p, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return; // open() would say why; a tab that sets a file it cannot read says so itself
    }
    if (p.equals(file) && onDisk.equals(editor.getText())) {
      return; // already shown (also: open() below setting the property again)
    }
    open(p);
  }

  @Override
  public String title() {
    return "Benchmark";
  }

  @Override
  public Node node() {
    return root;
  }

  // ---------------------------------------------------------------------------------------------
  // Layout

  private void build() {
    fileField.setId("bench-file");
    fileField.setPromptText("experiment file, e.g. experiments/smoke.yaml (Enter opens it)");
    fileField.setPrefColumnCount(34);
    fileField.setOnAction(ev -> open(resolve(fileField.getText())));
    Button open = button("Open", "bench-open", ev -> open(resolve(fileField.getText())));
    Button browse = button("Browse...", "bench-browse", ev -> browse());
    examples.setId("bench-examples");
    examples.setPromptText("examples");
    examples.setOnAction(ev -> {
      if (examples.getValue() != null && !loading) {
        open(resolve(examples.getValue()));
      }
    });
    Button create = button("New", "bench-new", ev -> newExperiment());
    Button save = button("Save", "bench-save", ev -> save());
    Button useDesign = button("Use the design's cluster", "bench-use-design", ev -> useDesignCluster());
    useDesign.disableProperty().bind(workspace.clusterFile().isNull());
    Label designHint = new Label("(save the design first)");
    designHint.visibleProperty().bind(workspace.clusterFile().isNull());
    HBox top = new HBox(6, new Label("Experiment"), fileField, open, browse, examples, create, save, useDesign, designHint);
    top.setAlignment(Pos.CENTER_LEFT);
    VBox head = new VBox(4, top, backendChoice.selector(), backendChoice.options());
    head.setPadding(new Insets(6));
    backendChoice.selector().disableProperty().bind(running);
    backendChoice.options().disableProperty().bind(running);

    editor.setId("bench-editor");
    editor.setStyle("-fx-font-family: 'monospace'; -fx-font-size: 12px;");
    editor.setPrefColumnCount(48);
    editor.textProperty().addListener((o, a, b) -> {
      if (!loading) {
        dirty.set(true);
      }
      recheck.playFromStart();
    });
    recheck.setOnFinished(ev -> validate());
    validation.setId("bench-validation");
    validation.setWrapText(true);
    validation.setMaxWidth(Double.MAX_VALUE);
    validation.setOnMouseClicked(ev -> goToProblem());
    runsLabel.setId("bench-runs");
    runsLabel.setWrapText(true);
    runsLabel.setStyle("-fx-font-family: 'monospace'; -fx-font-size: 11px;");
    VBox left = new VBox(6, editor, validation, runsLabel);
    VBox.setVgrow(editor, Priority.ALWAYS);
    left.setPadding(new Insets(0, 4, 6, 6));
    left.setMinWidth(320);

    Button run = button("Run", "bench-run", ev -> run());
    run.disableProperty().bind(running);
    run.setStyle("-fx-font-weight: bold;");
    Button stop = button("Stop", "bench-stop", ev -> stop());
    stop.disableProperty().bind(running.not());
    latencyOp.setId("bench-latency-op");
    latencyOp.setValue(ExperimentListener.Interval.ALL);
    latencyOp.valueProperty().addListener((o, a, b) -> charts.showOperation(b));
    status.setId("bench-status");
    status.setWrapText(true);
    Label latencyOf = new Label("latency of");
    ComboBox<String> percentiles = new ComboBox<>(FXCollections.observableArrayList(LiveCharts.PERCENTILES));
    percentiles.setId("bench-percentiles");
    percentiles.setValue(LiveCharts.PERCENTILES.get(0));
    percentiles.valueProperty().addListener((o, a, b) -> charts.showPercentiles(b));
    logScale.setId("bench-latency-log");
    logScale.setTooltip(new javafx.scene.control.Tooltip("Latency axis on a logarithmic scale (p50 and p99 can be"
        + " orders of magnitude apart)"));
    logScale.selectedProperty().addListener((o, a, b) -> charts.setLogScale(b));
    for (javafx.scene.control.Control c : List.of(run, stop, latencyOf, latencyOp, percentiles, logScale)) {
      c.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
    }
    HBox runBar = new HBox(8, run, stop, latencyOf, latencyOp, percentiles, logScale, status);
    runBar.setAlignment(Pos.CENTER_LEFT);
    status.setMinWidth(0);
    status.setMaxWidth(Double.MAX_VALUE);
    HBox.setHgrow(status, Priority.ALWAYS);
    log.setId("bench-log");
    log.setPrefHeight(90);
    log.setMinHeight(60);
    HBox chartRow = new HBox(6, charts.throughputChart(), charts.latencyPane());
    HBox.setHgrow(charts.throughputChart(), Priority.ALWAYS);
    HBox.setHgrow(charts.latencyPane(), Priority.ALWAYS);
    charts.throughputChart().setPrefWidth(400);
    charts.latencyPane().setPrefWidth(400);
    reportPath.setId("bench-report-path");
    reportPath.setEditable(false);
    reportPath.setPromptText("the report appears here when the benchmark is done");
    HBox.setHgrow(reportPath, Priority.ALWAYS);
    Button openReport = button("Open report", "bench-open-report", ev -> openReport(Path.of(reportPath.getText())));
    openReport.disableProperty().bind(reportPath.textProperty().isEmpty());
    HBox reportBar = new HBox(6, new Label("Report"), reportPath, openReport);
    reportBar.setAlignment(Pos.CENTER_LEFT);
    reportCharts.setId("bench-report-charts");
    reportCharts.setPadding(new Insets(4));
    ScrollPane reportScroll = new ScrollPane(reportCharts);
    reportScroll.setFitToWidth(true);
    reportScroll.setPrefHeight(190);
    reportScroll.setMinHeight(120);
    VBox live = new VBox(6, runBar, log, chartRow, reportBar, reportScroll);
    VBox.setVgrow(chartRow, Priority.ALWAYS);
    live.setPadding(new Insets(6));

    Tab liveTab = new Tab("Live run", live);
    liveTab.setId("bench-tab-live");
    Tab resultsTab = new Tab("Earlier results", results.node());
    resultsTab.setId("bench-tab-results");
    inner.getTabs().addAll(liveTab, resultsTab);
    inner.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
    inner.setId("bench-tabs");
    inner.getSelectionModel().selectedItemProperty().addListener((o, a, b) -> {
      if (b == resultsTab) {
        results.refresh();
      }
    });

    SplitPane split = new SplitPane(left, inner);
    split.setOrientation(Orientation.HORIZONTAL);
    split.setDividerPositions(0.33);
    root.setTop(head);
    root.setCenter(split);
    editor.setText(TEMPLATE);
    dirty.set(true);
  }

  private static Button button(String text, String id, javafx.event.EventHandler<javafx.event.ActionEvent> action) {
    Button b = new Button(text);
    b.setId(id);
    b.setOnAction(action);
    return b;
  }

  // ---------------------------------------------------------------------------------------------
  // The experiment file

  private Path resolve(String text) {
    Path p = Path.of(text.strip());
    return p.isAbsolute() ? p : workspace.home().resolve(p);
  }

  private void listExamples() {
    Path dir = workspace.home().resolve("experiments");
    List<String> names = new ArrayList<>();
    if (Files.isDirectory(dir)) {
      try (Stream<Path> files = Files.list(dir)) {
        files.filter(p -> p.getFileName().toString().endsWith(".yaml")).sorted()
            .forEach(p -> names.add(workspace.home().relativize(p).toString()));
      } catch (IOException e) {
        workspace.log("benchmark: cannot list " + dir + ": " + e.getMessage());
      }
    }
    examples.setItems(FXCollections.observableArrayList(names));
  }

  /** Opens an experiment file into the editor. */
  void open(Path path) {
    if (running.get()) {
      status.setText("A benchmark is running: stop it before opening another experiment.");
      return;
    }
    String text;
    try {
      text = Files.readString(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      validation.setText("kvlab: cannot read " + path + ": " + e.getMessage()
          + ". Fix: give an existing experiment file (examples are in experiments/)");
      validation.setStyle("-fx-text-fill: #b00020;");
      return;
    }
    file = path.toAbsolutePath().normalize();
    loading = true;
    try {
      fileField.setText(display(file));
      editor.setText(text);
    } finally {
      loading = false;
    }
    dirty.set(false);
    workspace.experimentFile().set(file);
    validate();
  }

  private String display(Path p) {
    Path home = workspace.home().toAbsolutePath().normalize();
    return p.startsWith(home) ? home.relativize(p).toString() : p.toString();
  }

  private void browse() {
    FileChooser chooser = new FileChooser();
    chooser.setTitle("Open an experiment file");
    chooser.getExtensionFilters().add(new FileChooser.ExtensionFilter("experiment files (*.yaml)", "*.yaml", "*.yml"));
    Path dir = file != null ? file.getParent() : workspace.home().resolve("experiments");
    if (Files.isDirectory(dir)) {
      chooser.setInitialDirectory(dir.toFile());
    }
    java.io.File picked = chooser.showOpenDialog(stage);
    if (picked != null) {
      open(picked.toPath());
    }
  }

  private void newExperiment() {
    if (running.get()) {
      return;
    }
    file = null;
    loading = true;
    try {
      fileField.setText("experiments/my-experiment.yaml");
      editor.setText(TEMPLATE);
    } finally {
      loading = false;
    }
    dirty.set(true);
    validate();
  }

  /** Saves the editor to the path in the file field. */
  boolean save() {
    if (fileField.getText().isBlank()) {
      status.setText("Type where to save the experiment in the file field (e.g. experiments/mine.yaml), then Save.");
      return false;
    }
    Path target = resolve(fileField.getText()).toAbsolutePath().normalize();
    try {
      if (target.getParent() != null) {
        Files.createDirectories(target.getParent());
      }
      Files.writeString(target, editor.getText(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      status.setText("Cannot save " + target + ": " + e.getMessage() + ". Fix: choose a writable place.");
      return false;
    }
    file = target;
    fileField.setText(display(target));
    dirty.set(false);
    workspace.experimentFile().set(target);
    workspace.log("benchmark: saved " + target);
    listExamples();
    validate();
    return true;
  }

  /** Points the experiment's {@code cluster:} at the design's saved cluster file (a template, docs/bench.md). */
  private void useDesignCluster() {
    Path cluster = workspace.clusterFile().get();
    if (cluster == null) {
      return;
    }
    editor.setText(withClusterFile(editor.getText(), display(cluster.toAbsolutePath().normalize())));
  }

  /** {@code yaml} with its top-level {@code cluster:} block replaced by {@code cluster: { file: F }}. */
  static String withClusterFile(String yaml, String clusterFile) {
    List<String> out = new ArrayList<>();
    String entry = "cluster: { file: " + clusterFile + " }";
    boolean inCluster = false;
    boolean replaced = false;
    for (String line : yaml.split("\n", -1)) {
      if (inCluster) {
        if (line.isEmpty() || line.startsWith(" ") || line.startsWith("\t")) {
          continue;
        }
        inCluster = false;
      }
      if (line.startsWith("cluster:")) {
        out.add(entry);
        inCluster = true;
        replaced = true;
        continue;
      }
      out.add(line);
    }
    if (!replaced) {
      int at = 0;
      for (int i = 0; i < out.size(); i++) {
        if (out.get(i).startsWith("name:")) {
          at = i + 1;
        }
      }
      out.add(at, entry);
    }
    return String.join("\n", out);
  }

  private void validate() {
    String text = editor.getText();
    Path f = file;
    long seq = checkSeq.incrementAndGet();
    inBackground(workspace, () -> {
      ExperimentCheck c = ExperimentCheck.of(text, f);
      Platform.runLater(() -> {
        if (seq == checkSeq.get()) {
          showCheck(c);
        }
      });
    });
  }

  private void showCheck(ExperimentCheck c) {
    check = c;
    if (c.openLoop() != null) {
      OpenLoopExperiment e = c.openLoop();
      int n = e.clusters().size() * e.rates().size();
      validation.setText("valid: " + e.name() + ", open loop: " + e.clusters().size() + " cluster(s) x "
          + e.rates().size() + " rates = " + n + " points" + (dirty.get() ? "; not saved yet" : ""));
      validation.setStyle("-fx-text-fill: #1b5e20;");
      runsLabel.setText(ExperimentCheck.runList(e));
    } else if (c.ok()) {
      Experiment e = c.experiment();
      int n = e.runs().size();
      validation.setText("valid: " + e.name() + ", " + n + " run" + (n == 1 ? "" : "s") + " ("
          + String.join(", ", e.protocols()) + ")" + (dirty.get() ? "; not saved yet" : ""));
      validation.setStyle("-fx-text-fill: #1b5e20;");
      String list = ExperimentCheck.runList(e);
      runsLabel.setText(n > 12 ? String.join("\n", list.lines().limit(12).toList()) + "\n... " + (n - 12) + " more" : list);
    } else {
      validation.setText(c.message() + (c.line() > 0 ? "  (click to go to line " + c.line() + ")" : ""));
      validation.setStyle("-fx-text-fill: #b00020;");
      runsLabel.setText("");
    }
  }

  /** The latest check of the editor's text (null before the first). */
  ExperimentCheck check() {
    return check;
  }

  private void goToProblem() {
    ExperimentCheck c = check;
    if (c == null || c.line() <= 0) {
      return;
    }
    String text = editor.getText();
    int offset = 0;
    for (int l = 1; l < c.line() && offset >= 0; l++) {
      offset = text.indexOf('\n', offset) + 1;
      if (offset == 0) {
        offset = text.length();
        break;
      }
    }
    int end = text.indexOf('\n', offset);
    editor.requestFocus();
    editor.selectRange(offset, end < 0 ? text.length() : end);
  }

  // ---------------------------------------------------------------------------------------------
  // Running

  /** Saves the experiment if needed, checks it, and runs it in the background. */
  void run() {
    if (running.get()) {
      return;
    }
    if ((dirty.get() || file == null) && !save()) {
      return;
    }
    ExperimentCheck c = ExperimentCheck.of(editor.getText(), file);
    showCheck(c);
    if (!c.ok()) {
      status.setText("Not run: the experiment has a problem (see below the editor).");
      return;
    }
    if (c.openLoop() != null) {
      if (backendChoice.choice().backend().equals(BackendChoice.DEPLOYED)) {
        status.setText("Not run: an open-loop sweep starts each of its clusters itself, so it cannot use the cluster"
            + " running in the Deploy tab. Fix: pick 'This machine', 'SSH hosts' or 'EC2' under 'Run on'");
        return;
      }
      runOpenLoop(c.openLoop());
      return;
    }
    Experiment e = c.experiment();
    openLoopRunning = false;
    charts.openLoop(false);
    latencyOp.setDisable(false);
    lastOpenLoop = null;
    latencyOp.setValue(ExperimentListener.Interval.ALL);
    reportPath.clear();
    reportCharts.getChildren().clear();
    log.getItems().clear();
    lastResult = null;
    ExperimentRunner.Options options = ExperimentRunner.Options.defaults()
        .withOutputRoot(results.resultsRoot())
        .withProgress(line -> {
          Platform.runLater(() -> status.setText(line));
          if (!line.contains(" ops/s (sum of ")) { // a stage (deploying, loading, collecting...), not the ticker
            logLine(line);
          }
        })
        .withLog(new PrintStream(new LineStream(this::logLine), true, StandardCharsets.UTF_8))
        .withCommand("kvlab designer: benchmark " + display(file));
    ExperimentListener live = new ExperimentListener() {
      @Override
      public void interval(Interval interval) {
        Platform.runLater(() -> charts.add(interval));
      }

      @Override
      public void runStarted(Experiment.Run run, int total) {
        logLine("run " + run.index() + "/" + total + " " + LiveCharts.label(run) + ": starting");
      }
    };
    BackendChoice.Choice where = backendChoice.choice();
    running.set(true);
    inner.getSelectionModel().select(0);
    status.setText("Starting " + e.name() + " (" + e.runs().size() + " runs) " + BenchLaunch.where(where) + "...");
    workspace.log("benchmark: running " + display(file) + " " + BenchLaunch.where(where));
    if (!launch.start(e, where, options, live)) {
      running.set(false);
    }
  }

  /** What the launch tells the tab, from any thread. */
  private final class LaunchUi implements BenchLaunch.Ui {
    @Override
    public void status(String line) {
      Platform.runLater(() -> status.setText(line));
    }

    @Override
    public void log(String line) {
      logLine(line);
    }

    @Override
    public void runner(ExperimentRunner r) {
      runner = r;
    }

    @Override
    public void finished(ExperimentRunner r, Results.ExperimentResult result, String failure) {
      Platform.runLater(() -> BenchView.this.finished(r, result, failure));
    }

    @Override
    public void cancelled(String why) {
      Platform.runLater(() -> {
        running.set(false);
        status.setText(why);
        logLine(why);
      });
    }
  }

  /**
   * Runs an open-loop experiment (docs/bench.md, "Open-loop latency-throughput curves") as {@code kvlab bench}
   * does, through the library's OpenLoopBench: each rate's point is drawn as soon as it is measured.
   */
  private void runOpenLoop(OpenLoopExperiment e) {
    charts.openLoop(true);
    latencyOp.setDisable(true); // one latency per point: reads and puts together, as the CLI's chart
    reportPath.clear();
    reportCharts.getChildren().clear();
    log.getItems().clear();
    lastResult = null;
    lastOpenLoop = null;
    running.set(true);
    inner.getSelectionModel().select(0);
    int total = e.clusters().size() * e.rates().size();
    BackendChoice.Choice where = backendChoice.choice();
    status.setText("Starting " + e.name() + " (open loop, " + total + " points) " + BenchLaunch.where(where) + "...");
    workspace.log("benchmark: running " + display(file) + " (open loop) " + BenchLaunch.where(where));
    openLoopStopping = false;
    openLoopRunning = true;
    openLoopRemote = !where.backend().equals(BackendChoice.LOCAL);
    if (openLoopRemote) {
      openLoopDone = null; // the launch waits for the sweep and the release of its hosts (close())
      if (!launch.startOpenLoop(e, where, backend -> sweep(e, backend))) {
        running.set(false);
      }
      return;
    }
    java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
    openLoopDone = done;
    boolean queued = inBackground(workspace, () -> {
      Runnable show = sweep(e, null);
      Platform.runLater(show);
      done.countDown(); // (not on the FX thread: closing the window waits for it there)
    });
    if (!queued) {
      running.set(false);
      done.countDown();
    }
  }

  /**
   * Runs the sweep on the calling thread, on {@code backend} (null: this machine), each point drawn as it is
   * measured; an interrupt stops it. Returns what shows its outcome (on the JavaFX thread).
   */
  private Runnable sweep(OpenLoopExperiment e, org.kvlab.cluster.ClusterBackend backend) {
    int total = e.clusters().size() * e.rates().size();
    java.util.concurrent.atomic.AtomicInteger measured = new java.util.concurrent.atomic.AtomicInteger();
    OpenLoopBench.Report report = null;
    String failure = null;
    openLoopThread = Thread.currentThread();
    try {
      if (!running.get() || openLoopStopping) {
        throw new InterruptedException(); // stopped before it began
      }
      java.util.function.Consumer<String> progress = line -> {
        logLine("open loop: " + line);
        Platform.runLater(() -> status.setText(line));
      };
      java.util.function.Consumer<OpenLoopBench.Point> pointDone = p -> {
        measured.incrementAndGet(); // (the progress line above says the point's figures)
        Platform.runLater(() -> charts.add(p));
      };
      report = backend == null ? OpenLoopBench.run(e, results.resultsRoot(), progress, pointDone)
          : OpenLoopBench.run(e, backend, results.resultsRoot(), progress, pointDone);
    } catch (OpenLoopBench.Stopped stopped) { // the points measured before Stop are written, as bench does
      report = stopped.partial();
      failure = "stopped after " + measured.get() + " of " + total + " points; the cluster was stopped"
          + (report == null ? ". Nothing was measured, so nothing was written" : "");
    } catch (Exception | LinkageError ex) {
      // Stop's interrupt shows as InterruptedException, or wrapped by what it interrupted (a session being opened)
      failure = !openLoopStopping ? (ex.getMessage() == null ? ex.toString() : ex.getMessage())
          : "stopped after " + measured.get() + " of " + total + " points; the cluster was stopped. Nothing was"
          + " measured, so nothing was written";
    } finally {
      openLoopThread = null;
      Thread.interrupted(); // the pool's thread goes on without a stop's interrupt
    }
    OpenLoopBench.Report r = report;
    String fail = failure;
    return () -> finishedOpenLoop(e, r, fail);
  }

  private void finishedOpenLoop(OpenLoopExperiment e, OpenLoopBench.Report report, String failure) {
    running.set(false);
    lastOpenLoop = report;
    if (report == null) {
      status.setText("Not finished: " + failure);
      logLine("not finished: " + failure);
      return;
    }
    String knees = report.knee().entrySet().stream().map(k -> k.getKey() + " " + (k.getValue() > 0
        ? String.format(Locale.ROOT, "%,.0f/s", k.getValue()) : "none")).collect(java.util.stream.Collectors.joining(", "));
    Path chart = report.directory().resolve("latency-throughput.svg");
    String what = failure == null ? "open loop done, " + report.points().size() + " points"
        : "open loop " + failure + "; the " + report.points().size() + " points measured are written";
    status.setText(String.format(Locale.ROOT, "%s: %s; knee (p99 <= %s ms): %s. Results: %s",
        e.name(), what, e.p99Bound().toNanos() / 1e6, knees, display(report.directory())));
    if (failure != null) {
      logLine("not finished: " + failure);
    }
    reportPath.setText(chart.toAbsolutePath().toString());
    showReportCharts(report.directory());
    results.refresh();
  }

  private void logLine(String line) {
    workspace.log("benchmark: " + line);
    Platform.runLater(() -> {
      log.getItems().add(line);
      log.scrollTo(log.getItems().size() - 1);
    });
  }

  /** Asks the running benchmark to stop (as Ctrl-C does): clients killed, cluster stopped, partial results written. */
  void stop() {
    Thread t = openLoopThread;
    if (openLoopRunning && running.get()) {
      status.setText("Stopping: the sweep ends and the cluster is stopped"
          + (openLoopRemote ? ", then the hosts are released..." : "..."));
      openLoopStopping = true;
      if (t != null) {
        t.interrupt();
      }
      if (openLoopRemote) {
        inBackground(workspace, launch::stop); // also while the hosts are made ready (EC2: the instances created)
      }
      return;
    }
    if (running.get()) {
      status.setText("Stopping: the clients are killed and the cluster is stopped; the runs done so far are kept"
          + (launch.remote() ? ", then the hosts are released..." : "..."));
      inBackground(workspace, launch::stop);
    }
  }

  private void finished(ExperimentRunner r, Results.ExperimentResult result, String failure) {
    running.set(false);
    runner = null;
    lastResult = result;
    if (result == null || r == null) {
      status.setText("Not run: " + failure);
      logLine("not run: " + failure);
      return;
    }
    long ok = result.runs().stream().filter(Results.RunResult::ok).count();
    Path out = r.outputDirectory();
    Path report = out.resolve("report.html");
    status.setText(String.format(Locale.ROOT, "%s: %s, %d of %d runs ok. Report: %s%s", result.name(), result.status(),
        ok, result.runsPlanned(), display(report), failure == null ? "" : ". " + failure));
    reportPath.setText(report.toAbsolutePath().toString());
    showReportCharts(out);
    results.refresh();
  }

  private void showReportCharts(Path out) {
    reportCharts.getChildren().clear();
    List<Path> pngs;
    try (Stream<Path> files = Files.list(out)) {
      pngs = files.filter(p -> p.getFileName().toString().endsWith(".png"))
          .sorted((a, b) -> order(a).compareTo(order(b))).toList();
    } catch (IOException e) {
      logLine("cannot list " + out + ": " + e.getMessage());
      return;
    }
    for (Path png : pngs) {
      ImageView view = new ImageView(new Image(png.toUri().toString(), 0, 150, true, true));
      view.setPreserveRatio(true);
      Label caption = new Label(png.getFileName().toString());
      VBox box = new VBox(2, view, caption);
      javafx.scene.control.Tooltip.install(box, new javafx.scene.control.Tooltip("click to open " + png.getFileName()));
      box.setOnMouseClicked(ev -> workspace.showDocument(png.toUri().toString()));
      box.setAlignment(Pos.CENTER);
      box.getStyleClass().add("bench-report-chart");
      reportCharts.getChildren().add(box);
    }
  }

  private static String order(Path p) {
    String n = p.getFileName().toString();
    return (n.startsWith("throughput") ? "0" : n.startsWith("latency") ? "1" : "2") + n;
  }

  private void openReport(Path report) {
    if (!Files.isRegularFile(report)) {
      status.setText("No report at " + report + " (the benchmark may not have finished).");
      return;
    }
    if (!workspace.showDocument(report.toUri().toString())) {
      status.setText("No browser to open it with here; the report is " + report);
    }
  }

  @Override
  public void close() {
    Thread t = openLoopThread;
    java.util.concurrent.CountDownLatch done = openLoopDone;
    if (t != null) {
      openLoopStopping = true;
      t.interrupt(); // OpenLoopBench stops its cluster on the way out
      try {
        if (done != null) {
          done.await(30, java.util.concurrent.TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    launch.close(); // stops the runner, waits for it and for the hosts to be released (EC2: instances deleted)
  }

  /** Runs {@code task} on the workspace's background executor; false when the window is closing (it has stopped). */
  static boolean inBackground(Workspace workspace, Runnable task) {
    try {
      workspace.background().execute(task);
      return true;
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      return false;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // For tests

  LiveCharts charts() {
    return charts;
  }

  ResultsBrowser results() {
    return results;
  }

  boolean running() {
    return running.get();
  }

  Results.ExperimentResult lastResult() {
    return lastResult;
  }

  /** Where benchmarks run and how (tests: the EC2 hooks, the teardown). */
  BackendChoice backendChoice() {
    return backendChoice;
  }

  BenchLaunch launch() {
    return launch;
  }

  /** The last open-loop sweep's report (null before one finished). */
  OpenLoopBench.Report lastOpenLoop() {
    return lastOpenLoop;
  }

  /** Lines written to a PrintStream, one callback each. */
  private static final class LineStream extends OutputStream {
    private final java.util.function.Consumer<String> sink;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    LineStream(java.util.function.Consumer<String> sink) {
      this.sink = sink;
    }

    @Override
    public synchronized void write(int b) {
      if (b == '\n') {
        sink.accept(line.toString(StandardCharsets.UTF_8).stripTrailing());
        line.reset();
      } else {
        line.write(b);
      }
    }
  }
}
