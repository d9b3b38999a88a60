package org.kvlab.designer.design;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.ButtonType;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.RadioButton;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Separator;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TextField;
import javafx.scene.control.TextInputControl;
import javafx.scene.control.TitledPane;
import javafx.scene.control.ToggleGroup;
import javafx.scene.control.ToolBar;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.stage.Stage;
import javafx.stage.Window;
import javafx.stage.WindowEvent;
import org.kvlab.api.NodeId;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.config.ConfigException;
import org.kvlab.config.YamlReader;
import org.kvlab.designer.DesignerView;
import org.kvlab.designer.Workspace;

/**
 * The "Design" tab: a canvas of datacenters and their servers, a property panel driven by the installed
 * protocols' parameter declarations and by the cluster-file format, a latency-matrix editor, live
 * validation by kvlab's own loader, undo/redo, copy/paste, and New/Open/Save/Save As of the cluster files
 * the CLI reads. Saving sets the workspace's cluster file, which the other tabs act on.
 */
public final class DesignView implements DesignerView {
  private final Workspace workspace;
  private final Stage stage;
  private final BorderPane root = new BorderPane();
  private final DesignCanvas canvas = new DesignCanvas();
  private final VBox properties = new VBox(8);
  private final ListView<DesignValidator.Problem> problemList = new ListView<>();
  private final Label status = new Label();
  private final Label fileLabel = new Label();
  private final Button undoButton = button("Undo", "undo-button", "Undo the last change (Ctrl+Z)");
  private final Button redoButton = button("Redo", "redo-button", "Redo (Ctrl+Y or Ctrl+Shift+Z)");
  private final List<Protocol> protocols = Protocols.all();
  private final Deque<Step> undo = new ArrayDeque<>();
  private final Deque<Step> redo = new ArrayDeque<>();

  /** One undo (or redo) step: the design before a change, or an edit of the experiment file's clients. */
  private sealed interface Step permits DesignStep, ClientsStep {}

  private record DesignStep(Design design) implements Step {}

  /** The experiment file {@code file} went from the text {@code before} to {@code after} by the edit {@code what}. */
  private record ClientsStep(Path file, String before, String after, String what) implements Step {}
  /** Where a problem is shown in the property panel: target to the label under its field. */
  private final Map<String, Label> fieldProblems = new HashMap<>();
  private Design design = Design.empty();
  /** The text the design was opened from (or last saved as), for writing only what changed; null for a new design. */
  private String original;
  private Path file;
  private List<DesignValidator.Problem> problems = List.of();
  private List<Design.Dc> clipboardDcs = List.of();
  private Design clipboardSource;
  /** True while a text field's edit is one undo step (set on its first change, cleared when it loses focus). */
  private boolean editing;

  /** Picks the file Save As writes (a file chooser; tests give their own). */
  public Function<Window, Path> saveChooser = w -> {
    FileChooser fc = chooser("Save the cluster file");
    fc.setInitialFileName(design.name.isBlank() ? "cluster.yaml" : design.name + ".yaml");
    var f = fc.showSaveDialog(w);
    return f == null ? null : f.toPath();
  };
  /** Picks the file Open reads. */
  public Function<Window, Path> openChooser = w -> {
    var f = chooser("Open a cluster file").showOpenDialog(w);
    return f == null ? null : f.toPath();
  };
  /** What the user chose when asked about unsaved changes. */
  public enum Unsaved { SAVE, DISCARD, CANCEL }

  /** The buttons of the unsaved-changes prompt (their texts are what a person clicks). */
  static final ButtonType SAVE = new ButtonType("Save", ButtonBar.ButtonData.YES);
  static final ButtonType DONT_SAVE = new ButtonType("Don't Save", ButtonBar.ButtonData.NO);
  static final ButtonType CANCEL = new ButtonType("Cancel", ButtonBar.ButtonData.CANCEL_CLOSE);

  /** Picks an experiment file whose client groups the canvas shows (a file chooser; tests give their own). */
  public Function<Window, Path> experimentChooser = w -> {
    FileChooser fc = experimentFileChooser("Choose an experiment file");
    var f = fc.showOpenDialog(w);
    return f == null ? null : f.toPath();
  };
  /** Picks where a new experiment for this design goes. */
  public Function<Window, Path> experimentSaveChooser = w -> {
    FileChooser fc = experimentFileChooser("Save the new experiment file");
    fc.setInitialFileName((design.name.isBlank() ? "my" : design.name) + "-bench.yaml");
    var f = fc.showSaveDialog(w);
    return f == null ? null : f.toPath();
  };
  /** The experiment file's client groups (null: no experiment file in the workspace). */
  private ExperimentClients experiment;
  private Object experimentStamp;

  /** Shows an error that stops an action (a file that cannot be read or written). */
  public Consumer<String> showError = msg -> {
    Alert a = new Alert(Alert.AlertType.ERROR, msg, ButtonType.OK);
    a.initOwner(stageWindow());
    a.getDialogPane().setMinWidth(600);
    a.showAndWait();
  };

  public DesignView(Workspace workspace, Stage stage) {
    this.workspace = workspace;
    this.stage = stage;
    root.setId("design-view");
    root.setTop(toolbar());
    ScrollPane canvasScroll = new ScrollPane(canvas.node());
    canvasScroll.setId("canvas-scroll");
    canvasScroll.setPannable(false);
    canvasScroll.setFitToWidth(true);
    canvasScroll.setFitToHeight(true);
    properties.setId("properties");
    properties.setPadding(new Insets(8));
    properties.setFillWidth(true);
    ScrollPane propScroll = new ScrollPane(properties);
    propScroll.setFitToWidth(true);
    propScroll.setId("properties-scroll");
    SplitPane split = new SplitPane(canvasScroll, propScroll);
    split.setDividerPositions(0.64);
    SplitPane vertical = new SplitPane(split, problemPane());
    vertical.setOrientation(Orientation.VERTICAL);
    vertical.setDividerPositions(0.84);
    root.setCenter(vertical);
    canvas.onSelect = s -> {
      if (experimentChangedOnDisk()) {
        refresh(false); // reads the experiment again (the Benchmark tab or an editor wrote it)
      }
      buildProperties();
      propScroll.setVvalue(0); // the selection's properties are at the top
    };
    canvas.onMoveStart = this::snapshot;
    canvas.onMoved = this::changed;
    canvas.onEditLinks = this::editLatencies;
    canvas.onMoveClients = this::moveClients;
    // coming back from another tab (which may have written the experiment): the pointer enters the canvas
    canvas.node().addEventHandler(javafx.scene.input.MouseEvent.MOUSE_ENTERED, e -> {
      if (experimentChangedOnDisk()) {
        refresh(true);
      }
    });
    workspace.experimentFile().addListener((o, a, f) -> {
      clientsError = null;
      loadExperiment();
      refresh(true);
    });
    root.addEventFilter(KeyEvent.KEY_PRESSED, this::key);
    workspace.designParams(new Workspace.DesignParams() {
      @Override
      public String protocol() {
        return design.protocol;
      }

      @Override
      public int partitions() {
        return design.partitions;
      }

      @Override
      public void set(String name, String value) {
        edit("params." + name + " = " + value, () -> {
          design.opaque.remove("params");
          design.params.put(name, value);
        });
      }
    });
    // closing the window with unsaved changes asks first; Cancel (or a failed save) keeps the window open
    stage.addEventHandler(WindowEvent.WINDOW_CLOSE_REQUEST, closeRequest);
    setDesign(Design.empty(), null, null);
  }

  /** The stage's close-request handler: held so that {@link #close()} can remove it. */
  private final javafx.event.EventHandler<WindowEvent> closeRequest = e -> {
    if (!settleUnsaved("closing the window")) {
      e.consume();
    }
  };

  /**
   * Lets go of the stage: the close-request handler is removed, so a stage that outlives this window (a new window
   * shown on it, as each designer test does on TestFX's one stage) no longer keeps this view, its design and every
   * node of its window reachable.
   */
  @Override
  public void close() {
    if (javafx.application.Platform.isFxApplicationThread()) {
      stage.removeEventHandler(WindowEvent.WINDOW_CLOSE_REQUEST, closeRequest);
    } else {
      javafx.application.Platform.runLater(() -> stage.removeEventHandler(WindowEvent.WINDOW_CLOSE_REQUEST, closeRequest));
    }
  }

  @Override
  public String title() {
    return "Design";
  }

  @Override
  public Node node() {
    return root;
  }

  /** The design being edited (tests read it; change it only through the view). */
  public Design design() {
    return design;
  }

  /** The file the design was opened from or saved to; null for a new design. */
  public Path file() {
    return file;
  }

  /** The problems validation shows now (first: what kvlab would print for the saved file). */
  public List<DesignValidator.Problem> problems() {
    return problems;
  }

  /** What is selected on the canvas ({@code dc:0}, {@code server:0_1}, {@code link:0:1}). */
  public Set<String> canvasSelection() {
    return Set.copyOf(canvas.selection());
  }

  /** Whether the design differs from its file. */
  public boolean dirty() {
    return original == null ? undo.stream().anyMatch(s -> s instanceof DesignStep)
        : !DesignYaml.write(design, original).equals(original);
  }

  @Override
  public void fileOpened(Path opened) {
    if (opened != null && !opened.equals(file) && !open(opened)) {
      // kept the design (Cancel, or the file could not be read): the other tabs go back to the design's file
      Path mine = file;
      javafx.application.Platform.runLater(() -> workspace.clusterFile().set(mine));
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Toolbar, keys, files

  private Node toolbar() {
    Button newB = button("New", "new-button", "A new design (Ctrl+N)");
    newB.setOnAction(e -> newDesign());
    Button open = button("Open...", "open-button", "Open a cluster file (Ctrl+O)");
    open.setOnAction(e -> {
      Path p = openChooser.apply(stageWindow());
      if (p != null) {
        open(p);
      }
    });
    Button save = button("Save", "save-button", "Save the cluster file (Ctrl+S)");
    save.setOnAction(e -> save());
    Button saveAs = button("Save As...", "save-as-button", "Save under another name");
    saveAs.setOnAction(e -> saveAs());
    undoButton.setOnAction(e -> undo());
    redoButton.setOnAction(e -> redo());
    Button addDc = button("+ Datacenter", "add-dc-button", "Add a datacenter with the same partitions and replicas");
    addDc.setOnAction(e -> addDatacenter());
    Button addP = button("+ Partition", "add-partition-button", "Add a partition to every datacenter");
    addP.setOnAction(e -> edit("added partition " + design.partitions + " to every datacenter", design::addPartition));
    Button addR = button("+ Replica", "add-replica-button", "Add a replica to every partition (replication groups)");
    addR.setOnAction(e -> edit("added replica " + design.replicas + " to every partition", design::addReplica));
    Button delete = button("Delete", "delete-button", "Delete the selection (Delete)");
    delete.setOnAction(e -> deleteSelection());
    Button copy = button("Copy", "copy-button", "Copy the selected datacenters (Ctrl+C)");
    copy.setOnAction(e -> copy());
    Button paste = button("Paste", "paste-button", "Paste copied datacenters (Ctrl+V)");
    paste.setOnAction(e -> paste());
    Button addClients = button("+ Clients", "add-clients-button",
        "Give the selected datacenters a client group (written to the experiment file's clients: section)");
    addClients.setOnAction(e -> addClients());
    Button rtt = button("Latencies...", "rtt-button", "Edit the round-trip times between datacenters");
    rtt.setOnAction(e -> editLatencies());
    fileLabel.setId("file-label");
    fileLabel.setStyle("-fx-text-fill: #444;");
    return new ToolBar(newB, open, save, saveAs, new Separator(), undoButton, redoButton, new Separator(), addDc, addP,
        addR, addClients, delete, copy, paste, new Separator(), rtt);
  }

  private static Button button(String text, String id, String tip) {
    Button b = new Button(text);
    b.setId(id);
    b.setTooltip(new Tooltip(tip));
    return b;
  }

  private void key(KeyEvent e) {
    boolean inText = e.getTarget() instanceof TextInputControl;
    if (e.isShortcutDown() && e.getCode() == KeyCode.S) {
      save();
    } else if (e.isShortcutDown() && e.getCode() == KeyCode.O) {
      Path p = openChooser.apply(stageWindow());
      if (p != null) {
        open(p);
      }
    } else if (e.isShortcutDown() && e.getCode() == KeyCode.N) {
      newDesign();
    } else if (inText) {
      return;
    } else if (e.isShortcutDown() && (e.getCode() == KeyCode.Y || (e.getCode() == KeyCode.Z && e.isShiftDown()))) {
      redo();
    } else if (e.isShortcutDown() && e.getCode() == KeyCode.Z) {
      undo();
    } else if (e.isShortcutDown() && e.getCode() == KeyCode.C) {
      copy();
    } else if (e.isShortcutDown() && e.getCode() == KeyCode.V) {
      paste();
    } else if (e.getCode() == KeyCode.DELETE || e.getCode() == KeyCode.BACK_SPACE) {
      deleteSelection();
    } else {
      return;
    }
    e.consume();
  }

  private Window stageWindow() {
    return root.getScene() == null ? stage : root.getScene().getWindow();
  }

  private FileChooser chooser(String title) {
    FileChooser fc = new FileChooser();
    fc.setTitle(title);
    fc.getExtensionFilters().add(new FileChooser.ExtensionFilter("Cluster files (*.yaml, *.yml)", "*.yaml", "*.yml"));
    Path dir = file != null ? file.getParent() : workspace.home().resolve("examples");
    if (dir != null && Files.isDirectory(dir)) {
      fc.setInitialDirectory(dir.toFile());
    }
    return fc;
  }

  /**
   * Asks what to do with unsaved changes before they would be lost (New, Open, closing the window): Save (false
   * if the save did not happen, e.g. Save As was cancelled), Don't Save, or Cancel (the default button, so
   * Enter or Escape keeps the edits). True when the caller may go on.
   */
  public boolean settleUnsaved(String before) {
    if (!dirty()) {
      return true;
    }
    Alert a = new Alert(Alert.AlertType.CONFIRMATION);
    a.initOwner(stageWindow());
    a.setTitle("Unsaved changes");
    a.setHeaderText("Save the changes to " + (file == null ? "the new design" : file.getFileName().toString())
        + " before " + before + "?");
    a.setContentText("Your changes are lost if you don't save them.");
    a.getButtonTypes().setAll(SAVE, DONT_SAVE, CANCEL);
    a.getDialogPane().setId("unsaved-dialog");
    // Cancel is the default: Enter (as Escape) keeps the edits; saving or discarding takes a deliberate click
    ((Button) a.getDialogPane().lookupButton(SAVE)).setDefaultButton(false);
    ((Button) a.getDialogPane().lookupButton(SAVE)).setId("unsaved-save");
    ((Button) a.getDialogPane().lookupButton(DONT_SAVE)).setId("unsaved-discard");
    Button cancel = (Button) a.getDialogPane().lookupButton(CANCEL);
    cancel.setId("unsaved-cancel");
    cancel.setDefaultButton(true);
    ButtonType choice = a.showAndWait().orElse(CANCEL);
    if (choice == SAVE) {
      return save();
    }
    if (choice == DONT_SAVE) {
      workspace.log("design: discarded unsaved changes" + (file == null ? "" : " to " + file));
      return true;
    }
    status("kept the unsaved changes");
    return false;
  }

  /** Starts a new design (asks first if the current one has unsaved changes). */
  public void newDesign() {
    if (!settleUnsaved("starting a new design")) {
      return;
    }
    setDesign(Design.empty(), null, null);
    workspace.clusterFile().set(null);
    status("new design");
  }

  /** Opens a cluster file (asks first if the current design has unsaved changes); false if it could not be read. */
  public boolean open(Path path) {
    if (!settleUnsaved("opening " + path.getFileName())) {
      return false;
    }
    String text;
    Design d;
    try {
      text = YamlReader.readText(path, "cluster file");
      d = DesignYaml.read(text, path.toString());
    } catch (ConfigException e) {
      showError.accept("Cannot open " + path + ":\n" + e.getMessage());
      return false;
    }
    setDesign(d, text, path.toAbsolutePath());
    workspace.clusterFile().set(file);
    workspace.log("design: opened " + file);
    status("opened " + file);
    return true;
  }

  /** Saves to the design's file (asks for one if it has none); false if nothing was written. */
  public boolean save() {
    if (file == null) {
      return saveAs();
    }
    return writeTo(file);
  }

  /** Saves under a file the user picks. */
  public boolean saveAs() {
    Path p = saveChooser.apply(stageWindow());
    return p != null && writeTo(p.toAbsolutePath());
  }

  /** Writes {@code text} to a sibling temporary file and moves it over {@code path}: a reader never sees half. */
  private static void writeAtomically(Path path, String text) throws IOException {
    Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
    Files.writeString(tmp, text, StandardCharsets.UTF_8);
    Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private boolean writeTo(Path path) {
    commitEdit();
    String text = DesignYaml.write(design, original);
    try {
      writeAtomically(path, text);
    } catch (IOException e) {
      showError.accept("Cannot write " + path + ": " + e.getMessage() + "\nFix: choose a directory you can write to.");
      return false;
    }
    boolean first = !path.equals(file);
    original = text;
    file = path;
    // set the workspace's file even when it is the same path, so the other tabs reload what was saved
    workspace.clusterFile().set(null);
    workspace.clusterFile().set(path);
    String summary = problems.isEmpty() ? "valid" : problems.size() + " problem(s): " + problems.get(0).message();
    workspace.log("design: saved " + path + " (" + summary + ")");
    status("saved " + path + (problems.isEmpty() ? "" : " — it has problems, see the list below"));
    refresh(first); // a design saved under a new name: the panel's file-dependent parts (Clients) are rebuilt
    return true;
  }

  private void setDesign(Design d, String text, Path path) {
    design = d;
    original = text;
    file = path;
    undo.clear();
    redo.clear();
    editing = false;
    canvas.selection().clear();
    refresh(true);
  }

  private void status(String s) {
    status.setText(s);
  }

  // ---------------------------------------------------------------------------------------------
  // Edits, undo, redo

  /** Keeps the current design as an undo step. */
  private void snapshot() {
    step(new DesignStep(design.copy()));
  }

  private void step(Step s) {
    undo.push(s);
    redo.clear();
    if (undo.size() > 500) {
      undo.removeLast();
    }
  }

  /** One undoable change of the design's structure. */
  private void edit(String what, Runnable change) {
    commitEdit();
    snapshot();
    try {
      change.run();
    } catch (IllegalStateException e) {
      undo.pop();
      status(e.getMessage());
      return;
    }
    status(what);
    refresh(true);
  }

  /** A change typed in a field: one undo step per field, until it loses focus. */
  private void typed(Runnable change) {
    if (!editing) {
      snapshot();
      editing = true;
    }
    change.run();
    refresh(false);
  }

  private void commitEdit() {
    editing = false;
  }

  private void changed() {
    refresh(false);
  }

  public void undo() {
    move(undo, redo, true);
  }

  public void redo() {
    move(redo, undo, false);
  }

  /** Takes the last step of {@code from} back (undo) or again (redo), keeping what reverses it in {@code to}. */
  private void move(Deque<Step> from, Deque<Step> to, boolean back) {
    commitEdit();
    if (from.isEmpty()) {
      return;
    }
    Step step = from.pop();
    String done = back ? "undone" : "redone";
    if (step instanceof ClientsStep c) {
      if (rewriteExperiment(c.file(), back ? c.after() : c.before(), back ? c.before() : c.after(),
          done + ": " + c.what())) {
        to.push(c);
      }
    } else {
      to.push(new DesignStep(design));
      design = ((DesignStep) step).design();
      status(done);
    }
    refresh(true);
  }

  /**
   * Undo or redo of a client edit: writes {@code text} to the experiment file {@code f} if it still holds
   * {@code expected}. A file changed since (by the Benchmark tab or an editor) is left alone and the step dropped,
   * so that undo goes on with the steps before it; the status line says so.
   */
  private boolean rewriteExperiment(Path f, String expected, String text, String what) {
    String now;
    try {
      now = Files.readString(f, StandardCharsets.UTF_8);
    } catch (IOException e) {
      now = null;
    }
    if (!expected.equals(now)) {
      status(what + ": not done, " + f.getFileName() + " was changed since (by another tab or an editor); the step"
          + " is dropped");
      return false;
    }
    return writeExperiment(f, text, what, false);
  }

  private void addDatacenter() {
    double x = 40;
    double y = 40;
    if (design.datacenters() > 0) {
      Design.Dc last = design.dcs.get(design.datacenters() - 1);
      x = last.x + CanvasGeometry.dcWidth(design) + 80;
      y = last.y;
      if (x > 1100) {
        x = 40;
        y = last.y + CanvasGeometry.dcHeight(design) + 90;
      }
    }
    double fx = x;
    double fy = y;
    edit("added datacenter " + design.datacenters(), () -> design.addDatacenter(fx, fy));
  }

  private void deleteSelection() {
    Set<String> sel = canvas.selection();
    TreeSet<Integer> groups = new TreeSet<>();
    for (String s : sel) {
      if (s.startsWith("clients:")) {
        groups.add(Integer.parseInt(s.substring(8)));
      }
    }
    if (!groups.isEmpty()) {
      deleteClients(groups);
      return;
    }
    TreeSet<Integer> dcs = new TreeSet<>();
    TreeSet<Integer> parts = new TreeSet<>();
    TreeSet<Integer> reps = new TreeSet<>();
    for (String s : sel) {
      if (s.startsWith("dc:")) {
        dcs.add(Integer.parseInt(s.substring(3)));
      } else if (s.startsWith("server:")) {
        NodeId id = NodeId.parse(s.substring(7));
        if (design.replicas > 1) {
          reps.add(id.replica());
        } else {
          parts.add(id.partition());
        }
      }
    }
    if (dcs.isEmpty() && parts.isEmpty() && reps.isEmpty()) {
      status("nothing selected to delete: click a datacenter or a server first");
      return;
    }
    if (dcs.size() >= design.datacenters() || parts.size() >= design.partitions
        || (!reps.isEmpty() && reps.size() >= design.replicas)) {
      status("cannot delete everything: a cluster needs at least one datacenter, partition and replica");
      return;
    }
    String what = !dcs.isEmpty() ? "deleted datacenter(s) " + dcs
        : !parts.isEmpty() ? "deleted partition(s) " + parts + " in every datacenter (the topology is datacenters x partitions)"
        : "deleted replica(s) " + reps + " of every partition";
    edit(what, () -> {
      dcs.descendingSet().forEach(design::removeDatacenter);
      if (dcs.isEmpty()) {
        parts.descendingSet().forEach(design::removePartition);
        reps.descendingSet().forEach(design::removeReplica);
      }
      canvas.selection().clear();
    });
  }

  private Set<Integer> selectedDcs() {
    Set<Integer> dcs = new LinkedHashSet<>();
    for (String s : canvas.selection()) {
      if (s.startsWith("dc:")) {
        dcs.add(Integer.parseInt(s.substring(3)));
      } else if (s.startsWith("server:")) {
        dcs.add(NodeId.parse(s.substring(7)).dc());
      }
    }
    return dcs;
  }

  private void copy() {
    Set<Integer> dcs = selectedDcs();
    if (dcs.isEmpty()) {
      status("nothing to copy: select datacenters first");
      return;
    }
    clipboardSource = design.copy();
    List<Design.Dc> list = new ArrayList<>();
    for (int d : dcs) {
      list.add(new Design.Dc(d, 0)); // x holds the datacenter's number in the source design
    }
    clipboardDcs = list;
    status("copied datacenter(s) " + dcs);
  }

  /** Pastes the copied datacenters as new ones: same hosts, new ports, same RTTs to the others and skews. */
  private void paste() {
    if (clipboardDcs.isEmpty()) {
      status("nothing to paste: copy datacenters first");
      return;
    }
    Design src = clipboardSource;
    edit("pasted " + clipboardDcs.size() + " datacenter(s)", () -> {
      Set<String> pasted = new LinkedHashSet<>();
      for (Design.Dc c : clipboardDcs) {
        int from = (int) c.x;
        Design.Dc pos = from < src.datacenters() ? src.dcs.get(from) : new Design.Dc(40, 40);
        int d = design.addDatacenter(pos.x + 40, pos.y + 40);
        pasted.add("dc:" + d);
        if (!design.local) {
          for (int p = 0; p < Math.min(design.partitions, src.partitions); p++) {
            for (int r = 0; r < Math.min(design.replicas, src.replicas); r++) {
              Design.ServerEntry was = src.entry(new NodeId(from, p, r));
              Design.ServerEntry now = design.entry(new NodeId(d, p, r));
              if (was != null && now != null) {
                now.host = was.host;
              }
              String skew = src.skew.get(Design.idText(from, p, r));
              if (skew != null) {
                design.skew.put(Design.idText(d, p, r), skew);
              }
            }
          }
        }
        if (design.rtt != null && src.rtt != null && from < src.rtt.length) {
          for (int o = 0; o < d && o < src.rtt.length; o++) {
            design.setRtt(d, o, o == from ? "0" : src.rtt[from][o]);
          }
        }
      }
      canvas.selection().clear();
      canvas.selection().addAll(pasted);
    });
  }

  private void editLatencies() {
    commitEdit();
    LatencyMatrixEditor editor = new LatencyMatrixEditor(stageWindow(), design);
    editor.showAndWait().ifPresent(r -> edit("edited the latency matrix", () -> {
      LatencyMatrixEditor.resize(design, r.datacenters());
      design.rtt = r.rtt();
    }));
  }

  // ---------------------------------------------------------------------------------------------
  // Client groups (the experiment file's clients: section)

  private FileChooser experimentFileChooser(String title) {
    FileChooser fc = new FileChooser();
    fc.setTitle(title);
    fc.getExtensionFilters().add(new FileChooser.ExtensionFilter("Experiment files (*.yaml, *.yml)", "*.yaml", "*.yml"));
    Path dir = workspace.home().resolve("experiments");
    if (Files.isDirectory(dir)) {
      fc.setInitialDirectory(dir.toFile());
    }
    return fc;
  }

  private static Object stamp(Path f) {
    try {
      return Files.getLastModifiedTime(f).toMillis() + ":" + Files.size(f);
    } catch (IOException e) {
      return "missing";
    }
  }

  private void loadExperiment() {
    Path f = workspace.experimentFile().get();
    experimentStamp = f == null ? null : stamp(f);
    experiment = f == null ? null : ExperimentClients.load(f);
  }

  /** Whether the experiment file was written since it was read (by the Benchmark tab or an editor). */
  private boolean experimentChangedOnDisk() {
    Path f = workspace.experimentFile().get();
    return f != null && (experiment == null || !f.equals(experiment.file) || !stamp(f).equals(experimentStamp));
  }

  /** The client groups the canvas draws: datacenter to label. */
  private Map<Integer, String> clientGroups() {
    if (experiment == null || !experiment.ok()) {
      return Map.of();
    }
    Map<Integer, String> m = new LinkedHashMap<>();
    for (int d : experiment.groups()) {
      if (d < design.datacenters()) {
        m.put(d, experiment.groupLabel());
      }
    }
    return m;
  }

  /** Whether client groups can be edited now; if not, says why in the status line. */
  private boolean clientsEditable() {
    if (experiment == null) {
      status("no experiment file: choose one or create one under Clients on the right (or in the Benchmark tab)");
      return false;
    }
    if (!experiment.ok()) {
      status("the experiment file has a problem (see Clients on the right): fix it first, e.g. in the Benchmark tab");
      return false;
    }
    return true;
  }

  private void addClients() {
    if (!clientsEditable()) {
      return;
    }
    Set<Integer> dcs = selectedDcs();
    if (dcs.isEmpty()) {
      status("select the datacenters that get clients first, then + Clients");
      return;
    }
    TreeSet<Integer> groups = new TreeSet<>(experiment.groups());
    if (!groups.addAll(dcs)) {
      status("datacenter(s) " + dcs + " already have clients");
      return;
    }
    writeExperiment(experiment.withGroups(groups), "client group(s) in datacenter(s) " + dcs);
  }

  private void deleteClients(TreeSet<Integer> dcs) {
    if (!clientsEditable()) {
      return;
    }
    TreeSet<Integer> groups = new TreeSet<>(experiment.groups());
    groups.removeAll(dcs);
    if (groups.isEmpty()) {
      status("cannot delete the last client group: a benchmark needs clients in at least one datacenter");
      return;
    }
    canvas.selection().removeIf(s -> s.startsWith("clients:"));
    writeExperiment(experiment.withGroups(groups), "removed the client group(s) of datacenter(s) " + dcs);
  }

  /** A client group dragged onto another datacenter: the load comes from there now. */
  private void moveClients(int from, int to) {
    if (!clientsEditable()) {
      refresh(false);
      return;
    }
    TreeSet<Integer> groups = new TreeSet<>(experiment.groups());
    if (groups.contains(to)) {
      status("datacenter " + to + " already has clients (delete a group with Delete)");
      refresh(false);
      return;
    }
    groups.remove(from);
    groups.add(to);
    canvas.selection().clear();
    canvas.selection().add("clients:" + to);
    writeExperiment(experiment.withGroups(groups), "moved the clients of datacenter " + from + " to datacenter " + to);
  }

  private void resizeClients(String processes, String threads) {
    if (!clientsEditable()) {
      return;
    }
    int p;
    int t;
    try {
      p = Integer.parseInt(processes.strip());
      t = Integer.parseInt(threads.strip());
    } catch (NumberFormatException e) {
      clientsProblem("'" + (processes.strip().matches("\\d+") ? threads : processes).strip()
          + "' is not a whole number. Fix: type a number of client JVMs per datacenter (1-64) and of threads per JVM (1-1024).");
      return;
    }
    if (p == experiment.processes() && t == experiment.threads()) {
      return;
    }
    writeExperiment(experiment.withSize(p, t), "clients: " + p + " JVM(s) x " + t + " thread(s) per datacenter");
  }

  /** Checks the new experiment text with kvlab's loader; writes it only if the loader takes it (an undo step). */
  private void writeExperiment(String text, String what) {
    writeExperiment(experiment.file, text, what, true);
  }

  /**
   * Writes {@code text} to the experiment file {@code f} if kvlab's loader takes it; with {@code undoable}, the edit
   * becomes an undo step (the file's text before and after). True if written.
   */
  private boolean writeExperiment(Path f, String text, String what, boolean undoable) {
    ExperimentClients checked = ExperimentClients.of(text, f);
    if (!checked.ok()) {
      clientsProblem(checked.error);
      status("not written: " + checked.error);
      refresh(true);
      return false;
    }
    String before;
    try {
      before = Files.readString(f, StandardCharsets.UTF_8);
      writeAtomically(f, text);
    } catch (IOException e) {
      showError.accept("Cannot write " + f + ": " + e.getMessage() + "\nFix: make the experiment file writable.");
      return false;
    }
    if (undoable) {
      commitEdit();
      step(new ClientsStep(f, before, text, what));
    }
    workspace.log("design: " + what + ", written to " + f);
    status(what + " (written to " + f.getFileName() + ")");
    clientsError = null;
    // tell the other tabs the experiment file changed, as a save of the cluster file does (the workspace's
    // experiment stays the one it is: an undo of an edit of another file writes that file only)
    if (f.equals(workspace.experimentFile().get())) {
      workspace.experimentFile().set(null);
      workspace.experimentFile().set(f);
    }
    return true;
  }

  /** A message under the Clients section (an edit the loader refused). */
  private String clientsError;

  private Label clientsProblemLabel;

  private void clientsProblem(String message) {
    clientsError = message;
    Label l = clientsProblemLabel;
    if (l != null) {
      l.setText(message == null ? "" : "\u26a0 " + message);
      l.setVisible(message != null);
      l.setManaged(message != null);
    }
  }

  private Node clientsPane() {
    VBox box = new VBox(6);
    box.setId("clients-pane");
    Path f = workspace.experimentFile().get();
    Label fileLine = new Label(f == null ? "No experiment file." : "Experiment: " + relative(f));
    fileLine.setId("clients-file");
    fileLine.setWrapText(true);
    Button choose = button("Choose...", "clients-choose", "Choose the experiment file whose clients the canvas shows");
    choose.setOnAction(e -> {
      Path p = experimentChooser.apply(stageWindow());
      if (p != null) {
        workspace.experimentFile().set(p.toAbsolutePath().normalize());
      }
    });
    Button create = button("New for this design...", "clients-new",
        "Write a small experiment that benchmarks this design's saved cluster file, with clients in every datacenter");
    create.setDisable(file == null);
    create.setOnAction(e -> newExperiment());
    HBox buttons = new HBox(6, choose, create);
    box.getChildren().addAll(fileLine, buttons);
    if (experiment != null && experiment.ok()) {
      GridPane g = grid();
      TextField processes = new TextField(String.valueOf(experiment.processes()));
      processes.setId("clients-processes");
      TextField threads = new TextField(String.valueOf(experiment.threads()));
      threads.setId("clients-threads");
      Runnable apply = () -> resizeClients(processes.getText(), threads.getText());
      for (TextField t : List.of(processes, threads)) {
        t.setPrefColumnCount(5);
        t.setOnAction(e -> apply.run());
        t.focusedProperty().addListener((o, a, focused) -> {
          if (!focused && experiment != null && experiment.ok()
              && !(processes.getText().strip().equals(String.valueOf(experiment.processes()))
                  && threads.getText().strip().equals(String.valueOf(experiment.threads())))) {
            apply.run();
          }
        });
      }
      g.addRow(0, new Label("client JVMs per datacenter"), processes);
      g.addRow(1, new Label("YCSB threads per JVM"), threads);
      List<Integer> groups = experiment.groups();
      String where = experiment.everyDatacenter() ? "every datacenter (" + groups.size() + ")"
          : "datacenter" + (groups.size() == 1 ? " " : "s ") + groups.stream().map(String::valueOf)
              .collect(java.util.stream.Collectors.joining(", "));
      Label in = new Label("Clients in " + where + ".");
      in.setId("clients-where");
      box.getChildren().addAll(g, in);
      String swept = experiment.swept();
      if (!swept.isEmpty()) {
        box.getChildren().add(doc("The experiment sweeps " + swept + ": each run replaces these values."));
      }
      if (experiment.clusterDatacenters() != design.datacenters()) {
        Label mismatch = doc("\u26a0 The experiment's cluster has " + experiment.clusterDatacenters()
            + " datacenter(s), this design " + design.datacenters() + ": groups are drawn for the datacenters both"
            + " have. To benchmark this design, point the experiment at its file (Benchmark tab: Use the design's"
            + " cluster).");
        mismatch.setId("clients-mismatch");
        mismatch.setStyle("-fx-text-fill: #8a5a00; -fx-font-size: 11px;");
        box.getChildren().add(mismatch);
      }
      box.getChildren().add(doc("The experiment file's clients: section (docs/bench.md) gives every datacenter that has"
          + " clients the same group size. Select datacenters and press + Clients to add groups; select a group"
          + " and press Delete to remove it, or drag it onto another datacenter. Each change is checked by kvlab's"
          + " experiment loader and written to the file at once; Undo writes the file's text before it back."));
    } else if (experiment != null) {
      Label err = new Label("\u26a0 " + experiment.error);
      err.setId("clients-error");
      err.setWrapText(true);
      err.setStyle("-fx-text-fill: #b00020; -fx-font-size: 11px;");
      box.getChildren().add(err);
    } else {
      box.getChildren().add(doc("The client JVMs of a benchmark live in an experiment file (docs/bench.md). Choose"
          + " one (or open one in the Benchmark tab) to see and place its client groups on the canvas, or create"
          + " one for this design once it is saved."));
    }
    // not one of the validator's targets (the cluster file's loader): the experiment loader's refusal of an edit
    Label problem = new Label();
    problem.setId("problem-field-clients");
    problem.setWrapText(true);
    problem.setMaxWidth(Double.MAX_VALUE);
    problem.setStyle("-fx-text-fill: #b00020; -fx-font-size: 11px;");
    clientsProblemLabel = problem;
    box.getChildren().add(problem);
    clientsProblem(clientsError);
    return titled("Clients (experiment file)", box, false);
  }

  /** Writes a small experiment for this design's saved file and makes it the workspace's experiment. */
  private void newExperiment() {
    if (file == null) {
      status("save the design first: the experiment names its cluster file");
      return;
    }
    Path target = experimentSaveChooser.apply(stageWindow());
    if (target == null) {
      return;
    }
    target = target.toAbsolutePath().normalize();
    Path dir = target.getParent();
    String clusterPath;
    try {
      clusterPath = dir.relativize(file).toString();
    } catch (IllegalArgumentException e) {
      clusterPath = file.toString();
    }
    // a relative cluster path is looked up in the working directory first, then beside the experiment
    if (Files.exists(workspace.home().resolve(clusterPath)) && !workspace.home().resolve(clusterPath).normalize().equals(file)) {
      clusterPath = file.toString();
    }
    String text = ExperimentClients.template(design, clusterPath);
    ExperimentClients checked = ExperimentClients.of(text, target);
    if (!checked.ok()) {
      showError.accept("The new experiment would not load:\n" + checked.error);
      return;
    }
    try {
      Files.writeString(target, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      showError.accept("Cannot write " + target + ": " + e.getMessage() + "\nFix: choose a directory you can write to.");
      return;
    }
    workspace.log("design: wrote the experiment " + target + " for " + file);
    status("new experiment " + target.getFileName() + ": clients in every datacenter");
    workspace.experimentFile().set(null);
    workspace.experimentFile().set(target);
  }

  // ---------------------------------------------------------------------------------------------
  // Validation and redrawing

  /** Validates, redraws the canvas and (if {@code rebuild}) the property panel. */
  private void refresh(boolean rebuild) {
    String source = file == null ? "(new design)" : relative(file);
    problems = DesignValidator.validate(design, original, source);
    Map<String, List<String>> byTarget = new LinkedHashMap<>();
    for (DesignValidator.Problem p : problems) {
      byTarget.computeIfAbsent(p.target(), k -> new ArrayList<>()).add(shortMessage(p.message(), source));
    }
    if (experimentChangedOnDisk()) {
      loadExperiment();
    }
    canvas.show(design, byTarget, clientGroups());
    problemList.getItems().setAll(problems);
    if (rebuild) {
      buildProperties();
    }
    for (Map.Entry<String, Label> e : fieldProblems.entrySet()) {
      List<String> mine = byTarget.getOrDefault(e.getKey(), List.of());
      e.getValue().setText(mine.isEmpty() ? "" : "\u26a0 " + String.join("\n\u26a0 ", mine));
      e.getValue().setVisible(!mine.isEmpty());
      e.getValue().setManaged(!mine.isEmpty());
    }
    undoButton.setDisable(undo.isEmpty());
    redoButton.setDisable(redo.isEmpty());
    boolean dirty = dirty();
    fileLabel.setText((file == null ? "new design (not saved)" : file.toString()) + (dirty ? "  \u25cf modified" : ""));
    // the window's title names the design and marks unsaved changes with "*", as editors do
    stage.setTitle((dirty ? "*" : "") + (file == null ? "new design" : file.getFileName().toString()) + " \u2014 kvlab designer");
  }

  private String relative(Path p) {
    try {
      Path r = workspace.home().relativize(p);
      return r.startsWith("..") ? p.toString() : r.toString();
    } catch (IllegalArgumentException e) {
      return p.toString();
    }
  }

  /** The message without its "file:line:col: " prefix (the element already says where). */
  static String shortMessage(String message, String source) {
    return message.startsWith(source) ? message.substring(source.length()).replaceFirst("^(:\\d+)*: ", "") : message;
  }

  private Node problemPane() {
    problemList.setId("problem-list");
    problemList.setPlaceholder(new Label("\u2714 valid: kvlab loads this cluster file"));
    problemList.setCellFactory(l -> new ListCell<>() {
      @Override
      protected void updateItem(DesignValidator.Problem p, boolean empty) {
        super.updateItem(p, empty);
        setText(empty || p == null ? null : "\u26a0 " + p.message());
        setWrapText(true);
        setPrefWidth(0);
        setStyle(empty ? "" : "-fx-text-fill: #b00020;");
      }
    });
    problemList.getSelectionModel().selectedItemProperty().addListener((o, a, p) -> {
      if (p != null && (p.target().startsWith("server:") || p.target().startsWith("link:"))) {
        canvas.select(Set.of(p.target()));
      }
    });
    Label title = new Label("Validation (kvlab's cluster-file loader, messages as the CLI prints them)");
    title.setStyle("-fx-font-weight: bold;");
    status.setId("status");
    status.setStyle("-fx-text-fill: #555;");
    HBox head = new HBox(20, title, status, fileLabel);
    head.setAlignment(Pos.CENTER_LEFT);
    VBox box = new VBox(4, head, problemList);
    VBox.setVgrow(problemList, Priority.ALWAYS);
    box.setPadding(new Insets(4, 8, 4, 8));
    return box;
  }

  // ---------------------------------------------------------------------------------------------
  // Property panel

  private void buildProperties() {
    fieldProblems.clear();
    properties.getChildren().clear();
    properties.getChildren().add(selectionPane());
    properties.getChildren().add(clusterPane());
    properties.getChildren().add(paramsPane());
    properties.getChildren().add(serversPane());
    properties.getChildren().add(clientsPane());
    properties.getChildren().add(storagePane());
    properties.getChildren().add(emulationPane());
    properties.getChildren().add(mapPane("Limits", "limits", design.limits, List.of(
        new String[] {"frameBytesMax", "16777216", "largest frame body in bytes (4096 to 1073741824)"},
        new String[] {"peerQueueMessagesMax", "1000000", "unacknowledged messages per peer channel before send() pushes back"},
        new String[] {"clientRequestsInFlightMax", "10000", "outstanding requests per client connection"},
        new String[] {"handshakeMillis", "5000", "time a connection has to complete its handshake (100 to 600000)"},
        new String[] {"clientIdleSeconds", "600", "an idle client connection is closed after this (0: never)"},
        new String[] {"peerFlushMicros", "1000", "a peer channel writes at most once per this many µs (0: every turn)"},
        new String[] {"partialFrameBytesMax", "67108864", "bytes all connections may hold in partly received frames"}),
        true));
    properties.getChildren().add(mapPane("Security", "security", design.security, List.of(
        new String[] {"secretFile", ".kvlab/local/<name>/secret", "file with the cluster secret (created by local up)"},
        new String[] {"clientToken", "none", "if set (16+ characters), clients must prove they know it"}), true));
    if (!design.opaque.isEmpty()) {
      Label kept = new Label("Kept as written (not edited here): " + String.join(", ", design.opaque.keySet()));
      kept.setWrapText(true);
      kept.setStyle("-fx-text-fill: #555;");
      properties.getChildren().add(kept);
    }
    // apply the current problems to the new fields
    Map<String, List<String>> byTarget = new HashMap<>();
    String source = file == null ? "(new design)" : relative(file);
    for (DesignValidator.Problem p : problems) {
      byTarget.computeIfAbsent(p.target(), k -> new ArrayList<>()).add(shortMessage(p.message(), source));
    }
    for (Map.Entry<String, Label> e : fieldProblems.entrySet()) {
      List<String> mine = byTarget.getOrDefault(e.getKey(), List.of());
      e.getValue().setText(mine.isEmpty() ? "" : "\u26a0 " + String.join("\n\u26a0 ", mine));
      e.getValue().setVisible(!mine.isEmpty());
      e.getValue().setManaged(!mine.isEmpty());
    }
  }

  private Label problemLabel(String target) {
    Label l = new Label();
    l.setId("problem-" + target.replace(':', '-').replace('.', '-'));
    l.setWrapText(true);
    l.setMaxWidth(Double.MAX_VALUE);
    l.setStyle("-fx-text-fill: #b00020; -fx-font-size: 11px;");
    l.setVisible(false);
    l.setManaged(false);
    fieldProblems.put(target, l);
    return l;
  }

  private static Label doc(String text) {
    Label l = new Label(text);
    l.setWrapText(true);
    l.setMaxWidth(Double.MAX_VALUE);
    l.setStyle("-fx-text-fill: #555; -fx-font-size: 11px;");
    return l;
  }

  private TitledPane titled(String title, Node content, boolean collapsed) {
    TitledPane t = new TitledPane(title, content);
    t.setExpanded(!collapsed);
    t.setId("section-" + title.toLowerCase().replace(' ', '-'));
    return t;
  }

  /** A text field bound to one value: typing changes the design (one undo step per field). */
  private TextField field(String id, String value, String prompt, Consumer<String> set) {
    TextField f = new TextField(value == null ? "" : value);
    f.setId(id);
    f.setPromptText(prompt);
    f.textProperty().addListener((o, a, v) -> typed(() -> set.accept(v)));
    f.focusedProperty().addListener((o, a, focused) -> {
      if (!focused) {
        commitEdit();
      }
    });
    f.setOnAction(e -> commitEdit());
    return f;
  }

  private Node selectionPane() {
    VBox box = new VBox(6);
    Set<String> sel = canvas.selection();
    List<NodeId> servers = new ArrayList<>();
    for (String s : sel) {
      if (s.startsWith("server:")) {
        servers.add(NodeId.parse(s.substring(7)));
      }
    }
    Label head = new Label(sel.isEmpty() ? "Nothing selected: click a server, a datacenter or a link on the canvas"
        + " (shift-click or drag a rectangle to select several)" : "Selected: " + String.join(", ", sel));
    head.setWrapText(true);
    box.getChildren().add(head);
    if (servers.size() == 1) {
      NodeId id = servers.get(0);
      String idText = Design.idText(id.dc(), id.partition(), id.replica());
      GridPane g = grid();
      g.addRow(0, new Label("host"), field("server-host", design.hostOf(id), "127.0.0.1", v -> {
        design.materializeServers();
        Design.ServerEntry e = design.entry(id);
        if (e != null) {
          e.host = v;
        }
      }));
      g.addRow(1, new Label("port"), field("server-port", design.portOf(id), "7100", v -> {
        design.materializeServers();
        Design.ServerEntry e = design.entry(id);
        if (e != null) {
          e.port = v;
        }
      }));
      g.addRow(2, new Label("clock skew"), field("server-skew", design.skew.get(idText), "none (e.g. 5ms, -3ms)", v -> {
        if (v.isBlank()) {
          design.skew.remove(idText);
        } else {
          design.skew.put(idText, v);
        }
      }));
      box.getChildren().addAll(g, problemLabel("server:" + idText),
          doc(design.local ? "Servers are generated by 'local'; editing one host or port lists every server in the file."
              : "Server " + idText + ": datacenter " + id.dc() + ", partition " + id.partition()
                  + (design.replicas > 1 ? ", replica " + id.replica() : "")));
    } else if (!servers.isEmpty()) {
      GridPane g = grid();
      g.addRow(0, new Label("host of all " + servers.size()), field("selection-host", "", "set the host of every selected server", v -> {
        design.materializeServers();
        for (NodeId id : servers) {
          Design.ServerEntry e = design.entry(id);
          if (e != null) {
            e.host = v;
          }
        }
      }));
      box.getChildren().add(g);
    }
    for (String s : sel) {
      if (s.startsWith("clients:") && experiment != null && experiment.ok()) {
        int d = Integer.parseInt(s.substring(8));
        Button del = button("Delete client group", "delete-clients-button", "No client JVMs in datacenter " + d);
        del.setOnAction(e -> deleteClients(new TreeSet<>(Set.of(d))));
        box.getChildren().addAll(doc("Client group of datacenter " + d + ": " + experiment.processes()
            + " client JVM(s) with " + experiment.threads() + " YCSB thread(s) each, talking to datacenter " + d
            + ". Their size is the experiment's clients: section, the same for every group (edit it under"
            + " Clients below); drag the group onto another datacenter to move the load there."), del);
      } else if (s.startsWith("link:")) {
        String[] ab = s.split(":");
        int a = Integer.parseInt(ab[1]);
        int b = Integer.parseInt(ab[2]);
        GridPane g = grid();
        g.addRow(0, new Label("RTT " + a + " \u2194 " + b), field("link-rtt", design.rtt == null ? "" : design.rtt[a][b],
            "no delay (e.g. 40ms)", v -> design.setRtt(a, b, v.isBlank() ? "0" : v)));
        box.getChildren().addAll(g, problemLabel(s));
      } else if (s.startsWith("dc:")) {
        int d = Integer.parseInt(s.substring(3));
        GridPane g = grid();
        g.addRow(0, new Label("hosts of datacenter " + d), field("dc-host", "", "set the host of all its servers", v -> {
          design.materializeServers();
          for (Design.ServerEntry e : design.servers) {
            if (e.nodeId().map(n -> n.dc() == d).orElse(false)) {
              e.host = v;
            }
          }
        }));
        box.getChildren().add(g);
      }
    }
    return titled("Selection", box, false);
  }

  private static GridPane grid() {
    GridPane g = new GridPane();
    g.setHgap(8);
    g.setVgap(6);
    // labels in the first column keep their full text
    javafx.scene.layout.ColumnConstraints first = new javafx.scene.layout.ColumnConstraints();
    first.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
    javafx.scene.layout.ColumnConstraints second = new javafx.scene.layout.ColumnConstraints();
    second.setHgrow(Priority.ALWAYS);
    g.getColumnConstraints().addAll(first, second);
    return g;
  }

  private Node clusterPane() {
    GridPane g = grid();
    TextField name = field("name-field", design.name, "e.g. eventual-2dc-3p", v -> {
      design.opaque.remove("name");
      design.name = v;
    });
    ComboBox<String> protocol = new ComboBox<>();
    protocol.setId("protocol-box");
    protocol.setEditable(false);
    for (Protocol p : protocols) {
      protocol.getItems().add(p.name());
    }
    if (!design.protocol.isBlank() && !protocol.getItems().contains(design.protocol)) {
      protocol.getItems().add(design.protocol);
    }
    protocol.setValue(design.protocol);
    protocol.setOnAction(e -> {
      String v = protocol.getValue();
      if (v != null && !v.equals(design.protocol)) {
        edit("protocol " + v, () -> {
          design.opaque.remove("protocol");
          design.protocol = v;
        });
      }
    });
    Protocol p = installed(design.protocol);
    Label summary = doc(p == null ? "not installed (kvlab protocols lists the installed ones)" : p.summary());
    summary.setId("protocol-summary");
    g.addRow(0, new Label("name"), name);
    g.add(problemLabel("field:name"), 1, 1);
    g.addRow(2, new Label("protocol"), protocol);
    g.add(summary, 1, 3);
    g.add(problemLabel("field:protocol"), 1, 4);
    GridPane.setHgrow(name, Priority.ALWAYS);
    return titled("Cluster", g, false);
  }

  /** The installed protocol of exactly this name (names are matched exactly everywhere: they are in handshakes). */
  private Protocol installed(String name) {
    for (Protocol p : protocols) {
      if (p.name().equals(name)) {
        return p;
      }
    }
    return null;
  }

  /** The protocol's parameters, from its declarations: a field (or a choice) each, with form, default and meaning. */
  private Node paramsPane() {
    VBox box = new VBox(6);
    box.setId("params-pane");
    Protocol p = installed(design.protocol);
    List<ParamSpec> specs = p == null ? List.of() : ParamSpec.of(p);
    if (p != null && specs.isEmpty()) {
      box.getChildren().add(doc("Protocol " + p.name() + " reads no parameters."));
    }
    if (p == null) {
      box.getChildren().add(doc("The protocol is not installed: its parameters cannot be listed or checked."));
    }
    for (ParamSpec s : specs) {
      Label name = new Label(s.name());
      name.setStyle("-fx-font-weight: bold;");
      Node control;
      if (!s.choices().isEmpty()) {
        ComboBox<String> c = new ComboBox<>();
        c.setId("param-" + s.name());
        c.getItems().add("");
        c.getItems().addAll(s.choices());
        String v = design.params.get(s.name());
        if (v != null && !c.getItems().contains(v)) {
          c.getItems().add(v);
        }
        c.setValue(v == null ? "" : v);
        c.setPromptText("default " + s.defaultValue());
        c.setOnAction(e -> {
          String nv = c.getValue() == null || c.getValue().isEmpty() ? null : c.getValue();
          if (!java.util.Objects.equals(nv, design.params.get(s.name()))) {
            edit("params." + s.name() + (nv == null ? " back to its default" : " = " + nv), () -> {
              if (nv == null) {
                design.params.remove(s.name());
              } else {
                design.params.put(s.name(), nv);
              }
            });
          }
        });
        control = c;
      } else {
        control = field("param-" + s.name(), design.params.get(s.name()), "default " + s.defaultValue(), v -> {
          design.opaque.remove("params");
          if (v.isBlank()) {
            design.params.remove(s.name());
          } else {
            design.params.put(s.name(), v);
          }
        });
      }
      HBox row = new HBox(8, name, control);
      row.setAlignment(Pos.CENTER_LEFT);
      HBox.setHgrow(control, Priority.ALWAYS);
      box.getChildren().addAll(row, doc((s.form().isEmpty() ? "" : s.form() + ", default " + s.defaultValue() + ": ")
          + s.doc()), problemLabel("param:" + s.name()));
    }
    // parameters in the file that the protocol does not declare: shown so they can be removed
    for (String k : new ArrayList<>(design.params.keySet())) {
      if (specs.stream().anyMatch(s -> s.name().equals(k))) {
        continue;
      }
      Button remove = button("Remove", "remove-param-" + k, "Remove this parameter from the file");
      remove.setOnAction(e -> edit("removed params." + k, () -> design.params.remove(k)));
      TextField f = field("param-" + k, design.params.get(k), "", v -> design.params.put(k, v));
      HBox row = new HBox(8, new Label(k), f, remove);
      row.setAlignment(Pos.CENTER_LEFT);
      box.getChildren().addAll(row, problemLabel("param:" + k));
    }
    TextField newName = new TextField();
    newName.setId("new-param-name");
    newName.setPromptText("name");
    TextField newValue = new TextField();
    newValue.setId("new-param-value");
    newValue.setPromptText("value");
    Button add = button("Add", "add-param-button", "Add a parameter by name (for protocols not installed here)");
    add.setOnAction(e -> {
      String k = newName.getText().strip();
      if (!k.isEmpty()) {
        edit("params." + k + " = " + newValue.getText(), () -> {
          design.opaque.remove("params");
          design.params.put(k, newValue.getText().strip());
        });
      }
    });
    HBox addRow = new HBox(6, newName, newValue, add);
    box.getChildren().addAll(new Separator(), addRow, problemLabel("field:params"));
    return titled("Protocol parameters", box, false);
  }

  private Node serversPane() {
    VBox box = new VBox(6);
    GridPane shape = grid();
    shape.addRow(0, new Label("datacenters"), countControl("dcs", design.datacenters(), this::addDatacenter,
        () -> edit("removed datacenter " + (design.datacenters() - 1), () -> design.removeDatacenter(design.datacenters() - 1))));
    shape.addRow(1, new Label("partitions"), countControl("partitions", design.partitions,
        () -> edit("added a partition", design::addPartition),
        () -> edit("removed partition " + (design.partitions - 1), () -> design.removePartition(design.partitions - 1))));
    shape.addRow(2, new Label("replicas"), countControl("replicas", design.replicas,
        () -> edit("added a replica", design::addReplica),
        () -> edit("removed replica " + (design.replicas - 1), () -> design.removeReplica(design.replicas - 1))));
    box.getChildren().addAll(shape, problemLabel("field:datacenters"), problemLabel("field:partitions"),
        problemLabel("field:replicas"));
    ToggleGroup mode = new ToggleGroup();
    RadioButton local = new RadioButton("generate them on one host (local)");
    local.setId("mode-local");
    local.setToggleGroup(mode);
    RadioButton list = new RadioButton("list each server (servers)");
    list.setId("mode-servers");
    list.setToggleGroup(mode);
    (design.local ? local : list).setSelected(true);
    local.setOnAction(e -> {
      if (!design.local) {
        edit("servers generated by local", () -> {
          design.opaque.remove("servers");
          design.local = true;
          design.localHost = design.servers.isEmpty() ? null : design.servers.get(0).host;
          int min = design.servers.stream().mapToInt(s -> {
            try {
              return Integer.parseInt(s.port.strip());
            } catch (NumberFormatException x) {
              return Integer.MAX_VALUE;
            }
          }).min().orElse(7100);
          design.localBasePort = String.valueOf(min == Integer.MAX_VALUE ? 7100 : min);
          design.servers.clear();
        });
      }
    });
    list.setOnAction(e -> {
      if (design.local) {
        edit("servers listed one by one", () -> {
          design.opaque.remove("local");
          design.materializeServers();
        });
      }
    });
    box.getChildren().addAll(new Label("Servers:"), local, list);
    if (design.local) {
      GridPane g = grid();
      g.addRow(0, new Label("host"), field("local-host", design.localHost, "127.0.0.1", v -> design.localHost = v.isBlank() ? null : v));
      g.addRow(1, new Label("basePort"), field("local-base-port", design.localBasePort, "7100", v -> design.localBasePort = v));
      box.getChildren().addAll(g, doc("Server d_p (replica r) listens on basePort + (d * partitions + p) * replicas + r."),
          problemLabel("field:local"));
    } else {
      box.getChildren().add(doc("Select a server on the canvas to edit its host, port and clock skew; select a"
          + " datacenter to set the host of all its servers."));
    }
    box.getChildren().add(problemLabel("field:servers"));
    return titled("Topology, hosts and ports", box, false);
  }

  private Node countControl(String id, int value, Runnable plus, Runnable minus) {
    Button m = button("\u2212", id + "-minus", "Remove the last one");
    m.setOnAction(e -> minus.run());
    m.setDisable(value <= 1);
    Button p = button("+", id + "-plus", "Add one");
    p.setOnAction(e -> plus.run());
    Label v = new Label(String.valueOf(value));
    v.setId(id + "-count");
    v.setMinWidth(28);
    v.setAlignment(Pos.CENTER);
    HBox h = new HBox(4, m, v, p);
    h.setAlignment(Pos.CENTER_LEFT);
    return h;
  }

  private Node storagePane() {
    GridPane g = grid();
    g.addRow(0, new Label("engine"), choice("storage-engine", "storage", "engine", List.of("je", "memory"), "default je"));
    g.add(problemLabel("field:storage.engine"), 1, 1);
    g.addRow(2, new Label("durability"), choice("storage-durability", "storage", "durability", List.of("none", "sync"),
        "default none"));
    g.add(problemLabel("field:storage.durability"), 1, 3);
    TextField dir = field("storage-dir", design.storage.get("dir"), "default .kvlab/data", v -> {
      design.opaque.remove("storage");
      if (v.isBlank()) {
        design.storage.remove("dir");
      } else {
        design.storage.put("dir", v);
      }
    });
    g.addRow(4, new Label("dir"), dir);
    g.add(problemLabel("field:storage.dir"), 1, 5);
    g.add(doc("je: Berkeley DB JE on disk; memory: lost on exit. sync: a reply waits for the fsync of its write."
        + " A relative dir is resolved in the working directory of each server."), 0, 6, 2, 1);
    g.add(problemLabel("field:storage"), 0, 7, 2, 1);
    GridPane.setHgrow(dir, Priority.ALWAYS);
    return titled("Storage", g, false);
  }

  private Node choice(String id, String section, String key, List<String> values, String prompt) {
    Map<String, String> map = design.storage;
    ComboBox<String> c = new ComboBox<>();
    c.setId(id);
    c.getItems().add("");
    c.getItems().addAll(values);
    String v = map.get(key);
    if (v != null && !c.getItems().contains(v)) {
      c.getItems().add(v);
    }
    c.setValue(v == null ? "" : v);
    c.setPromptText(prompt);
    c.setOnAction(e -> {
      String nv = c.getValue() == null || c.getValue().isEmpty() ? null : c.getValue();
      if (!java.util.Objects.equals(nv, map.get(key))) {
        edit(section + "." + key + (nv == null ? " back to its default" : " = " + nv), () -> {
          design.opaque.remove(section);
          if (nv == null) {
            map.remove(key);
          } else {
            map.put(key, nv);
          }
        });
      }
    });
    return c;
  }

  private Node emulationPane() {
    VBox box = new VBox(6);
    Button edit = button("Edit latency matrix...", "rtt-edit", "Round-trip times between datacenters, with presets");
    edit.setOnAction(e -> editLatencies());
    String summary;
    if (design.rtt == null) {
      summary = "No emulated WAN delay (messages between datacenters are not delayed).";
    } else {
      StringBuilder sb = new StringBuilder("emulation.rtt:\n");
      for (String[] row : design.rtt) {
        sb.append("  [").append(String.join(", ", row)).append("]\n");
      }
      summary = sb.toString().stripTrailing();
    }
    Label s = new Label(summary);
    s.setId("rtt-summary");
    s.setStyle("-fx-font-family: monospace;");
    box.getChildren().addAll(edit, s, problemLabel("field:emulation.rtt"), problemLabel("field:emulation"),
        doc(design.skew.isEmpty() ? "No clock skew (select a server to give it one)." : "Clock skew: " + design.skew));
    return titled("Emulation (WAN delays, clock skew)", box, false);
  }

  private Node mapPane(String title, String section, Map<String, String> map, List<String[]> keys, boolean collapsed) {
    GridPane g = grid();
    int row = 0;
    for (String[] k : keys) {
      TextField f = field(section + "-" + k[0], map.get(k[0]), "default " + k[1], v -> {
        design.opaque.remove(section);
        if (v.isBlank()) {
          map.remove(k[0]);
        } else {
          map.put(k[0], v);
        }
      });
      f.setTooltip(new Tooltip(k[2]));
      g.addRow(row++, new Label(k[0]), f);
      GridPane.setHgrow(f, Priority.ALWAYS);
      g.add(problemLabel("field:" + section + "." + k[0]), 1, row++);
    }
    g.add(problemLabel("field:" + section), 0, row, 2, 1);
    boolean hasProblem = problems.stream().anyMatch(p -> p.target().startsWith("field:" + section));
    return titled(title, g, collapsed && map.isEmpty() && !hasProblem);
  }
}
