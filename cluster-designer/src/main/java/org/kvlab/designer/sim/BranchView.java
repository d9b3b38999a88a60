package org.kvlab.designer.sim;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javafx.geometry.Insets;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TextArea;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.stage.Stage;
import org.kvlab.api.Params;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.designer.DesignerView;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.explore.Exploration;
import org.kvlab.sim.explore.Schedule;

/**
 * The Branch tab: a schedule ({@code kvlab explore}'s, or one saved here) opened step by step. The events taken are
 * listed; the events enabled at the end (in-flight messages, due timers, sessions ready to invoke, crashes) too: take
 * any of them next, or select an earlier step and branch there; the verdict and the diagram follow the current
 * branch. Branches save as schedules ({@code kvlab sim --schedule} replays them).
 */
public final class BranchView implements DesignerView {
  private final Stage stage;
  private final BorderPane root = new BorderPane();
  private final Label file = new Label("No schedule open: open one that ./kvlab explore wrote.");
  private final ListView<String> branchList = new ListView<>();
  private final ListView<String> steps = new ListView<>();
  private final ListView<String> enabled = new ListView<>();
  private final Label compare = new Label("");
  private final TextArea verdict = new TextArea();
  private Branches branches;

  public BranchView(Stage stage) {
    this.stage = stage;
    build();
  }

  @Override
  public String title() {
    return "Branch";
  }

  @Override
  public Node node() {
    return root;
  }

  /** The branches shown, or null before a schedule is opened. */
  public Branches branches() {
    return branches;
  }

  private void build() {
    Button open = fileButton("Open schedule…", "branch-open", false, this::open);
    Button save = fileButton("Save branch as schedule…", "branch-save", true, p -> {
      if (branches != null) {
        save(p);
      }
    });
    file.setId("branch-file");
    root.setTop(new HBox(8, open, save, file));
    branchList.setId("branch-list");
    branchList.getSelectionModel().selectedIndexProperty().addListener((obs, old, i) -> {
      if (branches != null && i.intValue() >= 0 && i.intValue() != branches.currentIndex()) {
        branches.select(i.intValue());
        refresh();
      }
    });
    steps.setId("branch-steps");
    Button here = new Button("Branch before the selected step");
    here.setId("branch-here");
    here.setOnAction(e -> {
      int i = steps.getSelectionModel().getSelectedIndex();
      if (branches != null && i >= 0) {
        branches.branchAt(i);
        refresh();
      }
    });
    enabled.setId("branch-enabled");
    Button take = new Button("Take it next");
    take.setId("branch-take");
    take.setOnAction(e -> takeSelected());
    enabled.setOnMouseClicked(e -> {
      if (e.getClickCount() == 2) {
        takeSelected();
      }
    });
    compare.setId("branch-compare");
    verdict.setId("branch-verdict");
    verdict.setEditable(false);
    verdict.setStyle("-fx-font-family: monospace;");
    VBox left = new VBox(6, new Label("Branches"), branchList, compare);
    VBox middle = new VBox(6, new Label("Events taken"), steps, here);
    VBox right = new VBox(6, new Label("Enabled now"), enabled, take);
    left.setPrefWidth(220);
    middle.setPrefWidth(380);
    right.setPrefWidth(300);
    HBox lists = new HBox(10, left, middle, right);
    lists.setPadding(new Insets(8));
    root.setCenter(lists);
    verdict.setPrefRowCount(24);
    root.setBottom(verdict);
  }

  /** A button that asks for a file (to open, or to save to) and hands it to {@code then}. */
  private Button fileButton(String text, String id, boolean forSaving, java.util.function.Consumer<Path> then) {
    Button b = new Button(text);
    b.setId(id);
    b.setOnAction(e -> {
      FileChooser chooser = new FileChooser();
      java.io.File f = forSaving ? chooser.showSaveDialog(stage) : chooser.showOpenDialog(stage);
      if (f != null) {
        then.accept(f.toPath());
      }
    });
    return b;
  }

  private void takeSelected() {
    String label = enabled.getSelectionModel().getSelectedItem();
    if (branches != null && label != null) {
      branches.take(label);
      refresh();
    }
  }

  /** Opens a schedule file; a bad one is said in the file line. */
  public void open(Path path) {
    try {
      Schedule s = Schedule.read(path);
      Protocol p = Protocols.byName(s.protocol());
      SimSpec spec = SimSpec.defaults().withTopology(s.datacenters(), s.partitions()).withParams(new Params(s.params()));
      branches = new Branches(new Exploration(spec, p, s.sessions(), s.crashes(), s.horizonMicros(), s.checks(),
          s.seed()), s);
      file.setText(path.getFileName() + ": " + s.protocol() + " on " + s.datacenters() + "x" + s.partitions() + ", "
          + s.sessions().size() + " sessions");
      refresh();
    } catch (IOException | IllegalArgumentException e) {
      file.setText("Cannot open " + path.getFileName() + ": " + e.getMessage());
    }
  }

  /** Saves the current branch as a schedule file. */
  public void save(Path path) {
    try {
      branches.schedule().write(path);
      file.setText("Saved " + branches.current().name() + " to " + path.getFileName());
    } catch (IOException e) {
      file.setText("Cannot save " + path.getFileName() + ": " + e.getMessage() + ". Fix: choose a writable folder");
    }
  }

  private void refresh() {
    List<Branches.Branch> all = branches.branches();
    branchList.getItems().setAll(all.stream().map(b -> b.name() + " (" + b.choices().size() + " events)").toList());
    branchList.getSelectionModel().select(branches.currentIndex());
    List<String> taken = branches.current().choices();
    steps.getItems().clear();
    for (int i = 0; i < taken.size(); i++) {
      steps.getItems().add((i + 1) + ". " + taken.get(i));
    }
    enabled.getItems().setAll(branches.enabled());
    Branches.Branch main = all.get(0);
    compare.setText(branches.currentIndex() == 0 ? "" : "leaves main after step "
        + Branches.divergence(main, branches.current()));
    Exploration.Verdict v = branches.verdict();
    StringBuilder text = new StringBuilder();
    if (v == null) {
      text.append(branches.run().complete() ? "No violation: the history is complete and passes its checks.\n"
          : "No violation so far (the history is checked when every session has finished).\n");
      text.append(branches.run().trace().diagram(branches.run().history().operations(), List.of(), 200));
    } else {
      text.append("VIOLATION ").append(v.check()).append(": ").append(v.description()).append('\n');
      text.append(v.diagram(branches.run(), 200));
    }
    verdict.setText(text.toString());
  }
}
