package org.kvlab.designer.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
import javafx.scene.chart.BarChart;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.designer.MainWindow;
import org.kvlab.designer.Workspace;
import org.kvlab.designer.testing.Screenshots;
import org.kvlab.partitioning.PlacementAdvice;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The Placement tab, driven as a person does: type a trace's path, choose 3 partitions and the pure-Java partitioner,
 * press Advise; the summary shows the hash placement's share of multi-partition transactions against the advised
 * one, the per-group table and chart fill in, and Save writes the key-to-partition map. A missing trace is refused
 * with the fix. Apply refuses a design whose protocol takes no placement map, and sets DynaStar's initial placement.
 */
@ExtendWith(ApplicationExtension.class)
class PlacementViewTest {
  @TempDir static Path tmp;
  private Workspace workspace;
  private Stage stage;
  private PlacementView view;
  private org.kvlab.designer.design.DesignView design;

  @Start
  void start(Stage stage) {
    this.stage = stage;
    workspace = new Workspace(tmp);
    MainWindow window = new MainWindow(workspace, stage);
    view = (PlacementView) window.views().stream().filter(v -> v instanceof PlacementView).findFirst().orElseThrow();
    design = (org.kvlab.designer.design.DesignView) window.views().stream()
        .filter(v -> v instanceof org.kvlab.designer.design.DesignView).findFirst().orElseThrow();
    stage.setScene(new Scene(window.root(), 1400, 900));
    stage.show();
  }

  @AfterEach
  void close() {
    workspace.close();
  }

  /** 3 groups (users, carts, items) of 30 keys in blocks of 10; each transaction touches 2 keys of one block. */
  private static Path trace() throws Exception {
    Random r = new Random(5);
    List<String> lines = new ArrayList<>();
    String[] groups = {"user", "cart", "item"};
    for (int i = 0; i < 1_500; i++) {
      int g = r.nextInt(3);
      int block = r.nextInt(3) * 10;
      lines.add(groups[g] + ":" + (block + r.nextInt(10)) + " " + groups[g] + ":" + (block + r.nextInt(10)));
    }
    return Files.write(tmp.resolve("trace.txt"), lines);
  }

  private static void waitFor(Callable<Boolean> condition) throws Exception {
    WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, condition);
  }

  private String status(FxRobot robot) {
    return robot.lookup("#placement-status").queryAs(Label.class).getText();
  }

  @Test
  void aTraceIsAdvised_theTablesAndChartShowBeforeAndAfter_andThePlacementIsSaved(FxRobot robot) throws Exception {
    Path trace = trace();
    robot.clickOn("Placement");
    robot.clickOn("#placement-trace").write(trace.toString());
    robot.doubleClickOn("#placement-parts").write("3").type(KeyCode.ENTER);
    robot.clickOn("#placement-partitioner").clickOn("greedy");
    robot.clickOn("#placement-advise");
    waitFor(() -> view.advice() != null);
    WaitForAsyncUtils.waitForFxEvents();
    PlacementAdvice a = view.advice();
    assertEquals(3, a.placement().parts());
    assertTrue(a.baseline().multiPartitionShare() > 0.4, "hash: " + a.baseline());
    assertTrue(a.proposed().multiPartitionShare() < 0.05, "advised: " + a.proposed());
    TableView<?> summary = robot.lookup("#placement-summary").queryAs(TableView.class);
    assertEquals(2, summary.getItems().size());
    assertTrue(summary.getItems().get(1).toString().contains("greedy"), summary.getItems().toString());
    TableView<?> groups = robot.lookup("#placement-groups").queryAs(TableView.class);
    assertEquals(3, groups.getItems().size(), groups.getItems().toString());
    BarChart<?, ?> chart = robot.lookup("#placement-chart").queryAs(BarChart.class);
    assertEquals(2, chart.getData().size());
    assertEquals(3, chart.getData().get(0).getData().size());
    assertTrue(status(robot).startsWith("trace.txt: 1500 transactions over 90 keys; multi-partition"), status(robot));
    Screenshots.save(stage.getScene(), "placement-advised");
    robot.clickOn("#placement-save");
    Path saved = tmp.resolve("trace.txt.placement.tsv");
    waitFor(() -> Files.exists(saved));
    assertEquals(90, Files.readAllLines(saved).size());
    assertTrue(status(robot).startsWith("placement saved to"), status(robot));
    // the new design's protocol (eventual) takes no placement map: Apply says so and changes nothing
    robot.clickOn("#placement-apply");
    assertTrue(status(robot).contains("The design's protocol eventual takes no placement map. Fix:"), status(robot));

    // DynaStar (1 x 4: three data partitions and the oracle) takes it: Apply sets the design's initial placement
    Path cluster = tmp.resolve("dynastar-4p.yaml");
    Files.copy(Path.of("..", "examples", "dynastar-4p.yaml"), cluster, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    robot.interact(() -> design.open(cluster));
    robot.clickOn("Placement");
    robot.clickOn("#placement-apply");
    assertEquals("file:" + saved.toAbsolutePath(), design.design().params.get("placement"), status(robot));
    assertTrue(status(robot).contains("now starts from placement=file:"), status(robot));
    robot.interact(design::undo); // leave the shared stage's design as opened
  }

  @Test
  void aMissingTrace_isRefusedWithTheFix(FxRobot robot) {
    robot.clickOn("Placement");
    robot.clickOn("#placement-trace").write(tmp.resolve("nope.txt").toString());
    robot.clickOn("#placement-advise");
    assertTrue(status(robot).contains("Fix: give a kvlab history"), status(robot));
    assertEquals(null, view.advice());
  }
}
