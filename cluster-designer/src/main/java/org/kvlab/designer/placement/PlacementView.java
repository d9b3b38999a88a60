package org.kvlab.designer.placement;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javafx.application.Platform;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.chart.BarChart;
import javafx.scene.chart.CategoryAxis;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.Spinner;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.stage.Stage;
import org.kvlab.api.Protocols;
import org.kvlab.api.Topology;
import org.kvlab.config.ClusterConfig;
import org.kvlab.designer.DesignerView;
import org.kvlab.designer.Workspace;
import org.kvlab.partitioning.Partitioner;
import org.kvlab.partitioning.Partitioners;
import org.kvlab.partitioning.PlacementAdvice;
import org.kvlab.placement.Traces;

/**
 * The "Placement" tab, the placement advisor (seed 001 ch. 7–8, issue 33): from a recorded history or trace, the
 * co-access graph partitioned by METIS or the pure-Java partitioner ({@code org.kvlab.partitioning}, what
 * {@code kvlab advise-placement} runs), the share of multi-partition transactions under kvlab's hash placement and
 * under the proposed one, overall and per key group, as a table and a chart; the placement saved as a map.
 */
public final class PlacementView implements DesignerView {
  /** A row of the summary table. */
  public record SummaryRow(String placement, String multiPartition, long edgeCut, String imbalance) {}

  private final Workspace workspace;
  private final Stage stage;
  private final BorderPane root = new BorderPane();
  private final TextField trace = new TextField();
  private final Button browse = new Button("Browse…");
  private final Spinner<Integer> parts = new Spinner<>(2, 4096, 4);
  private final ChoiceBox<String> partitioner = new ChoiceBox<>(FXCollections.observableArrayList(Partitioners.NAMES));
  private final TextField imbalance = new TextField("1.2");
  private final Button advise = new Button("Advise");
  private final Label status = new Label("Choose a trace (a kvlab history or one transaction's keys per line), then"
      + " Advise.");
  private final ObservableList<SummaryRow> summary = FXCollections.observableArrayList();
  private final ObservableList<PlacementAdvice.GroupShare> groups = FXCollections.observableArrayList();
  private final BarChart<String, Number> chart = new BarChart<>(new CategoryAxis(), new NumberAxis(0, 100, 10));
  private final TextField output = new TextField();
  private final Button save = new Button("Save placement");
  private final Button apply = new Button("Apply to the design");
  private Path saved;
  private final Label applyNote = new Label();
  private PlacementAdvice advice;

  public PlacementView(Workspace workspace, Stage stage) {
    this.workspace = workspace;
    this.stage = stage;
    build();
  }

  @Override
  public String title() {
    return "Placement";
  }

  @Override
  public Node node() {
    return root;
  }

  /** The last advice (null before the first). */
  public PlacementAdvice advice() {
    return advice;
  }

  /** The cluster's partitions become the default partition count. */
  @Override
  public void fileOpened(Path file) {
    try {
      ClusterConfig c = ClusterConfig.load(file);
      org.kvlab.api.Protocol protocol = protocol(c.protocol());
      int partitions = c.topology().partitions();
      int p = protocol == null ? partitions : protocol.placementParts(partitions);
      if (p >= 2) {
        parts.getValueFactory().setValue(p);
      }
    } catch (org.kvlab.config.ConfigException | RuntimeException e) {
      // the Design tab reports a broken cluster file; the advisor keeps its own count
    }
  }

  private void build() {
    trace.setId("placement-trace");
    trace.setPrefColumnCount(40);
    trace.setPromptText("history.jsonl or trace.txt");
    browse.setId("placement-browse");
    browse.setOnAction(e -> {
      FileChooser fc = new FileChooser();
      fc.setTitle("A history or trace");
      java.io.File f = fc.showOpenDialog(stage);
      if (f != null) {
        trace.setText(f.getPath());
      }
    });
    parts.setId("placement-parts");
    parts.setEditable(true);
    partitioner.setId("placement-partitioner");
    partitioner.setValue("auto");
    imbalance.setId("placement-imbalance");
    imbalance.setPrefColumnCount(4);
    advise.setId("placement-advise");
    advise.setDefaultButton(true);
    advise.setOnAction(e -> advise());
    status.setId("placement-status");
    status.setWrapText(true);
    FlowPane form = new FlowPane(10, 8, new Label("Trace"), trace, browse, new Label("Partitions"), parts,
        new Label("Partitioner"), partitioner, new Label("Imbalance"), imbalance, advise);
    form.setAlignment(Pos.CENTER_LEFT);
    VBox top = new VBox(8, form, status);
    top.setPadding(new Insets(10));
    root.setTop(top);

    TableView<SummaryRow> summaryTable = new TableView<>(summary);
    summaryTable.setId("placement-summary");
    summaryTable.getColumns().add(column("placement", SummaryRow::placement, 220));
    summaryTable.getColumns().add(column("multi-partition", SummaryRow::multiPartition, 130));
    summaryTable.getColumns().add(column("edge cut", SummaryRow::edgeCut, 100));
    summaryTable.getColumns().add(column("imbalance", SummaryRow::imbalance, 90));
    summaryTable.setPrefHeight(100);
    TableView<PlacementAdvice.GroupShare> groupTable = new TableView<>(groups);
    groupTable.setId("placement-groups");
    groupTable.getColumns().add(column("key group", PlacementAdvice.GroupShare::group, 140));
    groupTable.getColumns().add(column("keys", PlacementAdvice.GroupShare::keys, 70));
    groupTable.getColumns().add(column("transactions", PlacementAdvice.GroupShare::transactions, 100));
    groupTable.getColumns().add(column("multi-partition, hash", g -> percent(g.multiBefore(), g.transactions()), 175));
    groupTable.getColumns().add(column("multi-partition, advised", g -> percent(g.multiAfter(), g.transactions()), 190));
    VBox.setVgrow(groupTable, Priority.ALWAYS);
    VBox tables = new VBox(8, new Label("Whole trace"), summaryTable, new Label("Per key group"), groupTable);
    tables.setPadding(new Insets(0, 10, 10, 10));
    chart.setId("placement-chart");
    chart.setTitle("Multi-partition transactions per key group (%)");
    chart.setAnimated(false);
    SplitPane center = new SplitPane(tables, chart);
    center.setDividerPositions(0.55);
    root.setCenter(center);

    output.setId("placement-output");
    output.setPrefColumnCount(40);
    output.setPromptText("placement.tsv (key<TAB>partition)");
    save.setId("placement-save");
    save.setDisable(true);
    save.setOnAction(e -> save());
    applyNote.setId("placement-apply-note");
    applyNote.setWrapText(true);
    applyNote.setText(applyText());
    apply.setId("placement-apply");
    apply.setDisable(true);
    apply.setOnAction(e -> apply());
    HBox saveRow = new HBox(10, new Label("Save to"), output, save, apply);
    saveRow.setAlignment(Pos.CENTER_LEFT);
    VBox bottom = new VBox(6, saveRow, applyNote);
    bottom.setPadding(new Insets(10));
    root.setBottom(bottom);
  }

  /** Whether any installed protocol takes a placement map, and how a saved placement is used. */
  private static String applyText() {
    List<String> takers = Protocols.all().stream().filter(p -> p.parameters().containsKey("placement"))
        .map(org.kvlab.api.Protocol::name).toList();
    return takers.isEmpty()
        ? "A saved placement is a key<TAB>partition map. No installed protocol takes a placement map yet (DynaStar's"
            + " initial plan, issue 33), so it cannot be applied to the cluster from here."
        : "Apply a saved placement to the design (its parameter placement=file:<map>) with " + String.join(", ", takers)
            + ".";
  }

  private void advise() {
    Path file = Path.of(trace.getText().strip());
    if (trace.getText().isBlank() || !Files.isRegularFile(file)) {
      setStatus("No trace at '" + trace.getText() + "'. Fix: give a kvlab history (./kvlab shell --history, YCSB's"
          + " kvlab.history) or a text file with one transaction's keys per line.", true);
      return;
    }
    double bound;
    try {
      bound = Double.parseDouble(imbalance.getText().strip());
    } catch (NumberFormatException e) {
      bound = -1;
    }
    if (!(bound >= 1.0) || bound > 10) {
      setStatus("Imbalance '" + imbalance.getText() + "' is out of range. Fix: 1.0 (perfect balance) to 10; 1.2 is"
          + " METIS's usual 20%.", true);
      return;
    }
    int k = parts.getValue();
    String which = partitioner.getValue();
    double b = bound;
    advise.setDisable(true);
    setStatus("partitioning " + file.getFileName() + " into " + k + " partitions with " + which + "...", false);
    workspace.log("placement: advise " + file + " --parts " + k + " --partitioner " + which + " --imbalance " + b);
    workspace.background().submit(() -> {
      try {
        List<List<String>> t = Traces.read(file);
        Partitioner p = Partitioners.byName(which);
        Topology hashed = new Topology(1, k);
        PlacementAdvice a = PlacementAdvice.advise(t, k, p, b, 1, hashed::partitionOf);
        List<PlacementAdvice.GroupShare> g = a.groups(t);
        Platform.runLater(() -> show(a, g, file));
      } catch (IOException | RuntimeException e) {
        String cause = e.getMessage() == null ? e.toString() : e.getMessage();
        Platform.runLater(() -> {
          advise.setDisable(false);
          setStatus("Could not advise a placement: " + cause, true);
        });
      }
    });
  }

  private void show(PlacementAdvice a, List<PlacementAdvice.GroupShare> g, Path file) {
    advice = a;
    advise.setDisable(false);
    save.setDisable(false);
    summary.setAll(new SummaryRow("hash (kvlab's default)", percent(a.baseline().multiPartitionShare()),
        a.baseline().edgeCut(), fixed(a.baseline().imbalance())),
        new SummaryRow(a.partitioner() + " (" + a.millis() + " ms)", percent(a.proposed().multiPartitionShare()),
            a.proposed().edgeCut(), fixed(a.proposed().imbalance())));
    groups.setAll(g);
    XYChart.Series<String, Number> before = new XYChart.Series<>();
    before.setName("hash");
    XYChart.Series<String, Number> after = new XYChart.Series<>();
    after.setName(a.partitioner());
    for (PlacementAdvice.GroupShare s : g.subList(0, Math.min(12, g.size()))) {
      before.getData().add(new XYChart.Data<>(s.group(), 100.0 * s.multiBefore() / Math.max(1, s.transactions())));
      after.getData().add(new XYChart.Data<>(s.group(), 100.0 * s.multiAfter() / Math.max(1, s.transactions())));
    }
    chart.getData().setAll(List.of(before, after));
    if (output.getText().isBlank()) {
      output.setText(file.resolveSibling(file.getFileName() + ".placement.tsv").toString());
    }
    setStatus(String.format(Locale.ROOT, "%s: %d transactions over %d keys; multi-partition %s with hash, %s with %s",
        file.getFileName(), a.transactions(), a.graph().vertices(), percent(a.baseline().multiPartitionShare()),
        percent(a.proposed().multiPartitionShare()), a.partitioner()), false);
  }

  private void save() {
    if (advice == null || output.getText().isBlank()) {
      setStatus("Nothing to save yet. Fix: Advise first, and give a file to save to.", true);
      return;
    }
    Path out = Path.of(output.getText().strip());
    try {
      advice.writeMap(out);
      saved = out.toAbsolutePath();
      apply.setDisable(false);
      setStatus("placement saved to " + out + " (" + advice.graph().vertices() + " keys)", false);
      workspace.log("placement: saved " + out);
    } catch (IOException e) {
      setStatus("Could not save " + out + ": " + e.getMessage(), true);
    }
  }

  /**
   * Sets the saved placement as the design's initial placement ({@code placement=file:<path>}) when the design's
   * protocol takes a placement map and has as many partitions as the advice; else says why not and the fix.
   */
  private void apply() {
    Workspace.DesignParams design = workspace.designParams();
    if (design == null || saved == null) {
      setStatus("Nothing to apply. Fix: Advise, Save placement, and open a design in the Design tab.", true);
      return;
    }
    String name = design.protocol();
    org.kvlab.api.Protocol p = protocol(name);
    if (p == null || !p.parameters().containsKey("placement")) {
      setStatus("The design's protocol " + (name.isBlank() ? "(none)" : name) + " takes no placement map. Fix: choose"
          + " a protocol that does in the Design tab. " + applyText(), true);
      return;
    }
    int wanted = p.placementParts(design.partitions());
    if (wanted != advice.placement().parts()) {
      setStatus("The placement is for " + advice.placement().parts() + " partitions; the design's " + name + " places"
          + " keys on " + wanted + " (of its " + design.partitions() + "). Fix: set Partitions to " + wanted
          + " and Advise again, or change the design.", true);
      return;
    }
    design.set("placement", "file:" + saved);
    setStatus("The design's " + name + " now starts from placement=file:" + saved + " (save the design to keep it).",
        false);
    workspace.log("placement: applied " + saved + " to the design");
  }

  /** The installed protocol called {@code name}, or null. */
  private static org.kvlab.api.Protocol protocol(String name) {
    return Protocols.all().stream().filter(x -> x.name().equals(name)).findFirst().orElse(null);
  }

  private void setStatus(String text, boolean error) {
    status.setText(text);
    status.setStyle(error ? "-fx-text-fill: #b00020;" : "");
  }

  private static <S, T> TableColumn<S, T> column(String name, java.util.function.Function<S, T> value, double width) {
    TableColumn<S, T> c = new TableColumn<>(name);
    c.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(value.apply(cell.getValue())));
    c.setPrefWidth(width);
    return c;
  }

  private static String percent(int part, int whole) {
    return percent(whole == 0 ? 0 : part / (double) whole);
  }

  private static String percent(double share) {
    return String.format(Locale.ROOT, "%.1f%%", 100 * share);
  }

  private static String fixed(double d) {
    return String.format(Locale.ROOT, "%.2f", d);
  }
}
