package org.kvlab.designer.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.DialogPane;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TextArea;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.cluster.ec2.Ec2Backend;
import org.kvlab.cluster.ec2.Ec2Clients;
import org.kvlab.cluster.ec2.Ec2Emulator;
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
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Instance;

/**
 * The Deploy tab's EC2 path against moto (the EC2 API emulator, on a loopback port, started and stopped by PID):
 * the cost estimate and the confirmation come before anything is created, Cancel creates nothing; a confirmed
 * deploy creates the tagged key pairs, security groups and instances, and the visible teardown lists what it
 * deleted. The emulator's instances are metadata with fake addresses: the address hook maps them to loopback,
 * where nothing answers SSH, so this deploy fails at "waiting for SSH" and the teardown follows (the SSH part of
 * the EC2 path is SshBenchTest's, in cluster-manager).
 */
@ExtendWith(ApplicationExtension.class)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DeployEc2Test {
  static final List<String> REGIONS = List.of("us-east-1", "eu-west-1");
  static Ec2Emulator emulator;

  @TempDir
  Path tmp;

  private Workspace workspace;
  private Stage stage;
  private DeployView view;
  private Ec2Clients sdk;

  @BeforeAll
  static void startEmulator() throws Exception {
    emulator = Ec2Emulator.start();
    // dummy credentials, for the emulator only (the default chain reads these system properties)
    System.setProperty("aws.accessKeyId", "testing");
    System.setProperty("aws.secretAccessKey", "testing");
  }

  @AfterAll
  static void stopEmulator() throws Exception {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
    if (emulator != null) {
      long pid = emulator.pid();
      emulator.close();
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the emulator is stopped");
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

  @BeforeEach
  void fresh() throws Exception {
    emulator.reset();
    sdk = new Ec2Clients(StaticCredentialsProvider.create(AwsBasicCredentials.create("testing", "testing")),
        emulator.endpoint);
  }

  @AfterEach
  void close() {
    workspace.close();
    sdk.close();
  }

  private Path clusterFile(String name) throws Exception {
    int base = LoopbackPorts.freeBlock(2);
    Path file = tmp.resolve(name + ".yaml");
    Files.writeString(file, """
        name: %s
        protocol: eventual
        datacenters: 2
        partitions: 1
        local: { host: 127.0.0.1, basePort: %d }
        ec2:
          instanceType: t3.small
          regions: [us-east-1, eu-west-1]
          regionPerDatacenter: true
          amiLookup: { owner: "099720109477", name: "ubuntu/images/hvm-ssd/ubuntu-xenial-16.04-amd64-server-*" }
          user: ubuntu
          instancesPerDatacenter: 1
          expiryHours: 2
          owner: tester
        """.formatted(name, base));
    return file;
  }

  /** Every instance, key pair and non-default security group in the emulator's two regions. */
  private List<String> everything() {
    List<String> out = new java.util.ArrayList<>();
    for (String region : REGIONS) {
      Ec2Client c = sdk.region(region);
      c.describeInstances(b -> b.filters(Filter.builder().name("instance-state-name").values("pending", "running").build()))
          .reservations().stream().flatMap(r -> r.instances().stream()).map(Instance::instanceId)
          .forEach(id -> out.add(region + " instance " + id));
      c.describeKeyPairs().keyPairs().forEach(k -> out.add(region + " key pair " + k.keyName()));
      c.describeSecurityGroups().securityGroups().stream().filter(g -> !g.groupName().equals("default"))
          .forEach(g -> out.add(region + " security group " + g.groupName()));
    }
    return out;
  }

  private void askToDeploy(FxRobot robot, Path file) throws Exception {
    robot.interact(() -> workspace.clusterFile().set(file));
    robot.clickOn("#tab-deploy");
    robot.clickOn("#backend-ec2");
    WaitForAsyncUtils.waitForFxEvents();
    robot.clickOn("#ec2-caller-cidr").write("203.0.113.7/32");
    robot.clickOn("#ec2-endpoint").write(emulator.endpoint.toString());
    robot.clickOn("#deploy-button");
    WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> robot.lookup("#ec2-confirm").tryQuery().isPresent()).get());
  }

  @Test
  void showsTheCostAndAsksFirstAndCancelCreatesNothing(FxRobot robot) throws Exception {
    Path file = clusterFile("gui-cancel");
    askToDeploy(robot, file);
    DialogPane pane = robot.lookup("#ec2-confirm").queryAs(DialogPane.class);
    assertEquals("Create 2 EC2 instance(s) in 2 region(s) for cluster gui-cancel?", pane.getHeaderText());
    String cost = robot.lookup("#ec2-cost").queryAs(Label.class).getText();
    // 2 x t3.small at the price table's on-demand prices of us-east-1 and eu-west-1, for at most 2 h
    assertTrue(cost.startsWith("cost: about USD ") && cost.contains(" per hour, at most USD ")
        && cost.contains("until the expiry (on-demand prices of "), cost);
    String plan = robot.lookup("#ec2-plan").queryAs(TextArea.class).getText();
    assertTrue(plan.contains("us-east-1: key pair kvlab-gui-cancel-tester, security group kvlab-gui-cancel-tester"), plan);
    assertTrue(plan.contains("datacenter 1: 1 x t3.small (on-demand) in eu-west-1, USD "), plan);
    Screenshots.save(pane.getScene(), "deploy-ec2-confirm");
    Screenshots.save(stage.getScene(), "deploy-ec2-confirm-window");

    robot.clickOn("#ec2-cancel");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> robot.lookup("#ec2-confirm").tryQuery().isEmpty());
    WaitForAsyncUtils.waitForFxEvents();
    assertEquals(List.of(), everything(), "cancel created nothing in EC2");
    assertFalse(Files.exists(tmp.resolve(".kvlab/ec2/gui-cancel/key.pem")), "no key written");
    assertEquals("EC2 deploy cancelled: nothing was created",
        robot.lookup("#deploy-progress").queryAs(Label.class).getText());
    assertEquals(null, view.current(), "no deployment started");
  }

  @Test
  void confirmedCreatesTheTaggedResourcesAndTheTeardownListsWhatItDeleted(FxRobot robot) throws Exception {
    int nothingListens;
    try (ServerSocket s = new ServerSocket(0)) {
      nothingListens = s.getLocalPort(); // closed again: SSH to it is refused at once
    }
    int sshPort = nothingListens;
    view.ec2Hooks(new BackendChoice.Ec2Hooks(i -> "127.0.0.1", basePort -> new Ec2Backend.Options(false,
        Duration.ofSeconds(3), sshPort, basePort, tmp.resolve("remote").toString(), null), Duration.ofMillis(100)));
    Path file = clusterFile("gui-teardown");
    askToDeploy(robot, file);
    robot.clickOn("#ec2-create");

    WaitForAsyncUtils.waitFor(180, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> robot.lookup("#ec2-teardown").tryQuery().isPresent()).get());
    DialogPane teardown = robot.lookup("#ec2-teardown").queryAs(DialogPane.class);
    @SuppressWarnings("unchecked")
    ListView<String> list = robot.lookup("#teardown-list").queryAs(ListView.class);
    List<String> removed = WaitForAsyncUtils.asyncFx(() -> List.copyOf(list.getItems())).get(30, TimeUnit.SECONDS);
    assertEquals("EC2 teardown of gui-teardown: removed " + removed.size() + " resource(s)", teardown.getHeaderText());
    for (String region : REGIONS) {
      assertEquals(1, removed.stream().filter(r -> r.startsWith("instance i-") && r.contains(" in " + region)).count(),
          removed.toString());
      assertTrue(removed.stream().anyMatch(r -> r.startsWith("security group ") && r.contains(" in " + region)),
          removed.toString());
      assertTrue(removed.stream().anyMatch(r -> r.startsWith("key pair kvlab-gui-teardown-tester in " + region)),
          removed.toString());
    }
    Screenshots.save(teardown.getScene(), "deploy-ec2-teardown");
    // the instances had been created (the log shows each), and none is left
    @SuppressWarnings("unchecked")
    ListView<String> log = robot.lookup("#deploy-log").queryAs(ListView.class);
    List<String> lines = WaitForAsyncUtils.asyncFx(() -> List.copyOf(log.getItems())).get(30, TimeUnit.SECONDS);
    assertEquals(2, lines.stream().filter(l -> l.contains(": PROVISIONED instance i-")).count(), lines.toString());
    assertEquals(List.of(), everything(), "the teardown left nothing");
    String m = robot.lookup("#deploy-message").queryAs(Label.class).getText();
    assertTrue(m.contains("did not answer SSH") && m.contains("Fix:"), m);
    assertNotNull(view.current());
    assertEquals(Deployment.Phase.FAILED, view.current().phase());
    Node ok = teardown.lookupButton(javafx.scene.control.ButtonType.OK);
    robot.clickOn(ok);
  }
}
