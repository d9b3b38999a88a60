package org.kvlab.designer.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonType;
import javafx.scene.control.CheckBox;
import javafx.scene.control.DialogPane;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TableView;
import javafx.scene.control.TextInputControl;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.cluster.ec2.Ec2Backend;
import org.kvlab.cluster.ec2.Ec2Clients;
import org.kvlab.cluster.ec2.Ec2Emulator;
import org.kvlab.cluster.ssh.SshTestHosts;
import org.kvlab.designer.MainWindow;
import org.kvlab.designer.Workspace;
import org.kvlab.designer.testing.Screenshots;
import org.kvlab.runtime.LoopbackPorts;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.ec2.model.Filter;

/**
 * The Deploy tab on SSH hosts, driven by clicks: two real OpenSSH servers (cluster-manager's {@link SshTestHosts}:
 * {@code scripts/test-env/sshd-hosts}, one sshd per network namespace, or on 127.0.0.x, with verified host keys), a hosts
 * file naming them, the user's key and known_hosts, typed into the tab. The cluster comes up on the hosts, the table
 * shows every server up with its PID, Stop stops them and every PID is gone. Bad input (a missing key, a host
 * whose key is not in known_hosts, a host nobody answers at) fails with the cause and the fix in the tab, and
 * nothing is left running. And EC2 as far as an emulator allows: instances created in moto, mapped to the sshd
 * hosts (whose authorized_keys gets the key pair the deploy made, as EC2 does at boot), then the servers run on
 * them, Stop stops them and the teardown deletes the instances.
 */
@ExtendWith(ApplicationExtension.class)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DeploySshTest {
  @TempDir
  static Path tmp;
  static SshTestHosts hosts;
  static final String JVM = "-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

  private Workspace workspace;
  private Stage stage;
  private DeployView view;

  @BeforeAll
  static void startHosts() throws Exception {
    hosts = SshTestHosts.start(tmp.resolve("hosts"), 2, 0);
  }

  @AfterAll
  static void stopHosts() throws Exception {
    if (hosts != null) {
      List<Long> sshd = hosts.hosts.stream().map(SshTestHosts.Host::sshdPid).toList();
      hosts.close();
      for (long pid : sshd) {
        assertFalse(alive(pid), "sshd " + pid + " is stopped");
      }
    }
  }

  @Start
  void start(Stage stage) {
    this.stage = stage;
    workspace = new Workspace(tmp);
    MainWindow window = new MainWindow(workspace, stage);
    view = (DeployView) window.views().stream().filter(v -> v instanceof DeployView).findFirst().orElseThrow();
    stage.setScene(new Scene(window.root(), 1400, 900));
    stage.show();
  }

  @AfterEach
  void close() {
    workspace.close(); // stops whatever the tab started
  }

  // ---------------------------------------------------------------------------------------------
  // files a user writes

  /** A cluster file as the Design tab saves it: where the servers run comes from the hosts file at deploy. */
  private static Path clusterFile(String name, String extra) throws Exception {
    Path file = tmp.resolve(name + ".yaml");
    Files.writeString(file, "name: " + name + "\nprotocol: eventual\ndatacenters: 2\npartitions: 1\n"
        + "local: { host: 127.0.0.1, basePort: " + LoopbackPorts.freeBlock(2) + " }\n"
        + "storage: { engine: memory, durability: none }\n"
        + "security: { secretFile: '" + tmp.resolve(name + ".secret") + "' }\n" + extra);
    return file;
  }

  /**
   * A hosts file (docs/ssh.md): the user's key and known_hosts, datacenter 0 on the first host, 1 on the second. The
   * hosts' kvlab directory is the same for every test (and the EC2 test's instances): the distribution (the test
   * class path, about 80 MB per host) is uploaded by the first deploy only, as on a user's hosts.
   */
  private static Path hostsFile(String name, Path key, Path knownHosts, String host1) throws Exception {
    Path f = tmp.resolve(name + "-hosts.yaml");
    Files.writeString(f, "ssh:\n"
        + "  user: " + hosts.user + "\n"
        + "  keyFile: " + key + "\n"
        + "  knownHosts: " + knownHosts + "\n"
        + "  port: " + hosts.hosts.get(0).port() + "\n"
        + "  dir: " + tmp.resolve("remote") + "/{host}\n"
        + "  jvmOptions: " + JVM + "\n"
        + "  connectTimeout: 3s\n"
        + "basePort: " + LoopbackPorts.freeBlock(1) + "\n"
        + "datacenters:\n"
        + "  - { servers: [" + host1 + "] }\n"
        + "  - { servers: [" + hosts.hosts.get(1).address() + "] }\n");
    return f;
  }

  // ---------------------------------------------------------------------------------------------
  // reading the window

  @SuppressWarnings("unchecked")
  private TableView<NodeRow> table(FxRobot robot) {
    return robot.lookup("#node-table").queryAs(TableView.class);
  }

  private List<NodeRow> rows(FxRobot robot) throws Exception {
    TableView<NodeRow> t = table(robot);
    return onFx(() -> List.copyOf(t.getItems()));
  }

  private List<String> log(FxRobot robot) throws Exception {
    @SuppressWarnings("unchecked")
    ListView<String> log = robot.lookup("#deploy-log").queryAs(ListView.class);
    return onFx(() -> List.copyOf(log.getItems()));
  }

  private static <T> T onFx(Callable<T> c) throws Exception {
    return WaitForAsyncUtils.asyncFx(c).get(30, TimeUnit.SECONDS);
  }

  private static String text(FxRobot robot, String id) throws Exception {
    Label l = robot.lookup(id).queryAs(Label.class);
    return onFx(l::getText);
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private void waitFor(FxRobot robot, int seconds, String what, Callable<Boolean> condition) throws Exception {
    try {
      WaitForAsyncUtils.waitFor(seconds, TimeUnit.SECONDS, condition);
    } catch (java.util.concurrent.TimeoutException e) {
      Screenshots.save(stage.getScene(), "deploy-ssh-timeout");
      throw new AssertionError("timed out after " + seconds + " s waiting for " + what + "; phase: "
          + text(robot, "#deploy-phase") + "; message: " + text(robot, "#deploy-message") + "; rows: " + rows(robot)
          + "; log: " + log(robot), e);
    }
  }

  /** Opens the cluster file (as the Design tab's Open does: every tab gets it) and picks "SSH hosts". */
  private void openOnSsh(FxRobot robot, Path file) throws Exception {
    AtomicBoolean set = new AtomicBoolean();
    javafx.application.Platform.runLater(() -> {
      workspace.clusterFile().set(file);
      set.set(true);
    });
    waitFor(robot, 30, "the file opened", set::get);
    robot.clickOn("#tab-deploy");
    waitFor(robot, 30, "the file checked", () -> text(robot, "#deploy-file-state").contains("2 servers"));
    robot.clickOn("#backend-ssh");
    WaitForAsyncUtils.waitForFxEvents();
  }

  /** Types a path into the hosts-file field, replacing what was there. */
  private void typeHostsFile(FxRobot robot, Path hostsFile) throws Exception {
    TextInputControl field = robot.lookup("#ssh-hosts-file").queryAs(TextInputControl.class);
    robot.doubleClickOn(field);
    robot.interact(field::selectAll);
    robot.write(hostsFile.toString());
    waitFor(robot, 10, "the typed path", () -> onFx(field::getText).equals(hostsFile.toString()));
  }

  private void deployAndExpectFailure(FxRobot robot, String... said) throws Exception {
    Deployment before = view.current(); // the previous attempt, already finished: wait for this click's own
    robot.clickOn("#deploy-button");
    waitFor(robot, 90, "the deploy to fail",
        () -> view.current() != null && view.current() != before && view.current().finished());
    WaitForAsyncUtils.waitForFxEvents();
    assertEquals(Deployment.Phase.FAILED, view.current().phase());
    String m = text(robot, "#deploy-message");
    for (String s : said) {
      assertTrue(m.contains(s), "'" + s + "' in: " + m);
    }
    assertTrue(m.contains("Fix: "), m);
    assertTrue(text(robot, "#deploy-phase").contains("failed"), text(robot, "#deploy-phase"));
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> rows(robot).stream().allMatch(r -> r.state().equals(NodeRow.DOWN)
        && r.pid() == 0 && r.problem().contains("the deploy failed")));
    assertFalse(robot.lookup("#deploy-button").queryAs(Button.class).isDisabled(), "can deploy again after fixing it");
  }

  /** Nothing is left in the hosts' namespaces but their sshd (sessions end shortly after the connections close). */
  private static void nothingLeftOnTheHosts() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    List<Long> stray = hosts.strayProcesses();
    while (!stray.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(200);
      stray = hosts.strayProcesses();
    }
    assertEquals(List.of(), stray, "processes left on the hosts (" + hosts.mode + " mode)");
  }

  /** Waits until the table shows every server up; returns their PIDs (checked alive). */
  private List<Long> serversUp(FxRobot robot, int count, int seconds) throws Exception {
    waitFor(robot, seconds, count + " servers up", () -> rows(robot).size() == count
        && rows(robot).stream().allMatch(r -> r.state().equals(NodeRow.UP)));
    List<NodeRow> up = rows(robot);
    assertEquals(List.of("0_0", "1_0"), up.stream().map(NodeRow::node).toList());
    List<Long> pids = new ArrayList<>();
    for (NodeRow r : up) {
      assertEquals("1/1", r.peers(), r.toString());
      assertTrue(r.rtt().endsWith(" ms"), r.toString());
      assertTrue(r.pid() > 0, r.toString());
      pids.add(r.pid());
    }
    for (long pid : pids) {
      assertTrue(alive(pid), "server " + pid + " runs");
    }
    return pids;
  }

  private void stopAndCheckGone(FxRobot robot, List<Long> pids) throws Exception {
    robot.clickOn("#stop-button");
    waitFor(robot, 120, "stopped", () -> text(robot, "#deploy-phase").equals("stopped"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (pids.stream().anyMatch(DeploySshTest::alive) && System.nanoTime() < deadline) {
      Thread.sleep(50); // the stop waited for each exit; the kernel drops a process once its parent reaped it
    }
    for (long pid : pids) {
      assertFalse(alive(pid), "server process " + pid + " is gone");
    }
    WaitForAsyncUtils.waitForFxEvents();
    assertTrue(rows(robot).stream().allMatch(r -> r.state().equals(NodeRow.DOWN)), rows(robot).toString());
    nothingLeftOnTheHosts();
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  void deploysOnTwoSshHostsWithVerifiedHostKeysSeesEveryServerUpAndStopsThemAll(FxRobot robot) throws Exception {
    Path file = clusterFile("sshgui", "");
    Path hostsFile = hostsFile("sshgui", hosts.key, hosts.knownHosts, hosts.hosts.get(0).address());
    openOnSsh(robot, file);
    typeHostsFile(robot, hostsFile);
    assertFalse(robot.lookup("#ssh-accept-new").queryAs(CheckBox.class).isSelected(), "host keys checked strictly");
    robot.clickOn("#deploy-button");

    List<Long> pids = serversUp(robot, 2, 240);
    String h1 = hosts.hosts.get(0).address();
    String h2 = hosts.hosts.get(1).address();
    List<NodeRow> up = rows(robot);
    assertTrue(up.get(0).address().startsWith(h1 + ":"), up.toString());
    assertTrue(up.get(1).address().startsWith(h2 + ":"), up.toString());
    assertTrue(text(robot, "#deploy-phase").contains("2/2 servers up"), text(robot, "#deploy-phase"));
    List<String> lines = log(robot);
    for (String h : List.of(h1, h2)) {
      assertTrue(lines.stream().anyMatch(l -> l.contains(h) && l.contains("UPLOADED")), lines.toString());
      assertTrue(lines.stream().anyMatch(l -> l.contains(h) && l.contains("STARTED")), lines.toString());
    }
    assertTrue(lines.stream().noneMatch(l -> l.contains("NEW_HOST_KEY")), "known hosts only: " + lines);
    // the cluster as placed on the hosts, which the hosts got
    Path placed = tmp.resolve(".kvlab/designer/sshgui/cluster.yaml");
    assertTrue(Files.readString(placed).contains("host: " + h2), Files.readString(placed));
    Screenshots.save(stage.getScene(), "deploy-ssh-running");

    stopAndCheckGone(robot, pids);
    assertTrue(log(robot).stream().anyMatch(l -> l.contains("STOPPED")), log(robot).toString());
    assertFalse(robot.lookup("#deploy-button").queryAs(Button.class).isDisabled(), "deployable again");
  }

  @Test
  void aMissingKeyAnUnknownHostKeyAndAnUnreachableHostEachSayTheCauseAndTheFixAndStartNothing(FxRobot robot)
      throws Exception {
    Path file = clusterFile("sshbad", "");
    openOnSsh(robot, file);

    // the key file the hosts file names does not exist
    Path noKey = tmp.resolve("no-such-key");
    typeHostsFile(robot, hostsFile("sshbad-key", noKey, hosts.knownHosts, hosts.hosts.get(0).address()));
    deployAndExpectFailure(robot, "the key file " + noKey + " does not exist", "keyFile");

    // a known_hosts without the hosts' keys: refused (strict), the fix names the tab's checkbox
    Path emptyKnown = tmp.resolve("empty_known_hosts");
    Files.writeString(emptyKnown, "");
    typeHostsFile(robot, hostsFile("sshbad-hostkey", hosts.key, emptyKnown, hosts.hosts.get(0).address()));
    deployAndExpectFailure(robot, "unknown host key", "ssh-keyscan", "tick 'accept and record new host keys'");
    assertFalse(text(robot, "#deploy-message").contains("--accept-new-host-keys"), "a CLI flag is no fix in a window");
    assertEquals("", Files.readString(emptyKnown), "nothing recorded without the user's consent");
    Screenshots.save(stage.getScene(), "deploy-ssh-unknown-host-key");

    // a host nobody answers at (an address of the hosts' network with no host)
    String h1 = hosts.hosts.get(0).address();
    String nobody = h1.substring(0, h1.lastIndexOf('.')) + ".250";
    typeHostsFile(robot, hostsFile("sshbad-nobody", hosts.key, hosts.knownHosts, nobody));
    deployAndExpectFailure(robot, nobody);
    assertTrue(rows(robot).stream().noneMatch(r -> r.pid() > 0), rows(robot).toString());
    nothingLeftOnTheHosts();
  }

  /** What EC2 does with the key pair at an instance's first boot: its public half goes into authorized_keys. */
  private static synchronized void authorize(Path keyPem) {
    try {
      Process p = new ProcessBuilder("ssh-keygen", "-y", "-f", keyPem.toString()).redirectErrorStream(true).start();
      String pub = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0 || !pub.startsWith("ssh-")) {
        throw new IllegalStateException("ssh-keygen -y cannot read " + keyPem + ": " + pub);
      }
      Path authorized = hosts.dir.resolve("authorized_keys");
      if (!Files.readString(authorized).contains(pub)) {
        Files.writeString(authorized, pub + " kvlab-ec2-test\n", StandardOpenOption.APPEND);
      }
    } catch (java.io.IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void ec2InstancesFromTheEmulatorMappedToSshHostsRunTheServersUntilStopThenTheTeardownDeletesThem(FxRobot robot)
      throws Exception {
    System.setProperty("aws.accessKeyId", "testing"); // dummy credentials, for the emulator only
    System.setProperty("aws.secretAccessKey", "testing");
    try (Ec2Emulator emulator = Ec2Emulator.start();
         Ec2Clients sdk = new Ec2Clients(StaticCredentialsProvider.create(AwsBasicCredentials.create("testing",
             "testing")), emulator.endpoint)) {
      String name = "ec2gui";
      Path file = clusterFile(name, """
          ec2:
            instanceType: t3.small
            regions: [us-east-1, eu-west-1]
            regionPerDatacenter: true
            amiLookup: { owner: "099720109477", name: "ubuntu/images/hvm-ssd/ubuntu-xenial-16.04-amd64-server-*" }
            user: %s
            instancesPerDatacenter: 1
            expiryHours: 1
            owner: tester
          """.formatted(hosts.user));
      String h1 = hosts.hosts.get(0).address();
      String h2 = hosts.hosts.get(1).address();
      Path key = tmp.resolve(".kvlab/ec2").resolve(name).resolve("key.pem"); // where the tab's provisioner writes it
      List<String> mapped = new java.util.concurrent.CopyOnWriteArrayList<>();
      // the emulator's instances have fake addresses: instance of datacenter d -> sshd host d
      view.ec2Hooks(new BackendChoice.Ec2Hooks(i -> {
        authorize(key);
        mapped.add(i.id());
        return i.datacenter() == 0 ? h1 : h2;
      }, basePort -> new Ec2Backend.Options(false, Duration.ofSeconds(60), hosts.hosts.get(0).port(), basePort,
          tmp.resolve("remote") + "/{host}", JVM), Duration.ofMillis(100)));

      AtomicBoolean set = new AtomicBoolean();
      javafx.application.Platform.runLater(() -> {
        workspace.clusterFile().set(file);
        set.set(true);
      });
      waitFor(robot, 30, "the file opened", set::get);
      robot.clickOn("#tab-deploy");
      robot.clickOn("#backend-ec2");
      WaitForAsyncUtils.waitForFxEvents();
      robot.clickOn("#ec2-caller-cidr").write("203.0.113.7/32");
      robot.clickOn("#ec2-endpoint").write(emulator.endpoint.toString());
      robot.clickOn("#deploy-button");
      // (the dialog's nodes exist a moment before its window shows: wait until its button can be clicked)
      waitFor(robot, 60, "the confirmation", () -> onFx(() -> robot.lookup("#ec2-create")
          .match(org.testfx.util.NodeQueryUtils.isVisible()).tryQuery().isPresent()));
      robot.clickOn("#ec2-create");

      List<Long> pids = serversUp(robot, 2, 240);
      assertEquals(2, mapped.stream().distinct().count(), mapped.toString());
      List<String> lines = log(robot);
      assertEquals(2, lines.stream().filter(l -> l.contains(": PROVISIONED instance i-")).count(), lines.toString());
      // reached with the key the deploy made; the instances' host keys recorded as new (EC2 hosts are new each time)
      assertEquals(2, lines.stream().filter(l -> l.contains("NEW_HOST_KEY")).count(), lines.toString());
      assertTrue(rows(robot).get(1).address().startsWith(h2 + ":"), rows(robot).toString());
      Screenshots.save(stage.getScene(), "deploy-ec2-running");

      robot.clickOn("#stop-button");
      waitFor(robot, 180, "the teardown", () -> onFx(() -> robot.lookup("#ec2-teardown").tryQuery().isPresent()));
      DialogPane teardown = robot.lookup("#ec2-teardown").queryAs(DialogPane.class);
      @SuppressWarnings("unchecked")
      ListView<String> list = robot.lookup("#teardown-list").queryAs(ListView.class);
      List<String> removed = onFx(() -> List.copyOf(list.getItems()));
      assertEquals(2, removed.stream().filter(r -> r.startsWith("instance i-")).count(), removed.toString());
      for (long pid : pids) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (alive(pid) && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
        assertFalse(alive(pid), "server process " + pid + " is gone");
      }
      for (String region : List.of("us-east-1", "eu-west-1")) {
        assertEquals(0, sdk.region(region).describeInstances(b -> b.filters(Filter.builder()
            .name("instance-state-name").values("pending", "running").build())).reservations().size(), region);
      }
      assertNotNull(view.current());
      assertEquals(Deployment.Phase.STOPPED, view.current().phase());
      robot.clickOn(teardown.lookupButton(ButtonType.OK));
      nothingLeftOnTheHosts();
    } finally {
      System.clearProperty("aws.accessKeyId");
      System.clearProperty("aws.secretAccessKey");
    }
  }
}
