package org.kvlab.designer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import javafx.scene.Scene;
import javafx.scene.control.TabPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.kvlab.designer.testing.Screenshots;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** The window opens with its four tabs, and a person can switch between them. */
@ExtendWith(ApplicationExtension.class)
class MainWindowTest {
  private Workspace workspace;
  private Stage stage;

  @Start
  void start(Stage stage) {
    this.stage = stage;
    workspace = new Workspace(Path.of("").toAbsolutePath());
    MainWindow window = new MainWindow(workspace, stage);
    stage.setScene(new Scene(window.root(), 1400, 900));
    stage.show();
  }

  @AfterEach
  void close() {
    workspace.close();
  }

  @Test
  void hasTheFiveTabsAndSwitchesBetweenThem(FxRobot robot) throws Exception {
    TabPane tabs = robot.lookup(".tab-pane").queryAs(TabPane.class);
    assertEquals(6, tabs.getTabs().size());
    assertEquals("Design", tabs.getTabs().get(0).getText());
    robot.clickOn("Simulate");
    assertEquals("Simulate", tabs.getSelectionModel().getSelectedItem().getText());
    robot.clickOn("Design");
    assertEquals("Design", tabs.getSelectionModel().getSelectedItem().getText());
    Path shot = Screenshots.save(stage.getScene(), "main-window");
    assertTrue(Files.size(shot) > 1000, "screenshot written: " + shot);
  }
}
