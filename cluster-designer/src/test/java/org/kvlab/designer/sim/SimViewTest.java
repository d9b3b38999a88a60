package org.kvlab.designer.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TextArea;
import javafx.scene.input.KeyCode;
import javafx.scene.input.MouseButton;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.kvlab.check.Violation;
import org.kvlab.designer.MainWindow;
import org.kvlab.designer.Workspace;
import org.kvlab.designer.testing.Screenshots;
import org.kvlab.history.Operation;
import org.kvlab.sim.Trace;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The Simulate tab, driven as a person does: pick the deliberately broken protocol ({@link BrokenEventual}), sweep
 * seeds to the first violation, read the violation in the diagram (its operations in red), step through the run
 * and watch the state change; a passing seed shows no violation.
 */
@ExtendWith(ApplicationExtension.class)
class SimViewTest {
  /** With {@link #setUp}'s settings, seeds 1..9 pass and seed 10 is the first the session checker fails. */
  private static final long FIRST_FAILING = 10;

  private Workspace workspace;
  private Stage stage;
  private SimView view;

  @Start
  void start(Stage stage) {
    this.stage = stage;
    workspace = new Workspace(Path.of("").toAbsolutePath());
    MainWindow window = new MainWindow(workspace, stage);
    view = (SimView) window.views().stream().filter(v -> v instanceof SimView).findFirst().orElseThrow();
    stage.setScene(new Scene(window.root(), 1500, 950));
    stage.show();
  }

  @AfterEach
  void close() {
    workspace.close();
  }

  private void setUp(FxRobot robot, String seeds) {
    robot.clickOn("Simulate");
    robot.clickOn("#sim-protocol");
    robot.clickOn("broken-eventual");
    type(robot, "#sim-duration", "1000");
    type(robot, "#sim-keys", "10");
    type(robot, "#sim-seeds", seeds);
    assertTrue(robot.lookup("#sim-check-session").queryAs(javafx.scene.control.CheckBox.class).isSelected());
  }

  private static void type(FxRobot robot, String field, String text) {
    robot.clickOn(field);
    robot.press(KeyCode.CONTROL).press(KeyCode.A).release(KeyCode.A).release(KeyCode.CONTROL);
    robot.write(text);
  }

  private void runAndWait(FxRobot robot) throws Exception {
    SimRun before = view.shownRun().get();
    robot.clickOn("#sim-run");
    Button run = robot.lookup("#sim-run").queryButton();
    WaitForAsyncUtils.waitFor(120, TimeUnit.SECONDS, () -> !run.isDisabled());
    WaitForAsyncUtils.waitForFxEvents();
    assertTrue(view.shownRun().get() != before || !status(robot).isEmpty());
  }

  private static String status(FxRobot robot) {
    return robot.lookup("#sim-status").queryAs(Label.class).getText();
  }

  private static String text(FxRobot robot, String id) {
    return robot.lookup(id).queryAs(TextArea.class).getText();
  }

  @Test
  void findsTheFirstFailingSeed_showsItsViolationInRed_andSteppingChangesTheState(FxRobot robot) throws Exception {
    setUp(robot, "1..20");
    runAndWait(robot);

    // The sweep stopped at the first failing seed and replayed it.
    List<SimView.SeedRow> rows = view.seedRows();
    assertEquals(FIRST_FAILING, rows.size(), "stops at the first violation: " + rows);
    for (int i = 0; i < rows.size() - 1; i++) {
      assertTrue(rows.get(i).ok(), rows.get(i).toString());
    }
    assertFalse(rows.get(rows.size() - 1).ok());
    SimRun shown = view.shownRun().get();
    assertEquals(FIRST_FAILING, shown.seed());
    assertTrue(status(robot).contains("Seed " + FIRST_FAILING + " failed"), status(robot));
    assertTrue(status(robot).contains("./kvlab sim --protocol broken-eventual --seeds " + FIRST_FAILING), status(robot));

    // The violation: listed, explained with the checker's words, its operations and their messages in red.
    ListView<?> violations = robot.lookup("#sim-violations").queryAs(ListView.class);
    assertFalse(violations.getItems().isEmpty());
    assertTrue(violations.getItems().get(0).toString().startsWith("[session]"), violations.getItems().toString());
    Violation v = view.selectedViolation();
    String explained = text(robot, "#sim-violation-text");
    assertTrue(explained.contains(v.explanation()), explained);
    Trace.Layout layout = view.diagram().diagramLayout();
    Set<Long> named = new TreeSet<>(v.operations());
    assertEquals(named, shown.highlightedOperations(layout), "the red operations are those the checker named");
    for (Operation op : shown.operations(v)) {
      assertTrue(explained.contains(op.describe()), "the explanation lists " + op.describe());
    }
    assertTrue(layout.rows().stream().anyMatch(r -> r.focus() && r.text().startsWith("send ")),
        "their requests are red too");
    // centred as kvlab sim centres it: the columns are the operations' sessions and the servers they called
    assertEquals(shown.report().result().trace().layout(shown.operations(v), SimRun.FOCUS_ROWS).columns(),
        layout.columns());
    int selected = view.diagram().selectedRowProperty().get();
    assertTrue(layout.rows().get(selected).focus(), "the first step shown is the violation's first operation");
    Path violationShot = Screenshots.save(stage.getScene(), "sim-violation");
    assertTrue(Files.size(violationShot) > 10_000);

    // Stepping: next/previous and the slider move the step; the state shown follows.
    String label0 = robot.lookup("#sim-step-label").queryAs(Label.class).getText();
    String state0 = text(robot, "#sim-state");
    assertTrue(state0.contains("in progress:") && state0.contains("store:"), state0);
    assertTrue(state0.contains("protocol state: puts "), "the server's toString() hook is shown: " + state0);
    int moves = 0;
    while (text(robot, "#sim-state").equals(state0) && moves < 40) {
      robot.clickOn("#sim-next");
      moves++;
    }
    assertEquals(selected + moves, view.diagram().selectedRowProperty().get());
    assertNotEquals(state0, text(robot, "#sim-state"), "stepping changes the state shown");
    assertNotEquals(label0, robot.lookup("#sim-step-label").queryAs(Label.class).getText());
    robot.clickOn("#sim-prev");
    assertEquals(selected + moves - 1, view.diagram().selectedRowProperty().get());
    // a click on the diagram selects the row under the pointer
    double y = view.diagram().rowY(selected);
    javafx.geometry.Point2D onScreen = view.diagram().canvas().localToScreen(300, y);
    robot.clickOn(robot.point(onScreen.getX(), onScreen.getY()), MouseButton.PRIMARY);
    assertEquals(selected, view.diagram().selectedRowProperty().get(), "the clicked row is the step");
    // For the picture: the step where the server takes the violating read (the last request in red).
    int stale = -1;
    for (int i = 0; i < layout.rows().size(); i++) {
      Trace.Row r = layout.rows().get(i);
      if (r.focus() && r.receive() && !SimRun.isSession(r.process())) {
        stale = i;
      }
    }
    int staleRow = stale;
    robot.interact(() -> view.diagram().selectedRowProperty().set(staleRow));
    String serverState = text(robot, "#sim-state");
    assertTrue(serverState.startsWith(layout.rows().get(staleRow).process() + "\n  up, clock reads"), serverState);
    Path stepShot = Screenshots.save(stage.getScene(), "sim-step");
    assertTrue(Files.size(stepShot) > 10_000);

    // Zoom and the whole run.
    double z = view.diagram().zoomProperty().get();
    robot.clickOn("#sim-zoom-in");
    assertTrue(view.diagram().zoomProperty().get() > z);
    robot.clickOn("#sim-view-mode");
    robot.clickOn("whole run");
    Trace.Layout whole = view.diagram().diagramLayout();
    assertTrue(whole.rows().size() > layout.rows().size(), "the whole run has more rows");
    assertEquals(named, shown.highlightedOperations(whole), "still the violation's operations in red");
    robot.clickOn("#sim-zoom-out").clickOn("#sim-zoom-out").clickOn("#sim-zoom-out");
    assertTrue(view.diagram().zoomProperty().get() < z, "zoomed out");
    int wholeStep = view.diagram().selectedRowProperty().get();
    assertTrue(whole.rows().get(wholeStep).focus(), "the step is the violation's first operation");
    double inView = view.diagram().rowY(wholeStep);
    assertTrue(inView > LamportDiagram.HEADER && inView < view.diagram().canvas().getHeight(),
        "and the diagram scrolled to it: y " + inView);
    double lifeline = view.diagram().lifelineX(whole.rows().get(wholeStep).process());
    assertTrue(lifeline > LamportDiagram.TIME_W && lifeline < view.diagram().canvas().getWidth(), "x " + lifeline);
    Screenshots.save(stage.getScene(), "sim-whole-run");

    // Clicking a passing seed in the list replays it: no violation.
    javafx.scene.Node seed5 = robot.lookup(".list-cell").match((javafx.scene.control.ListCell<?> c) ->
        c.getText() != null && c.getText().startsWith("seed 5: ok")).query();
    robot.clickOn(seed5, MouseButton.PRIMARY);
    Button run = robot.lookup("#sim-run").queryButton();
    WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> view.shownRun().get().seed() == 5 && !run.isDisabled());
    WaitForAsyncUtils.waitForFxEvents();
    assertTrue(violations.getItems().isEmpty());
  }

  @Test
  void aPassingSeedShowsNoViolation(FxRobot robot) throws Exception {
    setUp(robot, "5");
    runAndWait(robot);
    SimRun shown = view.shownRun().get();
    assertEquals(5, shown.seed());
    assertTrue(shown.report().ok());
    assertTrue(status(robot).contains("Seed 5 passed every check"), status(robot));
    assertTrue(robot.lookup("#sim-violations").queryAs(ListView.class).getItems().isEmpty());
    assertTrue(text(robot, "#sim-violation-text").startsWith("No violation: seed 5 passed session, convergence"),
        text(robot, "#sim-violation-text"));
    Trace.Layout layout = view.diagram().diagramLayout();
    assertTrue(layout.rows().size() > 1000, "the whole run is drawn: " + layout.rows().size());
    assertTrue(layout.rows().stream().noneMatch(Trace.Row::focus), "nothing in red");
    assertTrue(shown.highlightedOperations(layout).isEmpty());
    // the slider moves the step
    int before = view.diagram().selectedRowProperty().get();
    robot.clickOn("#sim-step");
    robot.type(KeyCode.RIGHT);
    assertNotEquals(before, view.diagram().selectedRowProperty().get());
  }

  @Test
  void takesTheTopologyRttsAndSkewsFromTheWorkspacesClusterFile(FxRobot robot) throws Exception {
    Path file = Path.of("../examples/gentlerain-2dc-3p-wan.yaml").toAbsolutePath().normalize();
    assertTrue(Files.isRegularFile(file), file.toString());
    robot.interact(() -> workspace.clusterFile().set(file)); // what the Design tab does when it opens a file
    robot.clickOn("Simulate");
    String source = robot.lookup("#sim-topology-source").queryAs(Label.class).getText();
    assertEquals("from gentlerain-2dc-3p-wan.yaml, its RTT matrix, its clock skews", source);
    assertEquals("gentlerain", robot.lookup("#sim-protocol").queryAs(javafx.scene.control.ComboBox.class).getValue());
    SimSettings s = view.settings();
    assertEquals(new org.kvlab.api.Topology(2, 3), s.topology());
    assertEquals(30, s.rttMillis()[0][1]);
    assertEquals("10ms", s.params().asMap().get("heartbeat"));
    type(robot, "#sim-duration", "300");
    type(robot, "#sim-seeds", "1");
    runAndWait(robot);
    SimRun shown = view.shownRun().get();
    assertTrue(shown.report().result().faults().contains(
        new org.kvlab.sim.Fault.Skew(new org.kvlab.api.NodeId(0, 1), 8_000, 0)), shown.faults().toString());
    assertTrue(shown.report().ok(), "GentleRain passes: " + shown.violations());
    robot.clickOn("#sim-view-mode");
    robot.clickOn("whole run");
    assertEquals(List.of("s0@dc0", "s1@dc0", "s2@dc1", "s3@dc1", "s4@dc0", "s5@dc1", "0_0", "0_1", "0_2", "1_0", "1_1",
        "1_2"), view.diagram().diagramLayout().columns(), "a lifeline per session (and final reader), per server");
  }

  @Test
  void badInputSaysWhatIsWrongAndHowToFixIt(FxRobot robot) {
    setUp(robot, "one to ten");
    robot.clickOn("#sim-run");
    assertEquals("Seeds 'one to ten': write a range like 1..200, a list like 3,17,42, or one seed", status(robot));
    type(robot, "#sim-seeds", "3");
    type(robot, "#sim-duration", "soon");
    robot.clickOn("#sim-run");
    assertTrue(status(robot).startsWith("Workload 'soon' is not a positive number"), status(robot));
    assertTrue(view.seedRows().isEmpty(), "nothing ran");
  }
}
