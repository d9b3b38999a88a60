package org.kvlab.designer.design;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.geometry.Bounds;
import javafx.stage.WindowEvent;
import org.testfx.util.WaitForAsyncUtils;
import javafx.scene.Node;
import javafx.scene.control.ScrollPane;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonType;
import javafx.scene.control.DialogPane;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import javafx.scene.input.MouseButton;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.config.ClusterConfig;
import org.kvlab.designer.MainWindow;
import org.kvlab.designer.Workspace;
import org.kvlab.designer.testing.Screenshots;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** The Design tab driven as a person drives it: clicks, typing, drags, keys; then the files and the model are checked. */
@ExtendWith(ApplicationExtension.class)
class DesignViewTest {
  private Workspace workspace;
  private Stage stage;
  private DesignView view;
  private final List<String> errors = new ArrayList<>();
  private Path saveTo;
  private Path openFrom;

  @TempDir
  Path tmp;

  @Start
  void start(Stage stage) {
    Platform.setImplicitExit(false); // a test closes the window; the toolkit must stay up for the next one
    this.stage = stage;
    workspace = new Workspace(Path.of("").toAbsolutePath().getParent());
    MainWindow window = new MainWindow(workspace, stage);
    view = (DesignView) window.views().get(0);
    view.saveChooser = w -> saveTo;
    view.openChooser = w -> openFrom;
    view.showError = errors::add;
    stage.setScene(new Scene(window.root(), 1400, 900));
    stage.show();
  }

  @AfterEach
  void close() {
    workspace.close();
  }

  /** Scrolls the pane that holds the node so a person could see it (as they would with the scroll bar). */
  private void reveal(FxRobot robot, String query) {
    Node n = robot.lookup(query).query();
    robot.interact(() -> {
      Node p = n.getParent();
      while (p != null && !(p instanceof ScrollPane)) {
        p = p.getParent();
      }
      if (p instanceof ScrollPane sp) {
        Bounds nb = n.localToScene(n.getBoundsInLocal());
        Bounds cb = sp.getContent().localToScene(sp.getContent().getBoundsInLocal());
        double range = cb.getHeight() - sp.getViewportBounds().getHeight();
        if (range > 0) {
          sp.setVvalue(Math.max(0, Math.min(1, (nb.getMinY() - cb.getMinY() - 40) / range)));
        }
      }
    });
  }

  private void type(FxRobot robot, String query, String text) {
    reveal(robot, query);
    robot.clickOn(query);
    robot.press(KeyCode.CONTROL).type(KeyCode.A).release(KeyCode.CONTROL);
    robot.type(KeyCode.BACK_SPACE);
    robot.write(text);
  }

  private Label label(FxRobot robot, String query) {
    return robot.lookup(query).queryAs(Label.class);
  }

  @Test
  void createsA2x3DesignByGesturesSavesAndReloadsIt(FxRobot robot) throws Exception {
    Path shot = Screenshots.save(stage.getScene(), "design-empty");
    assertTrue(Files.size(shot) > 1000);
    assertTrue(view.problems().isEmpty(), "a new design is valid: " + view.problems());

    robot.clickOn("#add-dc-button");
    robot.clickOn("#add-partition-button");
    robot.clickOn("#add-partition-button");
    assertEquals(2, view.design().datacenters());
    assertEquals(3, view.design().partitions);
    assertNotNull(robot.lookup("#server-1_2").query());

    type(robot, "#name-field", "two-by-three");
    reveal(robot, "#protocol-box");
    robot.clickOn("#protocol-box");
    robot.clickOn("gentlerain");
    assertEquals("gentlerain", view.design().protocol);
    // gentlerain's parameters appear from its declarations, each with its documentation
    assertNotNull(robot.lookup("#param-gstInterval").query());
    type(robot, "#param-heartbeat", "20ms");

    // drag datacenter 1 down and right
    double x0 = view.design().dcs.get(1).x;
    double y0 = view.design().dcs.get(1).y;
    robot.drag("#server-1_0", MouseButton.PRIMARY).dropBy(60, 90);
    assertTrue(view.design().dcs.get(1).x > x0 + 30 && view.design().dcs.get(1).y > y0 + 50,
        "moved: " + view.design().dcs.get(1).x + "," + view.design().dcs.get(1).y);

    // a 40 ms WAN between the two datacenters, through the matrix editor
    robot.clickOn("#rtt-button");
    robot.clickOn("#rtt-enabled");
    type(robot, "#rtt-0-1", "40ms");
    assertEquals("40ms", robot.lookup("#rtt-1-0").queryAs(TextField.class).getText(), "kept symmetric");
    robot.clickOn(robot.lookup("#rtt-dialog").queryAs(DialogPane.class).lookupButton(ButtonType.OK));
    assertEquals("40ms", view.design().rtt[0][1]);

    robot.clickOn("#server-0_1");
    assertTrue(view.problems().isEmpty(), view.problems().toString());
    Screenshots.save(stage.getScene(), "design-2x3");

    saveTo = tmp.resolve("two-by-three.yaml");
    robot.clickOn("#save-button");
    assertTrue(errors.isEmpty(), errors.toString());
    assertEquals(saveTo, workspace.clusterFile().get());
    ClusterConfig saved = ClusterConfig.load(saveTo);
    assertEquals("two-by-three", saved.name());
    assertEquals("gentlerain", saved.protocol());
    assertEquals(2, saved.topology().datacenters());
    assertEquals(3, saved.topology().partitions());
    assertEquals(6, saved.servers().size());
    assertEquals("20ms", saved.params().asMap().get("heartbeat"));
    assertEquals(40, saved.emulation().rttMillis()[0][1]);
    String before = DesignYaml.write(view.design());
    String text = Files.readString(saveTo);

    // reload: a new design, then open the saved file
    robot.clickOn("#new-button");
    assertEquals(1, view.design().datacenters());
    openFrom = saveTo;
    robot.clickOn("#open-button");
    assertEquals(before, DesignYaml.write(view.design()), "the reloaded design equals the saved one");
    assertEquals(text, DesignYaml.write(view.design(), text));
    assertFalse(view.dirty());
    // save without changes: the same bytes
    robot.clickOn("#save-button");
    assertEquals(text, Files.readString(saveTo));
  }

  @Test
  void showsValidationErrorsBesideTheirElements(FxRobot robot) throws Exception {
    Path file = tmp.resolve("eventual-2dc-3p.yaml");
    Files.copy(Path.of("..", "examples", "eventual-2dc-3p.yaml"), file);
    robot.interact(() -> view.open(file));
    assertTrue(view.problems().isEmpty(), view.problems().toString());

    // a duplicate port
    robot.clickOn("#server-1_0");
    type(robot, "#server-port", "7100");
    Label beside = label(robot, "#problem-server-1_0");
    assertTrue(beside.isVisible() && beside.getText().contains("127.0.0.1:7100 is already used by server 0_0"),
        beside.getText());
    assertTrue(label(robot, "#dc-problems-1").getText().contains("1_0: servers[3].port: 127.0.0.1:7100 is already used"),
        label(robot, "#dc-problems-1").getText());
    // the list shows the CLI's message: file, line, column, problem, fix
    assertEquals(1, view.problems().size(), view.problems().toString());
    assertTrue(view.problems().get(0).message().matches(".*eventual-2dc-3p.yaml:13:39: servers\\[3\\]\\.port: "
        + "127\\.0\\.0\\.1:7100 is already used by server 0_0 \\(line 10\\)\\. Fix: give each server its own host:port\\."),
        view.problems().get(0).message());

    // an unknown protocol parameter, beside the parameter
    reveal(robot, "#protocol-box");
    robot.clickOn("#protocol-box");
    robot.clickOn("gentlerain");
    type(robot, "#new-param-name", "hearbeat");
    type(robot, "#new-param-value", "10ms");
    reveal(robot, "#add-param-button");
    robot.clickOn("#add-param-button");
    Label param = label(robot, "#problem-param-hearbeat");
    assertTrue(param.isVisible() && param.getText().contains("'hearbeat' is not a parameter of protocol gentlerain."
        + " Fix: did you mean 'heartbeat'?"), param.getText());
    assertEquals(2, view.problems().size(), view.problems().toString());
    robot.clickOn("#server-1_0");
    Screenshots.save(stage.getScene(), "design-validation");

    // fixing both clears them
    type(robot, "#server-port", "7103");
    reveal(robot, "#remove-param-hearbeat");
    robot.clickOn("#remove-param-hearbeat");
    assertTrue(view.problems().isEmpty(), view.problems().toString());
    assertFalse(robot.lookup("#dc-problems-1").tryQuery().isPresent());
  }

  @Test
  void undoRedoSelectionDeleteCopyPaste(FxRobot robot) {
    robot.clickOn("#add-dc-button");
    robot.clickOn("#add-partition-button");
    assertEquals(2, view.design().datacenters());
    assertEquals(2, view.design().partitions);
    robot.clickOn("#design-canvas");
    robot.press(KeyCode.CONTROL).type(KeyCode.Z).release(KeyCode.CONTROL);
    assertEquals(1, view.design().partitions);
    robot.clickOn("#undo-button");
    assertEquals(1, view.design().datacenters());
    assertTrue(robot.lookup("#undo-button").queryAs(Button.class).isDisabled());
    robot.clickOn("#design-canvas");
    robot.press(KeyCode.CONTROL).type(KeyCode.Y).release(KeyCode.CONTROL);
    assertEquals(2, view.design().datacenters());
    robot.clickOn("#redo-button");
    assertEquals(2, view.design().partitions);

    // a typed name is one undo step
    type(robot, "#name-field", "abc");
    assertEquals("abc", view.design().name);
    robot.clickOn("#undo-button");
    assertEquals("my-cluster", view.design().name);
    robot.clickOn("#redo-button");
    assertEquals("abc", view.design().name);

    // shift-click selects two servers; rubber band selects both datacenters
    robot.clickOn("#server-0_0");
    robot.press(KeyCode.SHIFT).clickOn("#server-1_1").release(KeyCode.SHIFT);
    assertEquals(Set.of("server:0_0", "server:1_1"), view.canvasSelection());
    robot.moveTo("#design-canvas").moveBy(0, 0);
    Node canvas = robot.lookup("#design-canvas").query();
    javafx.geometry.Bounds b = canvas.localToScreen(canvas.getBoundsInLocal());
    robot.drag(b.getMinX() + 5, b.getMinY() + 5, MouseButton.PRIMARY).dropTo(
        new javafx.geometry.Point2D(b.getMinX() + 900, b.getMinY() + 500));
    assertEquals(Set.of("dc:0", "dc:1"), view.canvasSelection());

    // copy datacenter 1 and paste it: a third datacenter with its own ports
    robot.clickOn("#dc-1");
    robot.press(KeyCode.CONTROL).type(KeyCode.C).release(KeyCode.CONTROL);
    robot.press(KeyCode.CONTROL).type(KeyCode.V).release(KeyCode.CONTROL);
    assertEquals(3, view.design().datacenters());
    assertTrue(view.problems().isEmpty(), view.problems().toString());
    // delete it with the Delete key, then undo brings it back
    assertEquals(Set.of("dc:2"), view.canvasSelection());
    robot.type(KeyCode.DELETE);
    assertEquals(2, view.design().datacenters());
    robot.clickOn("#undo-button");
    assertEquals(3, view.design().datacenters());
    // deleting a server deletes its partition in every datacenter (the topology is datacenters x partitions)
    robot.clickOn("#server-0_1");
    robot.clickOn("#delete-button");
    assertEquals(1, view.design().partitions);
    assertEquals(3, view.design().servers.size());
    assertTrue(view.problems().isEmpty(), view.problems().toString());
  }

  @Test
  void latencyMatrixEditorAppliesTheSeedsTable51(FxRobot robot) throws Exception {
    robot.clickOn("#add-dc-button");
    robot.clickOn("#rtt-button");
    robot.clickOn("#rtt-preset");
    robot.clickOn("Seed Table 5.1: A, B in California, C in Singapore");
    robot.clickOn("#rtt-apply-preset");
    assertEquals("176ms", robot.lookup("#rtt-0-2").queryAs(TextField.class).getText());
    assertEquals("176ms", robot.lookup("#rtt-2-1").queryAs(TextField.class).getText());
    // a wrong entry: the loader's message appears in the editor
    type(robot, "#rtt-0-1", "1500us");
    assertTrue(label(robot, "#rtt-problems").getText().contains("'1500us' is not a whole number of milliseconds"),
        label(robot, "#rtt-problems").getText());
    DialogPane pane = robot.lookup("#rtt-dialog").queryAs(DialogPane.class);
    Screenshots.save(pane.getScene(), "design-latency-matrix");
    type(robot, "#rtt-0-1", "1ms");
    assertTrue(label(robot, "#rtt-problems").getText().contains("valid"));
    robot.clickOn(pane.lookupButton(ButtonType.OK));
    assertEquals(3, view.design().datacenters(), "the preset's 3 datacenters");
    assertEquals("176ms", view.design().rtt[2][0]);
    assertTrue(view.problems().isEmpty(), view.problems().toString());
    assertTrue(robot.lookup("#link-0-2").queryAs(Label.class).getText().contains("176ms"));
    Screenshots.save(stage.getScene(), "design-3dc-table51");
  }

  @Test
  void theConsensusProtocols_appearWithTheirDeclaredParameters_andTheirShapeIsChecked(FxRobot robot) throws Exception {
    Path file = tmp.resolve("m2paxos-3.yaml");
    Files.copy(Path.of("..", "experiments", "openloop", "m2paxos-3.yaml"), file);
    robot.interact(() -> view.open(file));
    assertTrue(view.problems().isEmpty(), view.problems().toString());
    assertEquals(3, view.design().datacenters());
    // M²Paxos's parameters from its declarations: Multi-Paxos is its leader parameter, no GUI code per protocol
    assertNotNull(robot.lookup("#param-leader").query());
    assertNotNull(robot.lookup("#param-initialOwner").query());
    assertNotNull(robot.lookup("#param-forwardTimeout").query());
    Screenshots.save(stage.getScene(), "design-m2paxos");
    // a second partition is not "N replicas of everything": the protocol's own shape check says so, with the fix
    robot.clickOn("#add-partition-button");
    assertTrue(view.problems().stream().anyMatch(pr -> pr.toString().contains("partition")), view.problems().toString());
    robot.clickOn("#undo-button");
    assertTrue(view.problems().isEmpty(), view.problems().toString());
    reveal(robot, "#protocol-box");
    robot.clickOn("#protocol-box");
    robot.clickOn("epaxos");
    assertEquals("epaxos", view.design().protocol);
    assertNotNull(robot.lookup("#param-thrifty").query());
    assertNotNull(robot.lookup("#param-recoveryTimeout").query());
    robot.clickOn("#undo-button"); // leaves the window as it was opened: nothing to ask about when it closes
    assertFalse(view.dirty(), "undone");
  }

  @Test
  void aReplicatedProtocolShowsItsReplicasAndDeclaredParameters(FxRobot robot) throws Exception {
    Path file = tmp.resolve("nukv-2dc-1p-3r.yaml");
    Files.copy(Path.of("..", "examples", "nukv-2dc-1p-3r.yaml"), file);
    String text = Files.readString(file);
    robot.interact(() -> view.open(file));
    assertTrue(view.problems().isEmpty(), view.problems().toString());
    assertNotNull(robot.lookup("#server-1_0_2").query(), "replica 2 of partition 0 in datacenter 1");
    // NuKV's levels come from its declarations: a choice of the declared alternatives
    @SuppressWarnings("unchecked")
    javafx.scene.control.ComboBox<String> read = robot.lookup("#param-readLevel").queryAs(javafx.scene.control.ComboBox.class);
    assertEquals(List.of("", "eventual", "mr", "ryw", "mr+ryw"), List.copyOf(read.getItems()));
    assertEquals("eventual", read.getValue());
    reveal(robot, "#param-readLevel");
    robot.clickOn("#param-readLevel");
    robot.clickOn("mr+ryw");
    assertEquals("mr+ryw", view.design().params.get("readLevel"));
    robot.clickOn("#server-0_0_1");
    Screenshots.save(stage.getScene(), "design-nukv-replicas");
    robot.clickOn("#save-button");
    // only the edited line changed, and it kept its comment
    List<String> before = List.of(text.split("\n", -1));
    List<String> after = List.of(Files.readString(file).split("\n", -1));
    assertEquals(before.size(), after.size());
    int changed = 0;
    for (int i = 0; i < before.size(); i++) {
      if (!before.get(i).equals(after.get(i))) {
        changed++;
        assertTrue(after.get(i).startsWith("  readLevel: mr+ryw") && after.get(i).endsWith(
            "# level of plain get (the shell's get@mr+ryw etc. choose per operation)"), after.get(i));
      }
    }
    assertEquals(1, changed);
    assertEquals("mr+ryw", ClusterConfig.load(file).params().asMap().get("readLevel"));

    // CaMu's modes, from its declarations too
    Path camu = tmp.resolve("camu-camu-8p.yaml");
    Files.copy(Path.of("..", "examples", "camu-camu-8p.yaml"), camu);
    robot.interact(() -> view.open(camu));
    @SuppressWarnings("unchecked")
    javafx.scene.control.ComboBox<String> mode = robot.lookup("#param-mode").queryAs(javafx.scene.control.ComboBox.class);
    assertEquals(List.of("", "pb", "tom", "camu"), List.copyOf(mode.getItems()));
    assertEquals("camu", mode.getValue());
    assertEquals(8, view.design().partitions);
  }

  /** Waits until the unsaved-changes prompt is up (it opens inside the click that asked for it). */
  private DialogPane unsavedPrompt(FxRobot robot) throws Exception {
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(
        () -> robot.lookup("#unsaved-dialog").tryQuery().isPresent()).get());
    return WaitForAsyncUtils.asyncFx(() -> robot.lookup("#unsaved-dialog").queryAs(DialogPane.class)).get();
  }

  private boolean promptGone(FxRobot robot) throws Exception {
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(
        () -> robot.lookup("#unsaved-dialog").tryQuery().isEmpty()).get());
    return true;
  }

  /** What the window manager does when the window's close button is pressed (Xvfb runs without one). */
  private void closeWindow() {
    Platform.runLater(() -> stage.fireEvent(new WindowEvent(stage, WindowEvent.WINDOW_CLOSE_REQUEST)));
  }

  @Test
  void asksBeforeUnsavedChangesAreLost(FxRobot robot) throws Exception {
    Path file = tmp.resolve("eventual-2dc-3p.yaml");
    Files.copy(Path.of("..", "examples", "eventual-2dc-3p.yaml"), file);
    String text = Files.readString(file);
    Path other = tmp.resolve("eventual-1dc-1p.yaml");
    Files.writeString(other, "name: other\nprotocol: eventual\ndatacenters: 1\npartitions: 1\n"
        + "local: { basePort: 7300 }\n");
    robot.interact(() -> view.open(file));
    assertEquals("eventual-2dc-3p.yaml \u2014 kvlab designer", stage.getTitle());

    // an edit: the title and the file label mark it
    type(robot, "#name-field", "edited");
    assertTrue(view.dirty());
    assertEquals("*eventual-2dc-3p.yaml \u2014 kvlab designer", stage.getTitle());
    assertTrue(label(robot, "#file-label").getText().endsWith("modified"));

    // New asks; Cancel is the default button, so Enter keeps the edit
    robot.clickOn("#new-button");
    DialogPane prompt = unsavedPrompt(robot);
    assertTrue(prompt.getHeaderText().contains("Save the changes to eventual-2dc-3p.yaml before starting a new design?"),
        prompt.getHeaderText());
    assertTrue(((Button) prompt.lookupButton(DesignView.CANCEL)).isDefaultButton());
    assertFalse(((Button) prompt.lookupButton(DesignView.SAVE)).isDefaultButton());
    Screenshots.save(prompt.getScene(), "design-unsaved-prompt");
    robot.type(KeyCode.ENTER);
    promptGone(robot);
    assertEquals("edited", view.design().name);
    assertEquals(file, view.file());
    assertTrue(stage.getTitle().startsWith("*"));

    // Open another file: Don't Save drops the edit, the first file is untouched
    openFrom = other;
    robot.clickOn("#open-button");
    unsavedPrompt(robot);
    robot.clickOn("#unsaved-discard");
    promptGone(robot);
    assertEquals(other, view.file());
    assertEquals("other", view.design().name);
    assertEquals(text, Files.readString(file));
    assertFalse(view.dirty());
    assertEquals("eventual-1dc-1p.yaml \u2014 kvlab designer", stage.getTitle());

    // edit it, try to close the window: Cancel keeps the window and the edit
    type(robot, "#name-field", "other-edited");
    closeWindow();
    unsavedPrompt(robot);
    robot.clickOn("#unsaved-cancel");
    promptGone(robot);
    assertTrue(stage.isShowing(), "Cancel keeps the window open");
    assertEquals("other-edited", view.design().name);

    // another tab makes a file the workspace's: the same question; Cancel puts the design's file back
    Platform.runLater(() -> workspace.clusterFile().set(file));
    unsavedPrompt(robot);
    robot.clickOn("#unsaved-cancel");
    promptGone(robot);
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> other.equals(workspace.clusterFile().get()));
    assertEquals(other, view.file());
    assertEquals("other-edited", view.design().name);

    // close again: Save writes the edit, then the window closes
    closeWindow();
    unsavedPrompt(robot);
    robot.clickOn("#unsaved-save");
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> !stage.isShowing());
    assertEquals("other-edited", ClusterConfig.load(other).name());
    assertTrue(Files.readString(other).startsWith("name: other-edited\nprotocol: eventual\n"), Files.readString(other));
    assertTrue(errors.isEmpty(), errors.toString());
  }

  @Test
  void aSaveWithoutChangesClosesWithoutAsking(FxRobot robot) throws Exception {
    Path file = tmp.resolve("eventual-2dc-3p.yaml");
    Files.copy(Path.of("..", "examples", "eventual-2dc-3p.yaml"), file);
    robot.interact(() -> view.open(file));
    // a move is a change now that positions are saved; undoing it is not
    robot.drag("#server-1_0", MouseButton.PRIMARY).dropBy(40, 120);
    assertTrue(view.dirty());
    robot.clickOn("#undo-button");
    assertFalse(view.dirty());
    assertEquals("eventual-2dc-3p.yaml \u2014 kvlab designer", stage.getTitle());
    closeWindow();
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> !stage.isShowing());
    assertFalse(robot.lookup("#unsaved-dialog").tryQuery().isPresent());
  }

  @Test
  void canvasPositionsAreSavedAndReopened(FxRobot robot) throws Exception {
    Path file = tmp.resolve("eventual-2dc-3p.yaml");
    Files.copy(Path.of("..", "examples", "eventual-2dc-3p.yaml"), file);
    String text = Files.readString(file);
    robot.interact(() -> view.open(file));
    // datacenter 1 below datacenter 0, datacenter 0 a little to the right
    robot.drag("#server-1_0", MouseButton.PRIMARY).dropBy(-100, 260);
    robot.drag("#dc-0", MouseButton.PRIMARY).dropBy(30, 20);
    double x0 = view.design().dcs.get(0).x;
    double y0 = view.design().dcs.get(0).y;
    double x1 = view.design().dcs.get(1).x;
    double y1 = view.design().dcs.get(1).y;
    assertTrue(y1 > y0 + 150, "moved down: " + y1);
    assertTrue(stage.getTitle().startsWith("*"), "a move is an unsaved change: " + stage.getTitle());
    robot.press(KeyCode.CONTROL).type(KeyCode.S).release(KeyCode.CONTROL);
    assertFalse(stage.getTitle().startsWith("*"));
    String saved = Files.readString(file);
    // the cluster file is the same for the CLI: the positions are one comment line at its end
    assertTrue(saved.startsWith(text), "nothing else changed");
    assertEquals("# kvlab-designer: layout 0=" + Math.round(x0) + "," + Math.round(y0) + " 1=" + Math.round(x1) + ","
        + Math.round(y1) + "\n", saved.substring(text.length()));
    assertEquals(ClusterConfig.parse(text, "a").servers(), ClusterConfig.load(file).servers());
    Screenshots.save(stage.getScene(), "design-moved");

    // reopen: the same positions
    robot.clickOn("#new-button");
    assertEquals(40, view.design().dcs.get(0).x);
    openFrom = file;
    robot.clickOn("#open-button");
    assertEquals(Math.round(x0), view.design().dcs.get(0).x);
    assertEquals(Math.round(y0), view.design().dcs.get(0).y);
    assertEquals(Math.round(x1), view.design().dcs.get(1).x);
    assertEquals(Math.round(y1), view.design().dcs.get(1).y);
    Node box = robot.lookup("#dc-1").query();
    assertEquals(Math.round(y1), box.getLayoutY(), 0.5, "drawn where it was saved");
    assertFalse(view.dirty());
    robot.clickOn("#save-button");
    assertEquals(saved, Files.readString(file), "saved again without changes: the same bytes");
  }

  @Test
  void clientGroupsOfTheExperimentAreShownPlacedAndEdited(FxRobot robot) throws Exception {
    Path cluster = tmp.resolve("eventual-2dc-3p.yaml");
    Files.copy(Path.of("..", "examples", "eventual-2dc-3p.yaml"), cluster);
    Path exp = tmp.resolve("bench.yaml");
    String head = "# my benchmark\nname: clients-test\ncluster: { file: eventual-2dc-3p.yaml }\nprotocols: [eventual]\n";
    String tail = "recordcount: 100\nduration: 2s\n";
    Files.writeString(exp, head + "clients:\n  processes: 1   # one JVM\n  threads: 4\n  datacenters: [0]\n" + tail);
    robot.interact(() -> view.open(cluster));
    assertFalse(robot.lookup("#clients-0").tryQuery().isPresent(), "no experiment: no clients drawn");
    assertTrue(robot.lookup("#section-clients-(experiment-file)").tryQuery().isPresent());

    // choose the experiment in the Clients section: its group in datacenter 0 appears under that datacenter
    view.experimentChooser = w -> exp;
    reveal(robot, "#clients-choose");
    robot.clickOn("#clients-choose");
    assertEquals(exp, workspace.experimentFile().get());
    Label group0 = label(robot, "#clients-0");
    assertTrue(group0.getText().contains("client group\n1 JVM \u00d7 4 threads"), group0.getText());
    assertFalse(robot.lookup("#clients-1").tryQuery().isPresent());

    // datacenter 1 gets clients too: select it, + Clients
    robot.clickOn("#server-1_0");
    robot.clickOn("#add-clients-button");
    assertTrue(robot.lookup("#clients-1").tryQuery().isPresent());
    String text = Files.readString(exp);
    assertEquals(head + "clients:\n  processes: 1   # one JVM\n  threads: 4\n" + tail, text,
        "every datacenter: the datacenters key goes; nothing else changes");
    assertEquals(List.of(), org.kvlab.experiment.ExperimentLoader.load(exp, ExperimentClients.installedProtocols())
        .clients().datacenters());

    // the group of datacenter 0: select it, Delete
    robot.clickOn("#clients-0");
    assertEquals(Set.of("clients:0"), view.canvasSelection());
    robot.type(KeyCode.DELETE);
    assertFalse(robot.lookup("#clients-0").tryQuery().isPresent());
    assertTrue(Files.readString(exp).contains("\n  datacenters: [1]\n"), Files.readString(exp));
    assertEquals(2, view.design().datacenters(), "deleting a client group leaves the datacenter");

    // drag the group of datacenter 1 onto datacenter 0: the load comes from there now
    robot.drag("#clients-1", MouseButton.PRIMARY).dropTo("#server-0_1");
    assertTrue(robot.lookup("#clients-0").tryQuery().isPresent());
    assertFalse(robot.lookup("#clients-1").tryQuery().isPresent());
    assertEquals(List.of(0), org.kvlab.experiment.ExperimentLoader.load(exp, ExperimentClients.installedProtocols())
        .clients().datacenters());

    // the group's size: 8 threads per JVM (the line keeps its place; the processes line its comment)
    type(robot, "#clients-threads", "8");
    robot.type(KeyCode.ENTER);
    assertEquals(head + "clients:\n  processes: 1   # one JVM\n  threads: 8\n  datacenters: [0]\n" + tail,
        Files.readString(exp));
    assertTrue(label(robot, "#clients-0").getText().contains("1 JVM \u00d7 8 threads"));

    // client edits are undo steps: Undo writes the text before the edit back, Redo the edit again
    String fourThreads = head + "clients:\n  processes: 1   # one JVM\n  threads: 4\n  datacenters: [0]\n" + tail;
    String eightThreads = Files.readString(exp);
    robot.clickOn("#undo-button");
    assertEquals(fourThreads, Files.readString(exp));
    assertTrue(label(robot, "#clients-0").getText().contains("1 JVM \u00d7 4 threads"));
    assertTrue(label(robot, "#status").getText().startsWith("undone: clients: 1 JVM(s) x 8 thread(s)"),
        label(robot, "#status").getText());
    robot.clickOn("#undo-button"); // the drag before it: the group goes back to datacenter 1
    assertEquals(List.of(1), org.kvlab.experiment.ExperimentLoader.load(exp, ExperimentClients.installedProtocols())
        .clients().datacenters());
    assertTrue(robot.lookup("#clients-1").tryQuery().isPresent());
    robot.clickOn("#redo-button");
    robot.clickOn("#redo-button");
    assertEquals(eightThreads, Files.readString(exp));
    assertTrue(label(robot, "#clients-0").getText().contains("1 JVM \u00d7 8 threads"));
    assertFalse(view.dirty(), "client edits, done or undone, leave the cluster file as it is");
    // a file changed elsewhere since is left alone: the step is dropped
    robot.clickOn("#undo-button");
    Files.writeString(exp, fourThreads.replace("threads: 4", "threads: 6"));
    robot.clickOn("#redo-button");
    assertEquals(fourThreads.replace("threads: 4", "threads: 6"), Files.readString(exp));
    assertTrue(label(robot, "#status").getText().contains("was changed since (by another tab or an editor); the step"
        + " is dropped"), label(robot, "#status").getText());
    Files.writeString(exp, eightThreads);
    robot.interact(() -> { // read again, as after a save in the Benchmark tab
      workspace.experimentFile().set(null);
      workspace.experimentFile().set(exp);
    });
    assertTrue(label(robot, "#clients-0").getText().contains("1 JVM \u00d7 8 threads"));

    robot.clickOn("#clients-0");
    reveal(robot, "#clients-pane");
    Screenshots.save(stage.getScene(), "design-clients");

    // what the loader refuses is not written, and its message says why
    String before = Files.readString(exp);
    type(robot, "#clients-processes", "100");
    robot.type(KeyCode.ENTER);
    Label problem = label(robot, "#problem-field-clients");
    assertTrue(problem.isVisible() && problem.getText().contains("clients.processes") && problem.getText().contains("Fix:"),
        problem.getText());
    assertEquals(before, Files.readString(exp));
    reveal(robot, "#problem-field-clients");
    Screenshots.save(stage.getScene(), "design-clients-refused");
    type(robot, "#clients-processes", "2");
    robot.type(KeyCode.ENTER);
    assertTrue(Files.readString(exp).contains("  processes: 2   # one JVM\n"), Files.readString(exp));
    assertFalse(robot.lookup("#problem-field-clients").queryAs(Label.class).isVisible());
    robot.clickOn("#server-1_0");
    robot.clickOn("#add-clients-button");
    robot.clickOn("#clients-1");
    assertFalse(view.dirty(), "client groups live in the experiment file, not in the cluster file");

    // an experiment written by another tab (or an editor) is read again
    Files.writeString(exp, head + "clients: { processes: 3, threads: 2, datacenters: [1] }\n" + tail);
    robot.clickOn("#server-0_0");
    assertFalse(robot.lookup("#clients-0").tryQuery().isPresent());
    assertTrue(label(robot, "#clients-1").getText().contains("3 JVMs \u00d7 2 threads"));
  }

  @Test
  void aNewExperimentForTheSavedDesign(FxRobot robot) throws Exception {
    robot.clickOn("#add-dc-button");
    robot.clickOn("#add-dc-button");
    reveal(robot, "#clients-new");
    assertTrue(robot.lookup("#clients-new").queryAs(Button.class).isDisabled(), "needs a saved design");
    saveTo = tmp.resolve("three.yaml");
    robot.clickOn("#save-button");
    Path exp = tmp.resolve("three-bench.yaml");
    view.experimentSaveChooser = w -> exp;
    reveal(robot, "#clients-new");
    robot.clickOn("#clients-new");
    assertEquals(exp, workspace.experimentFile().get());
    var loaded = org.kvlab.experiment.ExperimentLoader.load(exp, ExperimentClients.installedProtocols());
    assertEquals(3, loaded.cluster().datacenters());
    assertEquals(List.of(), loaded.clients().datacenters());
    for (int d = 0; d < 3; d++) {
      assertTrue(robot.lookup("#clients-" + d).tryQuery().isPresent(), "clients in datacenter " + d);
    }
    assertTrue(Files.readString(exp).contains("cluster: { file: three.yaml }"), Files.readString(exp));
  }
}
