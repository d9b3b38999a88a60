package org.kvlab.designer.design;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonType;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Dialog;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import javafx.stage.Window;

/**
 * Edits {@code emulation.rtt}: a datacenters x datacenters grid of round-trip times, kept symmetric (typing
 * [a][b] writes [b][a] too) with zeros on the diagonal, presets (loopback zeros, uniform, the seed's Table
 * 5.1 AWS RTTs), and the loader's messages about the matrix shown under it as it is typed.
 */
final class LatencyMatrixEditor {
  /** The result: the design's new RTT matrix (null: no emulation) and, for a preset of another size, its datacenters. */
  record Result(String[][] rtt, int datacenters) {}

  private final Dialog<ButtonType> dialog = new Dialog<>();
  private final VBox content = new VBox(10);
  private final GridPane grid = new GridPane();
  private final CheckBox enabled = new CheckBox("Emulate a WAN (emulation.rtt): delay each message between datacenters a and b by rtt[a][b] / 2");
  private final Label problems = new Label();
  private final Label sizeNote = new Label();
  private final Design base;
  private String[][] matrix;
  private String[] names;
  private TextField[][] cells;

  LatencyMatrixEditor(Window owner, Design design) {
    this.base = design;
    int n = design.datacenters();
    matrix = design.rtt == null ? Design.zeros(n) : copy(design.rtt);
    names = defaultNames(n);
    dialog.initOwner(owner);
    dialog.setTitle("Latency matrix");
    dialog.setHeaderText("Round-trip times between datacenters (whole milliseconds: 0, 40ms, 1s)");
    dialog.getDialogPane().setId("rtt-dialog");
    ComboBox<LatencyPresets> presets = new ComboBox<>();
    presets.setId("rtt-preset");
    presets.getItems().addAll(LatencyPresets.all(n));
    presets.setPromptText("Presets...");
    Button apply = new Button("Apply preset");
    apply.setId("rtt-apply-preset");
    apply.disableProperty().bind(presets.valueProperty().isNull());
    apply.setOnAction(e -> applyPreset(presets.getValue()));
    enabled.setId("rtt-enabled");
    enabled.setSelected(design.rtt != null);
    enabled.selectedProperty().addListener((o, a, b) -> {
      grid.setDisable(!b);
      check();
    });
    grid.setHgap(6);
    grid.setVgap(6);
    grid.setDisable(design.rtt == null);
    problems.setId("rtt-problems");
    problems.setWrapText(true);
    problems.setMaxWidth(700);
    problems.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE);
    sizeNote.setWrapText(true);
    sizeNote.setMaxWidth(700);
    sizeNote.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE);
    dialog.setResizable(true);
    dialog.getDialogPane().setPrefWidth(760);
    sizeNote.setStyle("-fx-text-fill: #8a5a00;");
    content.setPadding(new Insets(10));
    content.getChildren().addAll(enabled, new HBox(8, presets, apply), grid, sizeNote, problems);
    dialog.getDialogPane().setContent(content);
    dialog.getDialogPane().getButtonTypes().addAll(ButtonType.OK, ButtonType.CANCEL);
    buildGrid();
    check();
  }

  Dialog<ButtonType> dialog() {
    return dialog;
  }

  private static String[][] copy(String[][] m) {
    String[][] c = new String[m.length][];
    for (int i = 0; i < m.length; i++) {
      c[i] = m[i].clone();
    }
    return c;
  }

  private static String[] defaultNames(int n) {
    String[] s = new String[n];
    for (int i = 0; i < n; i++) {
      s[i] = "dc " + i;
    }
    return s;
  }

  private void applyPreset(LatencyPresets p) {
    matrix = p.asText();
    names = p.dcNames().clone();
    for (int i = 0; i < names.length; i++) {
      names[i] = i + ": " + names[i];
    }
    enabled.setSelected(true);
    sizeNote.setText(matrix.length == base.datacenters() ? ""
        : "This preset has " + matrix.length + " datacenters; the design has " + base.datacenters()
            + ". OK makes the design " + matrix.length + " datacenters (" + (matrix.length > base.datacenters()
            ? "adding datacenters like the last one" : "removing the last ones") + ").");
    buildGrid();
    check();
  }

  private void buildGrid() {
    grid.getChildren().clear();
    int n = matrix.length;
    cells = new TextField[n][n];
    for (int i = 0; i < n; i++) {
      Label col = new Label(names[i]);
      col.setStyle("-fx-font-weight: bold;");
      grid.add(col, i + 1, 0);
      Label row = new Label(names[i]);
      row.setStyle("-fx-font-weight: bold;");
      grid.add(row, 0, i + 1);
    }
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        TextField f = new TextField(matrix[a][b]);
        f.setId("rtt-" + a + "-" + b);
        f.setPrefColumnCount(6);
        if (a == b) {
          f.setDisable(true);
        }
        final int fa = a;
        final int fb = b;
        f.textProperty().addListener((o, x, v) -> {
          matrix[fa][fb] = v;
          if (fa != fb && !v.equals(matrix[fb][fa])) {
            matrix[fb][fa] = v;
            cells[fb][fa].setText(v);
          }
          check();
        });
        cells[a][b] = f;
        grid.add(f, b + 1, a + 1);
      }
    }
  }

  /** Runs the loader on the design with this matrix and shows what it says about the emulation section. */
  private void check() {
    Design d = result(base);
    List<String> mine = new ArrayList<>();
    for (DesignValidator.Problem p : DesignValidator.validate(d, null, "matrix")) {
      if (p.path().startsWith("emulation")) {
        mine.add(p.message().replaceFirst("^matrix:\\d+:\\d+: ", ""));
      }
    }
    problems.setText(mine.isEmpty() ? (enabled.isSelected() ? "\u2714 valid" : "no emulated delay")
        : "\u26a0 " + String.join("\n\u26a0 ", mine));
    problems.setStyle(mine.isEmpty() ? "-fx-text-fill: #1b7f3b;" : "-fx-text-fill: #b00020;");
    // the messages may need more room: grow the window so its buttons stay visible
    if (dialog.getDialogPane().getScene() != null && dialog.getDialogPane().getScene().getWindow() != null) {
      javafx.application.Platform.runLater(() -> dialog.getDialogPane().getScene().getWindow().sizeToScene());
    }
  }

  /** A copy of {@code design} with this editor's matrix (and size). */
  Design result(Design design) {
    Design d = design.copy();
    resize(d, matrix.length);
    d.rtt = enabled.isSelected() ? copy(matrix) : null;
    return d;
  }

  static void resize(Design d, int n) {
    while (d.datacenters() < n) {
      Design.Dc last = d.dcs.get(d.datacenters() - 1);
      d.addDatacenter(last.x + CanvasGeometry.dcWidth(d) + 80, last.y);
    }
    while (d.datacenters() > n) {
      d.removeDatacenter(d.datacenters() - 1);
    }
  }

  Optional<Result> showAndWait() {
    Optional<ButtonType> b = dialog.showAndWait();
    if (b.isEmpty() || b.get() != ButtonType.OK) {
      return Optional.empty();
    }
    return Optional.of(new Result(enabled.isSelected() ? copy(matrix) : null, matrix.length));
  }
}
