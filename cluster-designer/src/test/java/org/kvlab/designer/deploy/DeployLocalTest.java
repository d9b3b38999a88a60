package org.kvlab.designer.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.cluster.local.LocalClusterProcesses;
import org.kvlab.designer.MainWindow;
import org.kvlab.designer.Workspace;
import org.kvlab.designer.testing.Screenshots;
import org.kvlab.runtime.LoopbackPorts;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The Deploy tab on this machine, driven by clicks in a real window: a 2x2 Eventual cluster comes up, every node
 * shows "up" in the table, Stop stops it and no server process is left; a missing or invalid cluster file gets a
 * message with the cause and the fix, and nothing starts.
 */
@ExtendWith(ApplicationExtension.class)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DeployLocalTest {
  @TempDir
  Path tmp;

  private Workspace workspace;
  private Stage stage;
  private DeployView view;

  @Start
  void start(Stage stage) {
    this.stage = stage;
    workspace = new Workspace(Path.of("").toAbsolutePath());
    MainWindow window = new MainWindow(workspace, stage);
    view = (DeployView) window.views().stream().filter(v -> v instanceof DeployView).findFirst().orElseThrow();
    stage.setScene(new Scene(window.root(), 1400, 900));
    stage.show();
  }

  @AfterEach
  void close() {
    workspace.close(); // stops whatever the tab started (DeployView.close)
  }

  private Path clusterFile(String name, int datacenters, int partitions) throws Exception {
    int n = datacenters * partitions;
    int base = LoopbackPorts.freeBlock(n);
    StringBuilder y = new StringBuilder("name: " + name + "\nprotocol: eventual\ndatacenters: " + datacenters
        + "\npartitions: " + partitions + "\nservers:\n");
    int i = 0;
    for (int d = 0; d < datacenters; d++) {
      for (int p = 0; p < partitions; p++) {
        y.append("  - { id: ").append(d).append('_').append(p).append(", host: 127.0.0.1, port: ").append(base + i++)
            .append(" }\n");
      }
    }
    y.append("storage: { engine: memory, durability: none, dir: '").append(tmp.resolve("data")).append("' }\n");
    y.append("security: { secretFile: '").append(tmp.resolve("secret")).append("' }\n");
    Path file = tmp.resolve(name + ".yaml");
    Files.writeString(file, y.toString());
    return file;
  }

  @SuppressWarnings("unchecked")
  private TableView<NodeRow> table(FxRobot robot) {
    return robot.lookup("#node-table").queryAs(TableView.class);
  }

  private static String text(FxRobot robot, String id) {
    return robot.lookup(id).queryAs(Label.class).getText();
  }

  @Test
  void deploysALocal2x2ClusterSeesEveryNodeUpAndStopsEveryServer(FxRobot robot) throws Exception {
    String name = "designer-deploy-" + ProcessHandle.current().pid();
    Path file = clusterFile(name, 2, 2);
    robot.interact(() -> workspace.clusterFile().set(file));
    robot.clickOn("#tab-deploy");
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> text(robot, "#deploy-file-state").contains("4 servers"));
    robot.clickOn("#backend-local");
    robot.clickOn("#deploy-button");

    TableView<NodeRow> table = table(robot);
    WaitForAsyncUtils.waitFor(150, TimeUnit.SECONDS, () -> table.getItems().size() == 4
        && table.getItems().stream().allMatch(r -> r.state().equals(NodeRow.UP)));
    // one more poll, so that the load column has a rate (it needs two)
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> table.getItems().stream().allMatch(r -> r.load().contains("ops/s")
        && !r.load().startsWith("-")));
    List<NodeRow> up = List.copyOf(table.getItems());
    assertEquals(List.of("0_0", "0_1", "1_0", "1_1"), up.stream().map(NodeRow::node).toList());
    assertEquals(List.of(0, 0, 1, 1), up.stream().map(NodeRow::datacenter).toList());
    for (NodeRow r : up) {
      assertEquals("3/3", r.peers(), r.toString());
      assertTrue(r.rtt().endsWith(" ms"), r.toString());
      assertTrue(r.pid() > 0, r.toString());
    }
    assertTrue(text(robot, "#deploy-phase").contains("4/4 servers up"), text(robot, "#deploy-phase"));
    assertTrue(robot.lookup("#deploy-button").queryAs(Button.class).isDisabled(), "no second deploy while it runs");
    assertFalse(robot.lookup("#stop-button").queryAs(Button.class).isDisabled());

    // the PIDs in the table are the server processes the backend started (its pid files say the same)
    List<Long> pids = up.stream().map(NodeRow::pid).distinct().toList();
    assertEquals(4, pids.size(), "one JVM per server");
    List<Long> fromFiles = new ArrayList<>();
    try (Stream<Path> files = Files.list(LocalClusterProcesses.stateDir(name))) {
      for (Path p : files.filter(f -> f.toString().endsWith(".pid")).toList()) {
        fromFiles.add(Long.parseLong(Files.readString(p).trim()));
      }
    }
    assertEquals(pids.stream().sorted().toList(), fromFiles.stream().sorted().toList());
    for (long pid : pids) {
      assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "server " + pid + " runs");
    }
    @SuppressWarnings("unchecked")
    ListView<String> log = robot.lookup("#deploy-log").queryAs(ListView.class);
    assertTrue(log.getItems().stream().filter(l -> l.contains(": STARTED pid ")).count() == 4, log.getItems().toString());
    Screenshots.save(stage.getScene(), "deploy-local-running");

    robot.clickOn("#stop-button");
    WaitForAsyncUtils.waitFor(90, TimeUnit.SECONDS, () -> text(robot, "#deploy-phase").equals("stopped"));
    for (long pid : pids) {
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "server process " + pid + " is gone");
    }
    WaitForAsyncUtils.waitForFxEvents();
    assertTrue(table.getItems().stream().allMatch(r -> r.state().equals(NodeRow.DOWN) && r.pid() == 0),
        table.getItems().toString());
    assertTrue(log.getItems().stream().anyMatch(l -> l.contains(": STOPPED 4 servers answered")), log.getItems().toString());
    assertFalse(robot.lookup("#deploy-button").queryAs(Button.class).isDisabled(), "deployable again");
    assertTrue(robot.lookup("#stop-button").queryAs(Button.class).isDisabled());
    Screenshots.save(stage.getScene(), "deploy-local-stopped");
  }

  @Test
  void closingTheWindowStopsTheClusterItStarted(FxRobot robot) throws Exception {
    String name = "designer-close-" + ProcessHandle.current().pid();
    Path file = clusterFile(name, 1, 2);
    robot.interact(() -> workspace.clusterFile().set(file));
    robot.clickOn("#tab-deploy");
    robot.clickOn("#backend-local");
    robot.clickOn("#deploy-button");
    TableView<NodeRow> table = table(robot);
    WaitForAsyncUtils.waitFor(150, TimeUnit.SECONDS, () -> table.getItems().size() == 2
        && table.getItems().stream().allMatch(r -> r.state().equals(NodeRow.UP)));
    List<Long> pids = table.getItems().stream().map(NodeRow::pid).distinct().toList();
    assertEquals(2, pids.size());
    workspace.close(); // what the window's close does (DesignerApp.stop)
    for (long pid : pids) {
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "server process " + pid + " is gone");
    }
  }

  @Test
  void noMissingOrInvalidClusterFileIsDeployedAndTheTabSaysWhyAndHowToFixIt(FxRobot robot) throws Exception {
    robot.clickOn("#tab-deploy");
    // no file yet (a new design): Deploy is disabled and the tab says to save the design first
    assertTrue(robot.lookup("#deploy-button").queryAs(Button.class).isDisabled());
    assertTrue(text(robot, "#deploy-file-state").contains("save the design first"), text(robot, "#deploy-file-state"));

    // a file that does not exist
    Path missing = tmp.resolve("gone.yaml");
    robot.interact(() -> workspace.clusterFile().set(missing));
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> text(robot, "#deploy-file-state").contains("does not exist"));
    robot.clickOn("#deploy-button");
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> !text(robot, "#deploy-message").isEmpty());
    String m = text(robot, "#deploy-message");
    assertTrue(m.startsWith(missing + ": the cluster file does not exist") && m.contains("Fix: save the design again"), m);
    assertNull(view.current(), "nothing was started");
    assertFalse(robot.lookup("#deploy-button").queryAs(Button.class).isDisabled(), "can try again after fixing it");

    // a file with a mistake: the loader's message (file:line:column, problem, fix)
    Path bad = tmp.resolve("bad.yaml");
    Files.writeString(bad, "name: bad\nprotocol: eventual\ndatacenters: 1\npartiton: 2\n");
    robot.interact(() -> workspace.clusterFile().set(bad));
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> text(robot, "#deploy-file-state").contains("partiton"));
    robot.clickOn("#deploy-button");
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> text(robot, "#deploy-message").contains("partiton"));
    m = text(robot, "#deploy-message");
    assertTrue(m.startsWith(bad + ":4:1: ") && m.contains("Fix: did you mean 'partitions'?"), m);
    assertNull(view.current(), "nothing was started");

    // SSH without a hosts file: the same, for the backend's input
    Path good = clusterFile("designer-ssh-input", 1, 1);
    robot.interact(() -> workspace.clusterFile().set(good));
    robot.clickOn("#backend-ssh");
    robot.clickOn("#deploy-button");
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> text(robot, "#deploy-message").contains("hosts file"));
    m = text(robot, "#deploy-message");
    assertTrue(m.contains("SSH needs a hosts file. Fix:"), m);
    robot.clickOn("#ssh-hosts-file").write(tmp.resolve("no-hosts.yaml").toString());
    robot.clickOn("#deploy-button");
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> text(robot, "#deploy-message").contains("does not exist"));
    assertTrue(text(robot, "#deploy-message").contains("Fix: give an existing hosts file"), text(robot, "#deploy-message"));
    assertNull(view.current(), "nothing was started");
    Screenshots.save(stage.getScene(), "deploy-error");
  }
}
