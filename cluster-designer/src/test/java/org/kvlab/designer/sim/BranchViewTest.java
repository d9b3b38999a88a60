package org.kvlab.designer.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TextArea;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.designer.MainWindow;
import org.kvlab.designer.Workspace;
import org.kvlab.designer.testing.Screenshots;
import org.kvlab.sim.explore.Schedule;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The Branch tab, driven as a person does (issue 35): a schedule where Eventual is not linearizable (a put in dc0
 * completes, then a get in dc1 reads nothing) opens with its violation; branching before the get, delivering the
 * replication first and finishing the run gives a branch that passes; the branch saves as a schedule that replays.
 */
@ExtendWith(ApplicationExtension.class)
class BranchViewTest {
  @TempDir Path tmp;
  private Workspace workspace;
  private MainWindow window;

  @Start
  void start(Stage stage) {
    workspace = new Workspace(Path.of("").toAbsolutePath());
    window = new MainWindow(workspace, stage);
    stage.setScene(new Scene(window.root(), 1400, 900));
    stage.show();
  }

  @AfterEach
  void close() {
    workspace.close();
  }

  @Test
  void opensASchedule_branchesBeforeTheRead_andTheNewBranchPassesAndSaves(FxRobot robot) throws Exception {
    Path file = tmp.resolve("stale.txt");
    Files.writeString(file, String.join("\n", "protocol: eventual", "topology: 2x1", "check: linearizable",
        "session: dc0 put k0=a", "session: dc1 get k0", "choices:", "invoke s0@dc0", "deliver s0@dc0->0_0",
        "deliver 0_0->s0@dc0", "invoke s1@dc1", "deliver s1@dc1->1_0", "deliver 1_0->s1@dc1", ""));
    robot.interact(() -> window.openSchedule(file));
    WaitForAsyncUtils.waitForFxEvents();
    assertEquals("Branch", window.tabs().getSelectionModel().getSelectedItem().getText());
    assertTrue(text(robot).startsWith("VIOLATION linearizable"), text(robot));
    assertTrue(text(robot).contains("s1@dc1"), "the diagram: " + text(robot));
    assertEquals(6, list(robot, "#branch-steps").getItems().size());
    assertTrue(list(robot, "#branch-enabled").getItems().contains("deliver 0_0->1_0"), "the replication is in flight");

    robot.clickOn("4. invoke s1@dc1");
    robot.clickOn("#branch-here");
    assertEquals(List.of("main (6 events)", "branch 1 (3 events)"), list(robot, "#branch-list").getItems());
    robot.clickOn("deliver 0_0->1_0");
    robot.clickOn("#branch-take");
    for (String next : List.of("invoke s1@dc1", "deliver s1@dc1->1_0", "deliver 1_0->s1@dc1")) {
      robot.clickOn(next);
      robot.clickOn("#branch-take");
    }
    assertTrue(text(robot).startsWith("No violation: the history is complete"), text(robot));
    assertEquals("leaves main after step 3", robot.lookup("#branch-compare").queryAs(Label.class).getText());
    assertTrue(Files.size(Screenshots.save(window.root().getScene(), "branch")) > 0); // for docs/designer.md

    Path saved = tmp.resolve("branch.txt");
    robot.interact(() -> ((BranchView) window.views().get(window.views().size() - 1)).save(saved));
    Schedule s = Schedule.read(saved);
    assertEquals(7, s.choices().size());
    assertEquals("deliver 0_0->1_0", s.choices().get(3));
    assertEquals(null, s.violation());
  }

  @SuppressWarnings("unchecked")
  private static ListView<String> list(FxRobot robot, String id) {
    return robot.lookup(id).queryAs(ListView.class);
  }

  private static String text(FxRobot robot) {
    return robot.lookup("#branch-verdict").queryAs(TextArea.class).getText();
  }
}
