package org.kvlab.designer.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import com.google.protobuf.ByteString;
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
import org.kvlab.api.Protocols;
import org.kvlab.api.Session;
import org.kvlab.cluster.local.LocalClusterProcesses;
import org.kvlab.config.ClusterConfig;
import org.kvlab.designer.MainWindow;
import org.kvlab.designer.Workspace;
import org.kvlab.designer.testing.Screenshots;
import org.kvlab.runtime.ClientRuntime;
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

  /** What the table shows now (read on the FX thread, which updates it). */
  private static List<NodeRow> rows(TableView<NodeRow> table) throws Exception {
    return onFx(() -> List.copyOf(table.getItems()));
  }

  private static <T> T onFx(Callable<T> c) throws Exception {
    return WaitForAsyncUtils.asyncFx(c).get(30, TimeUnit.SECONDS);
  }

  private static String text(FxRobot robot, String id) throws Exception {
    Label l = robot.lookup(id).queryAs(Label.class);
    return onFx(l::getText);
  }

  /** Waits for {@code condition}; on timeout fails with what the tab shows. */
  private void waitFor(FxRobot robot, int seconds, Callable<Boolean> condition) throws Exception {
    try {
      WaitForAsyncUtils.waitFor(seconds, TimeUnit.SECONDS, condition);
    } catch (java.util.concurrent.TimeoutException e) {
      @SuppressWarnings("unchecked")
      ListView<String> log = robot.lookup("#deploy-log").queryAs(ListView.class);
      Screenshots.save(stage.getScene(), "deploy-local-timeout");
      throw new AssertionError("timed out after " + seconds + " s; phase: " + text(robot, "#deploy-phase")
          + "; message: " + text(robot, "#deploy-message") + "; rows: " + rows(table(robot)) + "; log: "
          + onFx(() -> List.copyOf(log.getItems())), e);
    }
  }

  @Test
  void deploysALocal2x2ClusterSeesEveryNodeUpAndStopsEveryServer(FxRobot robot) throws Exception {
    String name = "designer-deploy-" + ProcessHandle.current().pid();
    Path file = clusterFile(name, 2, 2);
    openClusterFile(robot, file, null, false);
    robot.clickOn("#tab-deploy");
    waitFor(robot, 30, () -> text(robot, "#deploy-file-state").contains("4 servers"));
    robot.clickOn("#backend-local");
    robot.clickOn("#deploy-button");

    TableView<NodeRow> table = table(robot);
    waitFor(robot, 150, () -> rows(table).size() == 4
        && rows(table).stream().allMatch(r -> r.state().equals(NodeRow.UP)));
    // load: a client writes to both datacenters; the table shows the servers' operation rates and the client
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicLong written = new AtomicLong();
    Thread writer;
    try (ClientRuntime client = new ClientRuntime(ClusterConfig.load(file), Protocols.byName("eventual"), 1)) {
      Session[] sessions = {client.openSession(0), client.openSession(1)};
      writer = new Thread(() -> {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (writing.get() && System.nanoTime() < deadline) {
          long n = written.incrementAndGet();
          sessions[(int) (n % 2)].put("k" + (n % 100), ByteString.copyFromUtf8("v" + n));
        }
      }, "test-writer");
      writer.setDaemon(true);
      writer.start();
      try {
        waitFor(robot, 40, () -> rows(table).stream()
            .filter(r -> r.load().matches("[1-9][0-9]* ops/s, [1-9][0-9]* clients?")).count() >= 2);
        Screenshots.save(stage.getScene(), "deploy-local-running");
      } finally {
        writing.set(false);
        writer.join(15_000);
      }
    }
    assertTrue(written.get() > 0);
    List<NodeRow> up = rows(table);
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
    List<String> lines = onFx(() -> List.copyOf(log.getItems()));
    assertEquals(4, lines.stream().filter(l -> l.contains(": STARTED pid ")).count(), lines.toString());

    robot.clickOn("#stop-button");
    waitFor(robot, 90, () -> text(robot, "#deploy-phase").equals("stopped"));
    for (long pid : pids) {
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "server process " + pid + " is gone");
    }
    WaitForAsyncUtils.waitForFxEvents();
    assertTrue(rows(table).stream().allMatch(r -> r.state().equals(NodeRow.DOWN) && r.pid() == 0),
        rows(table).toString());
    List<String> after = onFx(() -> List.copyOf(log.getItems()));
    assertTrue(after.stream().anyMatch(l -> l.contains(": STOPPED 4 servers answered")), after.toString());
    assertFalse(robot.lookup("#deploy-button").queryAs(Button.class).isDisabled(), "deployable again");
    assertTrue(robot.lookup("#stop-button").queryAs(Button.class).isDisabled());
    Screenshots.save(stage.getScene(), "deploy-local-stopped");
  }

  @Test
  void closingTheWindowStopsTheClusterItStarted(FxRobot robot) throws Exception {
    String name = "designer-close-" + ProcessHandle.current().pid();
    Path file = clusterFile(name, 1, 2);
    openClusterFile(robot, file, null, false);
    robot.clickOn("#tab-deploy");
    robot.clickOn("#backend-local");
    robot.clickOn("#deploy-button");
    TableView<NodeRow> table = table(robot);
    waitFor(robot, 150, () -> rows(table).size() == 2
        && rows(table).stream().allMatch(r -> r.state().equals(NodeRow.UP)));
    List<Long> pids = rows(table).stream().map(NodeRow::pid).distinct().toList();
    assertEquals(2, pids.size());
    workspace.close(); // what the window's close does (DesignerApp.stop)
    for (long pid : pids) {
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "server process " + pid + " is gone");
    }
  }

  /**
   * Makes {@code file} the workspace's cluster file, as opening it does. Every tab gets it, the Design tab too,
   * which opens it and may ask first with a modal dialog: "Cannot open" for a file it cannot read, the unsaved-
   * changes prompt (Save / Don't Save / Cancel) when its design has unsaved changes. Such a dialog blocks the whole
   * window (a click on Deploy goes nowhere) until a person answers it, and the property's set() does not return
   * until then (so this does not wait on the FX thread: robot.interact would hang). {@code designAsks}: the start of
   * the dialog's text expected, answered as a person would before going on (OK, or Don't Save); null: no dialog may
   * come. {@code mustAsk}: the dialog must come.
   */
  private void openClusterFile(FxRobot robot, Path file, String designAsks, boolean mustAsk) throws Exception {
    AtomicBoolean set = new AtomicBoolean();
    javafx.application.Platform.runLater(() -> {
      workspace.clusterFile().set(file);
      set.set(true);
    });
    waitFor(robot, 30, () -> set.get() || onFx(() -> robot.lookup(".dialog-pane").tryQuery().isPresent()));
    if (!set.get()) {
      javafx.scene.control.DialogPane dialog = robot.lookup(".dialog-pane").queryAs(javafx.scene.control.DialogPane.class);
      String said = onFx(dialog::getContentText);
      assertTrue(designAsks != null && said.startsWith(designAsks), "the Design tab asked: " + said);
      // an error is acknowledged with OK; the unsaved-changes prompt (Save / Don't Save / Cancel) with Don't Save
      javafx.scene.Node ok = dialog.lookupButton(javafx.scene.control.ButtonType.OK);
      robot.clickOn(ok != null ? ok : dialog.lookup("#unsaved-discard"));
      waitFor(robot, 30, set::get);
    } else {
      assertFalse(mustAsk, "the Design tab did not ask: " + designAsks);
    }
    WaitForAsyncUtils.waitForFxEvents();
  }

  @Test
  void noMissingOrInvalidClusterFileIsDeployedAndTheTabSaysWhyAndHowToFixIt(FxRobot robot) throws Exception {
    robot.clickOn("#tab-deploy");
    // no file yet (a new design): Deploy is disabled and the tab says to save the design first
    assertTrue(robot.lookup("#deploy-button").queryAs(Button.class).isDisabled());
    assertTrue(text(robot, "#deploy-file-state").contains("save the design first"), text(robot, "#deploy-file-state"));

    // a file that does not exist: the Design tab cannot open it and says so, and every tab goes back to the
    // design's file (none yet), so Deploy stays disabled
    Path missing = tmp.resolve("gone.yaml");
    openClusterFile(robot, missing, "Cannot open " + missing, true);
    waitFor(robot, 30, () -> text(robot, "#deploy-file-state").contains("save the design first"));
    assertTrue(robot.lookup("#deploy-button").queryAs(Button.class).isDisabled());

    // a file deleted after it was opened: Deploy finds it gone
    Path deleted = clusterFile("designer-deleted", 1, 1);
    openClusterFile(robot, deleted, null, false);
    waitFor(robot, 30, () -> !robot.lookup("#deploy-button").queryAs(Button.class).isDisabled());
    Files.delete(deleted);
    robot.clickOn("#deploy-button");
    waitFor(robot, 30, () -> !text(robot, "#deploy-message").isEmpty());
    String m = text(robot, "#deploy-message");
    assertTrue(m.startsWith(deleted + ": the cluster file does not exist") && m.contains("Fix: save the design again"),
        m);
    assertNull(view.current(), "nothing was started");
    assertFalse(robot.lookup("#deploy-button").queryAs(Button.class).isDisabled(), "can try again after fixing it");

    // a file with a mistake: the loader's message (file:line:column, problem, fix)
    Path bad = tmp.resolve("bad.yaml");
    Files.writeString(bad, "name: bad\nprotocol: eventual\ndatacenters: 1\npartiton: 2\n");
    openClusterFile(robot, bad, null, false);
    waitFor(robot, 30, () -> text(robot, "#deploy-file-state").contains("partiton"));
    robot.clickOn("#deploy-button");
    waitFor(robot, 30, () -> text(robot, "#deploy-message").contains("partiton"));
    m = text(robot, "#deploy-message");
    assertTrue(m.startsWith(bad + ":4:1: ") && m.contains("Fix: did you mean 'partitions'?"), m);
    assertNull(view.current(), "nothing was started");

    // SSH without a hosts file: the same, for the backend's input
    Path good = clusterFile("designer-ssh-input", 1, 1);
    // (the Design tab counts the design it opened from bad.yaml as modified, so it may ask what to do with the
    // changes: a person answers Don't Save)
    openClusterFile(robot, good, "Your changes are lost if you don't save them.", false);
    robot.clickOn("#backend-ssh");
    WaitForAsyncUtils.waitForFxEvents();
    robot.clickOn("#deploy-button");
    waitFor(robot, 30, () -> text(robot, "#deploy-message").contains("hosts file"));
    m = text(robot, "#deploy-message");
    assertTrue(m.contains("SSH needs a hosts file. Fix:"), m);
    robot.clickOn("#ssh-hosts-file").write(tmp.resolve("no-hosts.yaml").toString());
    robot.clickOn("#deploy-button");
    waitFor(robot, 30, () -> text(robot, "#deploy-message").contains("does not exist"));
    assertTrue(text(robot, "#deploy-message").contains("Fix: give an existing hosts file"), text(robot, "#deploy-message"));
    assertNull(view.current(), "nothing was started");
    Screenshots.save(stage.getScene(), "deploy-error");

    // EC2 with a cluster file that has no ec2: section: said before anything is asked of AWS
    robot.clickOn("#backend-ec2");
    WaitForAsyncUtils.waitForFxEvents();
    robot.clickOn("#deploy-button");
    waitFor(robot, 30, () -> text(robot, "#deploy-message").contains("ec2:"));
    m = text(robot, "#deploy-message");
    assertTrue(m.startsWith(good + ":1:1: the cluster file has no 'ec2:' section. Fix: add one"), m);
    assertNull(view.current(), "nothing was started");
  }
}
