package org.kvlab.designer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import javafx.scene.Scene;
import javafx.scene.chart.XYChart;
import javafx.scene.control.ButtonType;
import javafx.scene.control.DialogPane;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
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
import org.kvlab.cluster.ssh.SshTestHosts;
import org.kvlab.designer.MainWindow;
import org.kvlab.designer.Workspace;
import org.kvlab.designer.deploy.BackendChoice;
import org.kvlab.designer.testing.Screenshots;
import org.kvlab.designer.testing.Typing;
import org.kvlab.experiment.Results;
import org.kvlab.runtime.LoopbackPorts;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.NodeQueryUtils;
import org.testfx.util.WaitForAsyncUtils;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Instance;

/**
 * The Benchmark tab on remote hosts, as a person uses it in a real window: an experiment opened by typing its path,
 * "SSH hosts" or "EC2" picked under "Run on", Run clicked. On SSH: two real OpenSSH servers in network namespaces
 * ({@code scripts/test-env/sshd-hosts}, through cluster-manager's {@link SshTestHosts}), a hosts file typed into the
 * tab. On EC2: the moto emulator ({@code scripts/test-env/ec2-emulator}) with its instances mapped to those sshd hosts
 * (the public half of the key pair the benchmark made put into their authorized_keys, as EC2 does at first boot):
 * the cost is shown and confirmed first, the instances are created, the benchmark runs, and the teardown lists what
 * it deleted. Each run's live throughput comes from a YCSB client running on a host; the report is written; afterwards
 * nothing of the cluster is left in the emulator and no process on the hosts. Stop while a run is measuring tears
 * down too.
 */
@ExtendWith(ApplicationExtension.class)
@Timeout(value = 420, unit = TimeUnit.SECONDS)
class BenchRemoteTest {
  static final List<String> REGIONS = List.of("us-east-1", "eu-west-1");
  static final String JVM = "-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";
  @TempDir
  static Path tmp;
  static SshTestHosts hosts;
  static Ec2Emulator emulator;
  /**
   * The hosts' kvlab directory, one for every test of the class: the first deploy uploads the distribution (the
   * test class path, about 80 MB per host), later deploys find the same build there and upload nothing, as on a
   * user's hosts (docs/ssh.md). Each test's cluster has its own name, so its own directory under it.
   */
  static Path remote;

  private Workspace workspace;
  private Stage stage;
  private BenchView view;
  private Ec2Clients sdk;

  @BeforeAll
  static void startHostsAndEmulator() throws Exception {
    hosts = SshTestHosts.start(tmp.resolve("hosts"), 2, 0);
    remote = tmp.resolve("remote");
    emulator = Ec2Emulator.start();
    System.setProperty("aws.accessKeyId", "testing"); // dummy credentials, for the emulator only
    System.setProperty("aws.secretAccessKey", "testing");
  }

  @AfterAll
  static void stopThem() throws Exception {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
    if (emulator != null) {
      long pid = emulator.pid();
      emulator.close();
      assertFalse(alive(pid), "the emulator is stopped");
    }
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
    view = (BenchView) window.views().stream().filter(v -> v instanceof BenchView).findFirst().orElseThrow();
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
    workspace.close(); // stops whatever the tab started, waits for the teardown
    sdk.close();
  }

  // ---------------------------------------------------------------------------------------------
  // files a user writes

  /** Two runs (a read-proportion sweep) of an Eventual 2 x 1 cluster; one client JVM, in datacenter 0. */
  private static Path experiment(String name, String duration) throws Exception {
    return experiment(name, duration, "sweep:\n  readproportion: [0.5, 0.95]\n");
  }

  /** As above with {@code sweep} (YAML lines, or "" for one run). */
  private static Path experiment(String name, String duration, String sweep) throws Exception {
    Path file = tmp.resolve("experiments").resolve(name + ".yaml");
    Files.createDirectories(file.getParent());
    Files.writeString(file, """
        name: %s
        cluster: { datacenters: 2, partitions: 1, storage: memory, jvm: %s }
        protocols: [eventual]
        workload: { fieldcount: 1, fieldlength: 16 }
        %sclients: { processes: 1, threads: 2, datacenters: [0], jvm: %s }
        recordcount: 200
        duration: %s
        warmup: 1s
        """.formatted(name, JVM, sweep, JVM, duration));
    return file;
  }

  /** An open-loop sweep (docs/bench.md) of one in-memory Eventual server: two low rates of 1 s, no warm-up. */
  private static Path openLoopExperiment(String name) throws Exception {
    return BenchOpenLoopTest.experiment(tmp, name, JVM, "rates: [100, 200]\nwarmup: 0s\nduration: 1s\np99bound: 500ms\n"
        + "sessions: 2\nrecords: 20\n");
  }

  /** A hosts file (docs/ssh.md): the user's key and known_hosts, datacenter d on host d (servers and clients). */
  private static Path hostsFile(String name) throws Exception {
    Path f = tmp.resolve(name + "-hosts.yaml");
    Files.writeString(f, "ssh:\n"
        + "  user: " + hosts.user + "\n"
        + "  keyFile: " + hosts.key + "\n"
        + "  knownHosts: " + hosts.knownHosts + "\n"
        + "  port: " + hosts.hosts.get(0).port() + "\n"
        + "  dir: " + remote + "/{host}\n"
        + "  jvmOptions: " + JVM + "\n"
        + "  connectTimeout: 5s\n"
        + "basePort: " + LoopbackPorts.freeBlock(2) + "\n"
        + "datacenters:\n"
        + "  - { servers: [" + hosts.hosts.get(0).address() + "] }\n"
        + "  - { servers: [" + hosts.hosts.get(1).address() + "] }\n");
    return f;
  }

  /** The design's cluster file, with the ec2: section the EC2 choice reads. */
  private static Path ec2ClusterFile(String name) throws Exception {
    Path file = tmp.resolve(name + "-cluster.yaml");
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
          user: %s
          instancesPerDatacenter: 1
          expiryHours: 1
          owner: tester
        """.formatted(name, LoopbackPorts.freeBlock(2), hosts.user));
    return file;
  }

  // ---------------------------------------------------------------------------------------------
  // the window

  private static <T> T onFx(Callable<T> c) throws Exception {
    return WaitForAsyncUtils.asyncFx(c).get(30, TimeUnit.SECONDS);
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private String status(FxRobot robot) throws Exception {
    Label l = robot.lookup("#bench-status").queryAs(Label.class);
    return onFx(l::getText);
  }

  @SuppressWarnings("unchecked")
  private List<String> log(FxRobot robot) throws Exception {
    ListView<String> l = robot.lookup("#bench-log").queryAs(ListView.class);
    return onFx(() -> List.copyOf(l.getItems()));
  }

  private void waitFor(FxRobot robot, int seconds, String what, Callable<Boolean> condition) throws Exception {
    try {
      WaitForAsyncUtils.waitFor(seconds, TimeUnit.SECONDS, condition);
    } catch (java.util.concurrent.TimeoutException e) {
      Screenshots.save(stage.getScene(), "bench-remote-timeout");
      throw new AssertionError("timed out after " + seconds + " s waiting for " + what + "; status: " + status(robot)
          + "; log: " + log(robot), e);
    }
  }

  /** Opens the experiment by typing its path, and picks where it runs. */
  private void openAndPick(FxRobot robot, Path experiment, String backendId) throws Exception {
    robot.clickOn("#tab-benchmark");
    Typing.replaceText(robot, "#bench-file", experiment.toString()).type(KeyCode.ENTER);
    Label validation = robot.lookup("#bench-validation").queryAs(Label.class);
    waitFor(robot, 30, "the experiment checked", () -> onFx(validation::getText).startsWith("valid:"));
    robot.clickOn("#" + backendId);
    WaitForAsyncUtils.waitForFxEvents();
  }

  /** The live throughput points of each run's series so far. */
  private List<Integer> livePoints() throws Exception {
    return onFx(() -> {
      List<Integer> n = new ArrayList<>();
      for (XYChart.Series<Number, Number> s : view.charts().throughputChart().getData()) {
        n.add((int) s.getData().stream().filter(d -> d.getYValue().doubleValue() > 0).count());
      }
      return n;
    });
  }

  /** Nothing is left in the hosts' namespaces but their sshd (sessions end shortly after the connections close). */
  private static void nothingLeftOnTheHosts() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    List<Long> stray = hosts.strayProcesses();
    while (!stray.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(200);
      stray = hosts.strayProcesses();
    }
    assertEquals(List.of(), stray, "processes left on the hosts (" + hosts.mode + " mode)");
  }

  /** Every instance (pending or running), key pair and non-default security group in the emulator's two regions. */
  private List<String> everythingInEc2() {
    List<String> out = new ArrayList<>();
    for (String region : REGIONS) {
      Ec2Client c = sdk.region(region);
      c.describeInstances(b -> b.filters(Filter.builder().name("instance-state-name").values("pending", "running")
              .build())).reservations().stream().flatMap(r -> r.instances().stream()).map(Instance::instanceId)
          .forEach(id -> out.add(region + " instance " + id));
      c.describeKeyPairs().keyPairs().forEach(k -> out.add(region + " key pair " + k.keyName()));
      c.describeSecurityGroups().securityGroups().stream().filter(g -> !g.groupName().equals("default"))
          .forEach(g -> out.add(region + " security group " + g.groupName()));
    }
    return out;
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

  /** Opens the experiment, picks EC2 with the emulator (instances mapped to the sshd hosts) and presses Run. */
  private void runOnEc2(FxRobot robot, String name, String duration) throws Exception {
    runOnEc2(robot, name, ec2ClusterFile(name), experiment(name, duration), false);
  }

  /** As above with the design's cluster file {@code cluster} and the experiment {@code experiment}. */
  private void runOnEc2(FxRobot robot, String name, Path cluster, Path experiment, boolean keep) throws Exception {
    Path key = tmp.resolve(".kvlab/ec2").resolve("bench-" + name).resolve("key.pem"); // where the provisioner writes it
    String h1 = hosts.hosts.get(0).address();
    String h2 = hosts.hosts.get(1).address();
    int basePort = LoopbackPorts.freeBlock(2);
    view.backendChoice().ec2Hooks(new BackendChoice.Ec2Hooks(i -> {
      authorize(key);
      return i.datacenter() == 0 ? h1 : h2;
    }, any -> new Ec2Backend.Options(false, Duration.ofSeconds(60), hosts.hosts.get(0).port(), basePort,
        remote + "/{host}", JVM), Duration.ofMillis(100)));
    robot.interact(() -> workspace.clusterFile().set(cluster)); // the design's cluster file (Design tab, Open)
    openAndPick(robot, experiment, "bench-backend-ec2");
    robot.clickOn("#bench-ec2-caller-cidr").write("203.0.113.7/32");
    robot.clickOn("#bench-ec2-endpoint").write(emulator.endpoint.toString());
    if (keep) {
      robot.clickOn("#bench-ec2-keep");
    }
    robot.clickOn("#bench-run");
    waitFor(robot, 60, "the confirmation", () -> onFx(() -> robot.lookup("#ec2-create")
        .match(NodeQueryUtils.isVisible()).tryQuery().isPresent()));
  }

  /** Waits for the teardown dialog; returns what it lists (and closes it with OK). */
  private List<String> teardown(FxRobot robot, String shot) throws Exception {
    waitFor(robot, 240, "the teardown", () -> onFx(() -> robot.lookup("#ec2-teardown").tryQuery().isPresent()));
    DialogPane pane = robot.lookup("#ec2-teardown").queryAs(DialogPane.class);
    @SuppressWarnings("unchecked")
    ListView<String> list = robot.lookup("#teardown-list").queryAs(ListView.class);
    List<String> removed = onFx(() -> List.copyOf(list.getItems()));
    if (shot != null) {
      Screenshots.save(pane.getScene(), shot);
    }
    robot.clickOn(pane.lookupButton(ButtonType.OK));
    for (String region : REGIONS) {
      assertEquals(1, removed.stream().filter(r -> r.startsWith("instance i-") && r.contains(" in " + region)).count(),
          removed.toString());
      assertTrue(removed.stream().anyMatch(r -> r.startsWith("security group ") && r.contains(" in " + region)),
          removed.toString());
      assertTrue(removed.stream().anyMatch(r -> r.startsWith("key pair ") && r.contains(" in " + region)),
          removed.toString());
    }
    return removed;
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  void onSshHostsEachRunDrawsLiveThroughputFromItsRemoteClientAndTheReportComesBack(FxRobot robot) throws Exception {
    Path experiment = experiment("guissh", "3s");
    openAndPick(robot, experiment, "bench-backend-ssh");
    Path hostsFile = hostsFile("guissh");
    robot.clickOn("#bench-ssh-hosts-file").write(hostsFile.toString());
    robot.clickOn("#bench-run");
    waitFor(robot, 300, "a live point of both runs", () -> !view.running() || livePoints().size() == 2
        && livePoints().stream().allMatch(n -> n >= 1));
    assertTrue(view.running(), "the live points came while the benchmark ran; status: " + status(robot));
    Screenshots.save(stage.getScene(), "bench-ssh-running");
    waitFor(robot, 240, "the end", () -> !view.running());
    WaitForAsyncUtils.waitForFxEvents();
    Results.ExperimentResult r = view.lastResult();
    assertEquals(Results.OK, r.status(), r.runs() + " " + log(robot));
    assertEquals(2, r.runs().size());
    assertTrue(r.runs().stream().allMatch(x -> x.ok() && x.throughput() > 0), r.runs().toString());
    TextField report = robot.lookup("#bench-report-path").queryAs(TextField.class);
    assertTrue(Files.isRegularFile(Path.of(report.getText())), report.getText());
    // the client ran on the first host: its files were collected from there
    List<String> lines = log(robot);
    assertTrue(lines.stream().anyMatch(l -> l.contains("CLIENT_STARTED") && l.contains(hosts.hosts.get(0).address())),
        lines.toString());
    assertTrue(status(robot).contains("2 of 2 runs ok"), status(robot));
    Screenshots.save(stage.getScene(), "bench-ssh-done");
    nothingLeftOnTheHosts();
  }

  /** The points drawn in the open-loop throughput chart so far (achieved against offered, every series). */
  private int openLoopPointsDrawn() throws Exception {
    return onFx(() -> view.charts().throughputChart().getData().stream().mapToInt(s -> s.getData().size()).sum());
  }

  @Test
  void anOpenLoopSweepOnSshHostsDrawsItsPointsAndLeavesNothingThere(FxRobot robot) throws Exception {
    Path experiment = openLoopExperiment("guiolssh");
    openAndPick(robot, experiment, "bench-backend-ssh");
    robot.clickOn("#bench-ssh-hosts-file").write(hostsFile("guiolssh").toString());
    robot.clickOn("#bench-run");
    waitFor(robot, 300, "the first point drawn", () -> !view.running() || openLoopPointsDrawn() >= 1);
    if (view.running()) {
      Screenshots.save(stage.getScene(), "bench-openloop-ssh-running");
    }
    waitFor(robot, 240, "the end", () -> !view.running());
    WaitForAsyncUtils.waitForFxEvents();
    org.kvlab.openloop.OpenLoopBench.Report r = view.lastOpenLoop();
    assertTrue(r != null, "a report; status: " + status(robot) + "; log: " + log(robot));
    assertEquals(2, r.points().size(), r.points().toString());
    assertTrue(r.points().stream().allMatch(p -> p.measured() > 0 && p.achievedOpsPerSec() > 0), r.points().toString());
    assertEquals(2, openLoopPointsDrawn(), "each rate's point drawn");
    assertTrue(status(robot).startsWith("guiolssh: open loop done, 2 points"), status(robot));
    com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(r.directory().resolve("openloop.json").toFile());
    assertEquals("ssh", json.path("backend").asText(), json.toString());
    assertEquals("ok", json.path("status").asText(), json.toString());
    // the generator ran as a client process on the first host (datacenter 0's client host)
    assertEquals(hosts.hosts.get(0).address(), json.path("generatorHosts").path("guiolssh-eventual-1").asText(),
        json.toString());
    List<String> lines = log(robot);
    assertTrue(lines.stream().anyMatch(l -> l.contains("releasing the hosts")), lines.toString());
    Screenshots.save(stage.getScene(), "bench-openloop-ssh-done");
    nothingLeftOnTheHosts();
  }

  @Test
  void anOpenLoopSweepOnEc2IsConfirmedRunsOnTheInstancesAndIsTornDown(FxRobot robot) throws Exception {
    Path cluster = tmp.resolve("guiolec2-cluster.yaml"); // one datacenter, as the sweep's cluster: one region
    Files.writeString(cluster, Files.readString(ec2ClusterFile("guiolec2-design")).replace("datacenters: 2",
        "datacenters: 1").replace("regions: [us-east-1, eu-west-1]", "regions: [us-east-1]"));
    runOnEc2(robot, "guiolec2", cluster, openLoopExperiment("guiolec2"), false);
    DialogPane confirm = robot.lookup("#ec2-confirm").queryAs(DialogPane.class);
    assertEquals("Create 1 EC2 instance(s) in 1 region(s) for benchmark guiolec2 (cluster bench-guiolec2)?",
        onFx(confirm::getHeaderText));
    assertEquals(List.of(), everythingInEc2(), "nothing is created before the confirmation");
    robot.clickOn("#ec2-create");
    waitFor(robot, 300, "the teardown", () -> onFx(() -> robot.lookup("#ec2-teardown").tryQuery().isPresent()));
    @SuppressWarnings("unchecked")
    ListView<String> list = robot.lookup("#teardown-list").queryAs(ListView.class);
    List<String> removed = onFx(() -> List.copyOf(list.getItems()));
    assertEquals(1, removed.stream().filter(r -> r.startsWith("instance i-") && r.contains(" in us-east-1")).count(),
        removed.toString());
    robot.clickOn(robot.lookup("#ec2-teardown").queryAs(DialogPane.class).lookupButton(ButtonType.OK));
    waitFor(robot, 60, "the end", () -> !view.running());
    WaitForAsyncUtils.waitForFxEvents();
    org.kvlab.openloop.OpenLoopBench.Report r = view.lastOpenLoop();
    assertTrue(r != null, "a report; status: " + status(robot) + "; log: " + log(robot));
    assertEquals(2, r.points().size(), r.points().toString());
    assertEquals(2, openLoopPointsDrawn(), "each rate's point drawn");
    com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(r.directory().resolve("openloop.json").toFile());
    assertEquals("ec2", json.path("backend").asText(), json.toString());
    List<String> lines = log(robot);
    for (String stage : List.of("creating the EC2 instances", "tearing down: deleting the EC2 resources")) {
      assertTrue(lines.stream().anyMatch(l -> l.contains(stage)), "'" + stage + "' in the log: " + lines);
    }
    assertEquals(List.of(), everythingInEc2(), "the teardown left nothing; it removed " + removed);
    nothingLeftOnTheHosts();
  }

  @Test
  void onSshHostsStopWhileARunMeasuresStopsEverythingThere(FxRobot robot) throws Exception {
    Path experiment = experiment("guisshstop", "120s");
    openAndPick(robot, experiment, "bench-backend-ssh");
    robot.clickOn("#bench-ssh-hosts-file").write(hostsFile("guisshstop").toString());
    robot.clickOn("#bench-run");
    waitFor(robot, 300, "the first live point", () -> !view.running() || livePoints().stream().anyMatch(n -> n >= 1));
    assertTrue(view.running(), status(robot));
    robot.clickOn("#bench-stop");
    waitFor(robot, 120, "the stop", () -> !view.running());
    WaitForAsyncUtils.waitForFxEvents();
    Results.ExperimentResult r = view.lastResult();
    assertEquals(Results.INTERRUPTED, r.status(), String.valueOf(r));
    nothingLeftOnTheHosts();
  }

  @Test
  void onEc2TheCostIsConfirmedTheRunsDrawLiveAndTheTeardownListsWhatItDeleted(FxRobot robot) throws Exception {
    runOnEc2(robot, "guiec2", "3s");
    DialogPane confirm = robot.lookup("#ec2-confirm").queryAs(DialogPane.class);
    assertEquals("Create 2 EC2 instance(s) in 2 region(s) for benchmark guiec2 (cluster bench-guiec2)?",
        onFx(confirm::getHeaderText));
    String cost = onFx(() -> robot.lookup("#ec2-cost").queryAs(Label.class).getText());
    assertTrue(cost.startsWith("cost: about USD ") && cost.contains(" per hour"), cost);
    assertEquals(List.of(), everythingInEc2(), "nothing is created before the confirmation");
    Screenshots.save(confirm.getScene(), "bench-ec2-confirm");
    robot.clickOn("#ec2-create");

    waitFor(robot, 300, "a live point of both runs", () -> !view.running() || livePoints().size() == 2
        && livePoints().stream().allMatch(n -> n >= 1));
    assertTrue(view.running(), "the live points came while the benchmark ran; status: " + status(robot));
    Screenshots.save(stage.getScene(), "bench-ec2-running");
    List<String> removed = teardown(robot, "bench-ec2-teardown");
    waitFor(robot, 60, "the end", () -> !view.running());
    WaitForAsyncUtils.waitForFxEvents();
    Results.ExperimentResult r = view.lastResult();
    assertEquals(Results.OK, r.status(), r.runs() + " " + log(robot));
    assertTrue(r.runs().stream().allMatch(x -> x.ok() && x.throughput() > 0), r.runs().toString());
    assertTrue(Files.isRegularFile(Path.of(robot.lookup("#bench-report-path").queryAs(TextField.class).getText())));
    List<String> lines = log(robot);
    // every stage, in the log (and, when it came, in the status line)
    for (String stage : List.of("creating the EC2 instances", "answers SSH and has Java", "deploying to ec2",
        "loading 200 records with 1 client on ec2", "running the workload with 1 client on ec2",
        "collecting the run phase's client files", "tearing down: deleting the EC2 resources")) {
      assertTrue(lines.stream().anyMatch(l -> l.contains(stage)), "'" + stage + "' in the log: " + lines);
    }
    assertEquals(2, lines.stream().filter(l -> l.contains(": PROVISIONED instance i-")).count(), lines.toString());
    assertEquals(List.of(), everythingInEc2(), "the teardown left nothing; it removed " + removed);
    Screenshots.save(stage.getScene(), "bench-ec2-done");
    nothingLeftOnTheHosts();
  }

  @Test
  void onEc2StopWhileARunMeasuresTearsDownToo(FxRobot robot) throws Exception {
    runOnEc2(robot, "guiec2stop", "120s");
    robot.clickOn("#ec2-create");
    waitFor(robot, 300, "the first live point", () -> !view.running() || livePoints().stream().anyMatch(n -> n >= 1));
    assertTrue(view.running(), status(robot));
    robot.clickOn("#bench-stop");
    teardown(robot, null);
    waitFor(robot, 60, "the end", () -> !view.running());
    assertEquals(Results.INTERRUPTED, view.lastResult().status(), String.valueOf(view.lastResult()));
    assertEquals(List.of(), everythingInEc2(), "the teardown left nothing");
    nothingLeftOnTheHosts();
  }

  @Test
  void theClusterRunningInTheDeployTabIsBenchmarkedAndLeftRunning(FxRobot robot) throws Exception {
    Path cluster = tmp.resolve("guideployed-cluster.yaml");
    Files.writeString(cluster, "name: guideployed\nprotocol: eventual\ndatacenters: 1\npartitions: 1\n"
        + "local: { host: 127.0.0.1, basePort: " + LoopbackPorts.freeBlock(1) + " }\n"
        + "storage: { engine: memory, durability: none }\n");
    Path experiment = tmp.resolve("experiments").resolve("guideployed.yaml");
    Files.createDirectories(experiment.getParent());
    Files.writeString(experiment, """
        name: guideployed
        cluster: { datacenters: 1, partitions: 1, storage: memory }
        protocols: [eventual]
        workload: { fieldcount: 1, fieldlength: 16 }
        clients: { processes: 1, threads: 2, jvm: %s }
        recordcount: 200
        duration: 3s
        warmup: 1s
        """.formatted(JVM));
    robot.interact(() -> workspace.clusterFile().set(cluster));
    openAndPick(robot, experiment, "bench-backend-deployed");
    Label note = robot.lookup("#bench-deployed-note").queryAs(Label.class);
    assertTrue(onFx(note::getText).startsWith("No cluster runs from the Deploy tab. Fix: deploy one there first"),
        onFx(note::getText));
    robot.clickOn("#bench-run");
    waitFor(robot, 30, "the refusal", () -> status(robot).startsWith("Not run: no cluster runs in the Deploy tab"));
    assertFalse(view.running());

    robot.clickOn("#tab-deploy");
    robot.clickOn("#backend-local");
    robot.clickOn("#deploy-button");
    Label phase = robot.lookup("#deploy-phase").queryAs(Label.class);
    waitFor(robot, 180, "the cluster up in the Deploy tab", () -> onFx(phase::getText).contains("1/1 servers up"));
    robot.clickOn("#tab-benchmark");
    assertTrue(onFx(note::getText).startsWith("Benchmarks guideployed (eventual, 1 servers) running on local"),
        onFx(note::getText));
    robot.clickOn("#bench-run");
    waitFor(robot, 240, "the benchmark on the running cluster", () -> !view.running() && view.lastResult() != null);
    Results.ExperimentResult r = view.lastResult();
    assertEquals(Results.OK, r.status(), r.runs() + " " + log(robot));
    assertTrue(r.runs().get(0).throughput() > 0, r.runs().toString());
    assertEquals("kvlab designer: benchmark experiments/guideployed.yaml", r.environment().command());
    robot.clickOn("#tab-deploy");
    assertTrue(onFx(phase::getText).contains("1/1 servers up"), "left running: " + onFx(phase::getText));
    robot.clickOn("#stop-button");
    waitFor(robot, 60, "stopped", () -> onFx(phase::getText).equals("stopped"));
    robot.clickOn("#tab-benchmark");
    assertTrue(onFx(note::getText).startsWith("No cluster runs from the Deploy tab"), onFx(note::getText));
  }

  @Test
  void ec2InstancesKeptOnPurposeAreListedInTheDeployTabWithTheirExpiry(FxRobot robot) throws Exception {
    // one run: what is checked is what the teardown keeps (the sweep's runs are the test above's)
    runOnEc2(robot, "guiec2keep", ec2ClusterFile("guiec2keep"), experiment("guiec2keep", "2s", ""), true);
    robot.clickOn("#ec2-create");
    waitFor(robot, 300, "the end", () -> !view.running() && view.lastResult() != null);
    assertEquals(Results.OK, view.lastResult().status(), view.lastResult().runs() + " " + log(robot));
    WaitForAsyncUtils.waitForFxEvents();
    assertTrue(robot.lookup("#ec2-teardown").tryQuery().isEmpty(), "nothing torn down");
    assertEquals(2, everythingInEc2().stream().filter(r -> r.contains(" instance i-")).count(), everythingInEc2().toString());
    robot.clickOn("#tab-deploy");
    Label kept = robot.lookup("#deploy-kept").queryAs(Label.class);
    String text = onFx(kept::getText);
    assertTrue(text.contains("bench-guiec2keep (owner tester): i-") && text.contains("they terminate themselves at 20"),
        text);
    assertTrue(onFx(kept::isVisible), "shown");
    Screenshots.save(stage.getScene(), "bench-ec2-kept");
    // what a user does next: kvlab ec2 down (here its library call), which leaves nothing
    new org.kvlab.cluster.ec2.Ec2Provisioner(sdk, org.kvlab.cluster.ec2.PriceTable.bundled(),
        org.kvlab.cluster.ec2.Ec2Listener.NONE, new org.kvlab.cluster.ec2.Ec2Provisioner.Options(java.time.Clock.systemUTC(),
            Duration.ofMillis(100), Duration.ofSeconds(60), tmp.resolve(".kvlab/ec2")))
        .down("bench-guiec2keep", "tester", REGIONS);
    assertEquals(List.of(), everythingInEc2());
    nothingLeftOnTheHosts();
  }

  @Test
  void ec2CancelCreatesNothing(FxRobot robot) throws Exception {
    runOnEc2(robot, "guiec2cancel", "3s");
    robot.clickOn("#ec2-cancel");
    waitFor(robot, 30, "the cancel", () -> !view.running());
    assertEquals("EC2 benchmark cancelled: nothing was created", status(robot));
    assertEquals(List.of(), everythingInEc2(), "cancel created nothing");
    assertFalse(Files.exists(tmp.resolve(".kvlab/ec2/bench-guiec2cancel/key.pem")), "no key written");
  }
}
