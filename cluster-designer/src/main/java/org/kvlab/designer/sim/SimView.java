package org.kvlab.designer.sim;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import javafx.application.Platform;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.Slider;
import javafx.scene.control.Spinner;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import org.kvlab.api.Params;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.api.Topology;
import org.kvlab.check.Checkers;
import org.kvlab.check.Violation;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;
import org.kvlab.designer.DesignerView;
import org.kvlab.designer.Workspace;
import org.kvlab.sim.Fault;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Trace;

/**
 * The "Simulate" tab: runs a protocol in the deterministic simulator (the simulator module as a library, what
 * {@code kvlab sim} runs) with chosen faults, seeds and checkers; sweeps seeds until the first violation; shows a
 * run as a {@link LamportDiagram} with the violation's operations and messages in red, and the state of every
 * process at the step chosen with the slider or the previous/next buttons.
 */
public final class SimView implements DesignerView {
  /** One seed of a sweep, as the seed list shows it. */
  public record SeedRow(long seed, boolean ok, String summary) {
    @Override
    public String toString() {
      return "seed " + seed + ": " + summary;
    }
  }

  private final Workspace workspace;
  private final BorderPane root = new BorderPane();
  private final ComboBox<String> protocol = new ComboBox<>();
  private final Spinner<Integer> datacenters = new Spinner<>(1, 8, 2);
  private final Spinner<Integer> partitions = new Spinner<>(1, 16, 3);
  private final Spinner<Integer> sessions = new Spinner<>(1, 16, 2);
  private final TextField duration = new TextField("2000");
  private final TextField rtt = new TextField("50");
  private final TextField keys = new TextField("10");
  private final Label topologySource = new Label("default topology");
  private final Map<String, CheckBox> faults = new LinkedHashMap<>();
  private final Map<String, CheckBox> checks = new LinkedHashMap<>();
  private final TextField seeds = new TextField("1..50");
  private final CheckBox stopAtFirst = new CheckBox("stop at the first violation");
  private final Button run = new Button("Run");
  private final Button stop = new Button("Stop");
  private final Label status = new Label("Choose a protocol, faults, checkers and seeds, then Run.");
  private final ObservableList<SeedRow> seedRows = FXCollections.observableArrayList();
  private final ListView<SeedRow> seedList = new ListView<>(seedRows);
  private final ListView<String> violationList = new ListView<>();
  private final TextArea violationText = new TextArea();
  private final TextArea stateText = new TextArea();
  private final ChoiceBox<String> viewMode = new ChoiceBox<>(
      FXCollections.observableArrayList("around the violation", "whole run"));
  private final Slider zoom = new Slider(0.2, 4, 1);
  private final LamportDiagram diagram = new LamportDiagram();
  private final Slider step = new Slider(0, 0, 0);
  private final Button prev = new Button("◀ Previous");
  private final Button next = new Button("Next ▶");
  private final Label stepLabel = new Label("");
  private final ObjectProperty<SimRun> shown = new SimpleObjectProperty<>();
  private final AtomicBoolean cancel = new AtomicBoolean();
  private List<Checkers.Reported> violations = List.of();
  private Params clusterParams = Params.empty();
  private long[][] clusterRtt;
  private List<Fault.Skew> clusterSkews = List.of();
  private boolean busy;

  public SimView(Workspace workspace, Stage stage) {
    this.workspace = workspace;
    build();
  }

  @Override
  public String title() {
    return "Simulate";
  }

  @Override
  public Node node() {
    return root;
  }

  /** The run shown (null before the first). */
  public ObjectProperty<SimRun> shownRun() {
    return shown;
  }

  public LamportDiagram diagram() {
    return diagram;
  }

  public List<SeedRow> seedRows() {
    return seedRows;
  }

  /** The violation selected in the list (null: none, or the run had none). */
  public Violation selectedViolation() {
    int i = violationList.getSelectionModel().getSelectedIndex();
    return i >= 0 && i < violations.size() ? violations.get(i).violation() : null;
  }

  /** The workspace's cluster file gives the topology, protocol, parameters and RTTs. */
  @Override
  public void fileOpened(Path file) {
    try {
      ClusterConfig c = ClusterConfig.load(file);
      datacenters.getValueFactory().setValue(c.topology().datacenters());
      partitions.getValueFactory().setValue(c.topology().partitions());
      clusterParams = c.params();
      clusterRtt = c.emulation() == null ? null : c.emulation().rttMillis();
      clusterSkews = new ArrayList<>();
      if (c.emulation() != null) {
        c.emulation().skewMillis().forEach((node, ms) -> clusterSkews.add(new Fault.Skew(node, ms * 1000, 0)));
        clusterSkews.sort(java.util.Comparator.comparing(k -> k.node().toString()));
      }
      if (protocol.getItems().contains(c.protocol())) {
        protocol.setValue(c.protocol());
      }
      topologySource.setText("from " + file.getFileName() + (c.topology().replicas() > 1
          ? " (" + c.topology().replicas() + " replicas per partition)" : "")
          + (clusterRtt != null ? ", its RTT matrix" : "") + (clusterSkews.isEmpty() ? "" : ", its clock skews"));
      replicas = c.topology().replicas();
      clusterDcs = c.topology().datacenters();
      clusterPartitions = c.topology().partitions();
    } catch (ConfigException | RuntimeException e) {
      clusterParams = Params.empty();
      clusterRtt = null;
      clusterSkews = List.of();
      replicas = 1;
      topologySource.setText("default topology (" + file.getFileName() + " does not load: " + e.getMessage() + ")");
    }
  }

  private int replicas = 1;
  private int clusterDcs = -1;
  private int clusterPartitions = -1;

  @Override
  public void close() {
    cancel.set(true);
  }

  // ---------------------------------------------------------------------------------------------
  // Layout of the tab

  private void build() {
    for (Protocol p : Protocols.all()) {
      protocol.getItems().add(p.name());
    }
    protocol.setValue(protocol.getItems().contains("eventual") ? "eventual"
        : protocol.getItems().isEmpty() ? null : protocol.getItems().get(0));
    protocol.setId("sim-protocol");
    datacenters.setId("sim-datacenters");
    partitions.setId("sim-partitions");
    sessions.setId("sim-sessions");
    for (Spinner<Integer> s : List.of(datacenters, partitions, sessions)) {
      s.setPrefWidth(70);
      s.setEditable(true);
    }
    // A topology typed by hand is no longer the cluster file's
    datacenters.valueProperty().addListener((o, a, b) -> {
      if (clusterRtt != null && clusterRtt.length != b) {
        clusterRtt = null;
        topologySource.setText("edited (uniform RTT)");
      }
    });
    duration.setId("sim-duration");
    duration.setPrefColumnCount(5);
    rtt.setId("sim-rtt");
    rtt.setPrefColumnCount(4);
    keys.setId("sim-keys");
    keys.setPrefColumnCount(4);
    topologySource.setId("sim-topology-source");
    topologySource.setStyle("-fx-text-fill: #666;");
    FlowPane line1 = new FlowPane(8, 6, label("Protocol"), protocol, label("Datacenters"), datacenters,
        label("Partitions"), partitions, topologySource, label("Sessions/dc"), sessions, label("Keys"), keys,
        label("Workload (ms)"), duration, label("RTT (ms)"), rtt);
    line1.setAlignment(Pos.CENTER_LEFT);

    HBox faultBoxes = new HBox(8, label("Faults"));
    for (String f : List.of("partition", "skew", "crash", "slow")) {
      CheckBox b = new CheckBox(f);
      b.setId("sim-fault-" + f);
      faults.put(f, b);
      faultBoxes.getChildren().add(b);
    }
    faultBoxes.setAlignment(Pos.CENTER_LEFT);
    HBox checkBoxes = new HBox(8, label("Checkers"));
    for (String c : Checkers.names()) {
      CheckBox b = new CheckBox(c);
      b.setId("sim-check-" + c);
      b.setSelected(c.equals("session") || c.equals("convergence"));
      checks.put(c, b);
      checkBoxes.getChildren().add(b);
    }
    checkBoxes.setAlignment(Pos.CENTER_LEFT);
    FlowPane line2 = new FlowPane(24, 6, faultBoxes, checkBoxes);

    seeds.setId("sim-seeds");
    seeds.setPrefColumnCount(8);
    seeds.setTooltip(new Tooltip("one seed (7), a range (1..200) or a list (3,17,42)"));
    stopAtFirst.setId("sim-stop-first");
    stopAtFirst.setSelected(true);
    run.setId("sim-run");
    run.setDefaultButton(true);
    run.setOnAction(e -> startRun());
    stop.setId("sim-stop");
    stop.setDisable(true);
    stop.setOnAction(e -> cancel.set(true));
    status.setId("sim-status");
    status.setWrapText(true);
    for (javafx.scene.control.Control c : List.of(seeds, stopAtFirst, run, stop, viewMode)) {
      c.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
    }
    HBox line3 = new HBox(8, label("Seeds"), seeds, stopAtFirst, run, stop);
    line3.setAlignment(Pos.CENTER_LEFT);
    status.setMaxWidth(Double.MAX_VALUE);

    VBox settings = new VBox(6, line1, line2, line3, status);
    settings.setPadding(new Insets(8));
    settings.setStyle("-fx-border-color: transparent transparent #d0d0d0 transparent;");
    root.setTop(settings);

    // the diagram, its view mode and zoom
    viewMode.setId("sim-view-mode");
    viewMode.setValue("around the violation");
    viewMode.valueProperty().addListener((o, a, b) -> relayout());
    zoom.setId("sim-zoom");
    zoom.setPrefWidth(160);
    zoom.valueProperty().bindBidirectional(diagram.zoomProperty());
    Button zoomIn = new Button("+");
    zoomIn.setId("sim-zoom-in");
    zoomIn.setOnAction(e -> diagram.setZoom(diagram.zoomProperty().get() * 1.25));
    Button zoomOut = new Button("−");
    zoomOut.setId("sim-zoom-out");
    zoomOut.setOnAction(e -> diagram.setZoom(diagram.zoomProperty().get() * 0.8));
    Label legend = new Label("● invoke  ■ complete  ✕ crash/restart  red: the violation's operations and messages");
    legend.setStyle("-fx-text-fill: #666;");
    legend.setMinWidth(0);
    HBox diagramBar = new HBox(8, label("Show"), viewMode, label("Zoom"), zoomOut, zoom, zoomIn, legend);
    diagramBar.setAlignment(Pos.CENTER_LEFT);
    diagramBar.setPadding(new Insets(4, 8, 4, 8));
    VBox.setVgrow(diagram, Priority.ALWAYS);

    prev.setId("sim-prev");
    next.setId("sim-next");
    step.setId("sim-step");
    stepLabel.setId("sim-step-label");
    stepLabel.setStyle("-fx-font-family: monospace;");
    HBox.setHgrow(step, Priority.ALWAYS);
    prev.setOnAction(e -> diagram.selectedRowProperty().set(Math.max(0, diagram.selectedRowProperty().get() - 1)));
    next.setOnAction(e -> diagram.selectedRowProperty().set(
        Math.min(diagram.diagramLayout().rows().size() - 1, diagram.selectedRowProperty().get() + 1)));
    step.valueProperty().addListener((o, a, b) -> {
      int r = (int) Math.round(b.doubleValue());
      if (r != diagram.selectedRowProperty().get() && r < diagram.diagramLayout().rows().size()) {
        diagram.selectedRowProperty().set(r);
      }
    });
    diagram.selectedRowProperty().addListener((o, a, b) -> stepChanged(b.intValue()));
    HBox stepBar = new HBox(8, label("Step"), prev, step, next);
    stepBar.setAlignment(Pos.CENTER_LEFT);
    stepBar.setPadding(new Insets(4, 8, 2, 8));
    VBox stepBox = new VBox(2, stepBar, stepLabel);
    stepBox.setPadding(new Insets(0, 8, 6, 8));
    VBox left = new VBox(diagramBar, diagram, stepBox);

    // seeds, violations, state
    seedList.setId("sim-seed-list");
    seedList.setPrefHeight(120);
    seedList.setOnMouseClicked(e -> {
      SeedRow r = seedList.getSelectionModel().getSelectedItem();
      if (r != null && !busy && (shown.get() == null || shown.get().seed() != r.seed())) {
        replay(r.seed());
      }
    });
    violationList.setId("sim-violations");
    violationList.setPrefHeight(72);
    violationList.getSelectionModel().selectedIndexProperty().addListener((o, a, b) -> relayout());
    violationText.setId("sim-violation-text");
    violationText.setEditable(false);
    violationText.setWrapText(true);
    violationText.setPrefRowCount(8);
    violationText.setStyle("-fx-font-family: monospace; -fx-font-size: 11px;");
    stateText.setId("sim-state");
    stateText.setEditable(false);
    stateText.setStyle("-fx-font-family: monospace; -fx-font-size: 11px;");
    VBox.setVgrow(stateText, Priority.ALWAYS);
    VBox right = new VBox(4, label("Seeds"), seedList, label("Violations"), violationList, violationText,
        label("State at the chosen step"), stateText);
    right.setPadding(new Insets(6));
    right.setMinWidth(300);

    SplitPane split = new SplitPane(left, right);
    split.setDividerPositions(0.66);
    root.setCenter(split);
  }

  private static Label label(String text) {
    Label l = new Label(text);
    l.setStyle("-fx-font-weight: bold;");
    l.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
    return l;
  }

  // ---------------------------------------------------------------------------------------------
  // Running

  /** The settings in the form, or an error that names the field and the fix. */
  SimSettings settings() {
    if (protocol.getValue() == null) {
      throw new IllegalArgumentException("no protocol installed: put a protocol jar on the class path");
    }
    Set<String> f = new LinkedHashSet<>();
    faults.forEach((k, b) -> {
      if (b.isSelected()) {
        f.add(k);
      }
    });
    List<String> c = new ArrayList<>();
    checks.forEach((k, b) -> {
      if (b.isSelected()) {
        c.add(k);
      }
    });
    int dcs = datacenters.getValue();
    return new SimSettings(protocol.getValue(), new Topology(dcs, partitions.getValue(), replicas),
        clusterRtt != null && clusterRtt.length == dcs ? clusterRtt : null, number(rtt, "RTT"), clusterParams,
        sessions.getValue(), (int) number(keys, "Keys"), (long) number(duration, "Workload"), f, c,
        dcs == clusterDcs && partitions.getValue() == clusterPartitions ? clusterSkews : List.of());
  }

  private static double number(TextField field, String what) {
    try {
      double v = Double.parseDouble(field.getText().trim());
      if (v <= 0) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " '" + field.getText() + "' is not a positive number: type one, e.g. "
          + (what.equals("RTT") ? "50" : what.equals("Keys") ? "10" : "2000"));
    }
  }

  /** Seeds as {@code kvlab sim --seeds} takes them: 7, 1..200, 3,17,42. */
  static List<Long> parseSeeds(String text) {
    try {
      return org.kvlab.sim.Seeds.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Seeds '" + text + "': " + e.getMessage());
    }
  }

  private void startRun() {
    SimSettings s;
    List<Long> list;
    Protocol p;
    try {
      s = settings();
      s.spec();
      list = parseSeeds(seeds.getText());
      p = Protocols.byName(s.protocol());
    } catch (IllegalArgumentException e) {
      setStatus(e.getMessage(), true);
      return;
    }
    seedRows.clear();
    cancel.set(false);
    setBusy(true);
    boolean firstOnly = stopAtFirst.isSelected();
    setStatus("running " + list.size() + (list.size() == 1 ? " seed" : " seeds") + " of " + s.protocol() + "...", false);
    workspace.log("simulate: " + s.protocol() + " seeds " + seeds.getText() + " — " + s.command(list.get(0)));
    workspace.background().submit(() -> {
      try {
        sweep(s, p, list, firstOnly);
      } catch (RuntimeException | Error e) {
        Platform.runLater(() -> {
          setBusy(false);
          setStatus("simulation failed: " + e, true);
        });
      }
    });
  }

  /** Off the FX thread: seeds untraced (fast), then the first failing one (or the only one) traced. */
  private void sweep(SimSettings s, Protocol p, List<Long> list, boolean firstOnly) {
    SimSpec fast = s.spec().withTrace(false);
    Long failing = null;
    int done = 0;
    int failed = 0;
    int[] sweepDone = {0};
    int[] sweepFailed = {0};
    Long[] firstFailing = {null};
    if (list.size() > 1) {
      int jobs = Math.max(1, Runtime.getRuntime().availableProcessors() - 1); // leave a core to the window
      try {
        SimRunner.runAll(fast, p, list, s.checkers(), jobs, r -> { // in seed order, on this thread
          SeedRow row = new SeedRow(r.seed(), r.ok(), summary(r));
          Platform.runLater(() -> seedRows.add(row));
          sweepDone[0]++;
          if (!r.ok()) {
            sweepFailed[0]++;
            if (firstFailing[0] == null) {
              firstFailing[0] = r.seed();
            }
            if (firstOnly) {
              throw new StopSweep();
            }
          }
          if (cancel.get()) {
            throw new StopSweep();
          }
        });
      } catch (StopSweep e) {
        // the first violation, or the Stop button: the seeds after it are not needed
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // the window is closing
        Platform.runLater(() -> setBusy(false));
        return;
      }
      done = sweepDone[0];
      failed = sweepFailed[0];
      failing = firstFailing[0];
    }
    Long open = list.size() == 1 ? list.get(0) : failing;
    String swept = list.size() == 1 ? "" : String.format("%d of %d seeds run, %d failed%s. ", done, list.size(), failed,
        cancel.get() ? " (stopped)" : "");
    if (open == null) {
      String text = swept + "No violation" + (done > 0 ? ": click a seed to see its run." : ".");
      Platform.runLater(() -> {
        setBusy(false);
        setStatus(text, false);
      });
      workspace.log("simulate: " + text);
      return;
    }
    SimRun traced = SimRun.run(s, p, open);
    if (list.size() == 1) {
      SeedRow row = new SeedRow(open, traced.report().ok(), summary(traced.report()));
      Platform.runLater(() -> seedRows.add(row));
    }
    String text = swept + (traced.report().ok() ? "Seed " + open + " passed every check."
        : "Seed " + open + " failed: " + traced.report().violations() + " violation(s). Replay: " + s.command(open));
    workspace.log("simulate: " + text);
    Platform.runLater(() -> {
      setBusy(false);
      show(traced);
      setStatus(text, !traced.report().ok());
    });
  }

  /** Ends a sweep early (thrown from {@link SimRunner#runAll}'s callback, which stops its workers). */
  private static final class StopSweep extends RuntimeException {
    StopSweep() {
      super(null, null, false, false);
    }
  }

  private void replay(long seed) {
    SimSettings s;
    Protocol p;
    try {
      s = settings();
      p = Protocols.byName(s.protocol());
    } catch (IllegalArgumentException e) {
      setStatus(e.getMessage(), true);
      return;
    }
    setBusy(true);
    setStatus("replaying seed " + seed + " with tracing...", false);
    workspace.background().submit(() -> {
      try {
        SimRun traced = SimRun.run(s, p, seed);
        Platform.runLater(() -> {
          setBusy(false);
          show(traced);
          setStatus(traced.report().ok() ? "Seed " + seed + " passed every check."
              : "Seed " + seed + " failed. Replay: " + s.command(seed), !traced.report().ok());
        });
      } catch (RuntimeException | Error e) {
        Platform.runLater(() -> {
          setBusy(false);
          setStatus("simulation failed: " + e, true);
        });
      }
    });
  }

  private static String summary(SimRunner.SeedReport r) {
    if (r.ok()) {
      return "ok (" + r.result().history().size() + " operations)";
    }
    List<String> by = new ArrayList<>();
    r.checks().forEach(c -> {
      if (!c.valid()) {
        by.add(c.checker() + " " + c.violations().size());
      }
    });
    if (r.result().failed()) {
      by.add("run failed");
    }
    return "FAILED (" + String.join(", ", by) + ")";
  }

  private void setBusy(boolean b) {
    busy = b;
    run.setDisable(b);
    stop.setDisable(!b);
  }

  private void setStatus(String text, boolean bad) {
    status.setText(text);
    status.setStyle(bad ? "-fx-text-fill: #c62828;" : "-fx-text-fill: #2e7d32;");
  }

  // ---------------------------------------------------------------------------------------------
  // Showing a run

  /** Shows {@code r}: its violations (the first selected, the diagram centred on it) or the whole run. */
  void show(SimRun r) {
    shown.set(r);
    for (int i = 0; i < seedRows.size(); i++) {
      if (seedRows.get(i).seed() == r.seed()) {
        seedList.getSelectionModel().select(i);
      }
    }
    violations = r.violations();
    List<String> items = new ArrayList<>();
    for (Checkers.Reported rep : violations) {
      items.add("[" + String.join(", ", rep.checkers()) + "] " + rep.violation().kind());
    }
    violationList.getItems().setAll(items);
    if (!violations.isEmpty()) {
      violationList.getSelectionModel().select(0); // relayouts
    } else {
      relayout();
    }
  }

  private void relayout() {
    SimRun r = shown.get();
    if (r == null) {
      return;
    }
    Violation v = selectedViolation();
    boolean around = "around the violation".equals(viewMode.getValue());
    Trace.Layout layout = r.layout(v, around);
    diagram.show(layout, r.report().result().trace().entries());
    StringBuilder text = new StringBuilder();
    if (v == null) {
      text.append(r.report().ok() ? "No violation: seed " + r.seed() + " passed "
          + String.join(", ", r.settings().checkers()) + ".\n" : "");
    } else {
      String explained = SimRunner.explain(r.report(), v, 1);
      int cut = explained.indexOf("  messages of these operations");
      text.append(cut >= 0 ? explained.substring(0, cut) : explained);
    }
    r.report().result().failures().forEach(f -> text.append("run failed: ").append(f).append('\n'));
    text.append("faults of this seed: ").append(r.faults().isEmpty() ? "none" : String.join("; ", r.faults()));
    violationText.setText(text.toString());
    violationText.setStyle("-fx-font-family: monospace; -fx-font-size: 11px;"
        + (v != null ? " -fx-text-fill: #c62828;" : ""));
    int rows = layout.rows().size();
    step.setMax(Math.max(0, rows - 1));
    step.setMajorTickUnit(Math.max(1, rows / 10.0));
    int first = 0;
    for (int i = 0; i < rows; i++) {
      if (layout.rows().get(i).focus()) {
        first = i;
        break;
      }
    }
    diagram.selectedRowProperty().set(rows == 0 ? -1 : first);
    stepChanged(diagram.selectedRowProperty().get());
  }

  private void stepChanged(int r) {
    SimRun run = shown.get();
    Trace.Layout layout = diagram.diagramLayout();
    boolean any = run != null && r >= 0 && r < layout.rows().size();
    prev.setDisable(!any || r == 0);
    next.setDisable(!any || r == layout.rows().size() - 1);
    if (!any) {
      stepLabel.setText("");
      stateText.setText("");
      return;
    }
    if (Math.round(step.getValue()) != r) {
      step.setValue(r);
    }
    Trace.Row row = layout.rows().get(r);
    stepLabel.setText(String.format("step %d of %d   t = %.3f ms   %s: %s", r + 1, layout.rows().size(),
        row.micros() / 1000.0, row.process(), row.text()));
    List<String> processes = new ArrayList<>();
    processes.add(row.process());
    Trace.Entry e = run.report().result().trace().entries().get(row.entry());
    if (e.isMessage()) {
      processes.add(row.receive() ? e.from() : e.to());
    }
    for (String c : layout.columns()) {
      if (!processes.contains(c)) {
        processes.add(c);
      }
    }
    stateText.setText(run.stateAt(row.micros(), processes));
    stateText.setScrollTop(0);
  }
}
