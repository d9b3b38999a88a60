package org.kvlab.cluster.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.cluster.ClusterEvent;
import org.kvlab.cluster.ClusterListener;
import org.kvlab.cluster.ec2.CallerAddress;
import org.kvlab.cluster.ec2.Ec2Backend;
import org.kvlab.cluster.ec2.Ec2Clients;
import org.kvlab.cluster.ec2.Ec2Emulator;
import org.kvlab.cluster.ec2.Ec2Instance;
import org.kvlab.cluster.ec2.Ec2Provisioner;
import org.kvlab.cluster.ec2.Ec2Spec;
import org.kvlab.cluster.ec2.PriceTable;
import org.kvlab.experiment.RunPlan;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import org.kvlab.experiment.Experiment;
import org.kvlab.experiment.ExperimentLoader;
import org.kvlab.experiment.ExperimentRunner;
import org.kvlab.experiment.LiveRecorder;
import org.kvlab.experiment.Reports;
import org.kvlab.experiment.Results;

/**
 * Goal (1): {@code kvlab bench --backend ssh} runs an experiment on real hosts: a 2 datacenter x 3 partition cluster
 * on two SSH hosts (one datacenter each), YCSB clients on the hosts (datacenter 0's on its server host, datacenter
 * 1's on a third, client-only host), client files collected back, the same results.json/CSV/charts/report as a
 * local run, and nothing left running on the hosts (checked by PID inside their network namespaces).
 * Goal (2): {@code kvlab bench --backend ec2}: the whole path up (tagged instances in two regions of the moto EC2
 * emulator) -> SSH answers with the key up wrote -> SSH deploy -> short benchmark -> down, which deletes exactly the
 * cluster's resources (an unrelated instance survives). The emulator's instances are mapped to the test's sshd hosts
 * by the address hook (the fake addresses are never dialled); the mapping hook also installs the public half of the
 * cluster's key on the hosts, as the AMI does with the key pair on EC2. Both share one set of three sshd hosts.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class SshBenchTest {
  @TempDir static Path tmp;
  static SshTestHosts hosts;
  /** The class path (tens of MB); every test deploys under tmp/remote on the hosts, so a build is uploaded once. */
  static Distribution dist;

  @BeforeAll
  static void startHosts() throws Exception {
    hosts = SshTestHosts.start(tmp.resolve("hosts"), 3, 0);
    dist = Distribution.fromClassPath(System.getProperty("java.class.path"), tmp.resolve("dist"));
  }

  @AfterAll
  static void stopHosts() {
    if (hosts != null) {
      hosts.close();
    }
  }

  static Path hostsFile() throws Exception {
    String h1 = hosts.hosts.get(0).address();
    String h2 = hosts.hosts.get(1).address();
    String h3 = hosts.hosts.get(2).address();
    Path f = tmp.resolve("hosts.yaml");
    Files.writeString(f, hosts.sshSection(tmp.resolve("remote"))
        + "basePort: " + org.kvlab.runtime.LoopbackPorts.freeBlock(6) + "\n"
        + "datacenters:\n"
        + "  - { servers: [" + h1 + "] }\n"
        + "  - { servers: [" + h2 + "], clients: [" + h3 + "] }\n");
    return f;
  }

  @Test
  void a_2x3_benchmark_runs_on_ssh_hosts_with_clients_there_and_leaves_nothing_running() throws Exception {
    Path file = tmp.resolve("ssh-bench.yaml");
    Files.writeString(file, """
        name: sshbench
        cluster:
          datacenters: 2
          partitions: 3
          storage: memory
          jvm: -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1
        protocols: [eventual]
        workload: { fieldcount: 1, fieldlength: 16 }
        clients: { processes: 1, threads: 2, jvm: -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 }
        recordcount: 200
        duration: 3s
        warmup: 1s
        """);
    Experiment e = ExperimentLoader.load(file, Protocols.all().stream().map(Protocol::name).toList());
    SshHosts h = SshHosts.load(hostsFile());
    List<ClusterEvent> events = Collections.synchronizedList(new ArrayList<>());
    ClusterListener listener = new ClusterListener() {
      @Override
      public void event(ClusterEvent ev) {
        events.add(ev);
      }
    };
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    Results.ExperimentResult r;
    ExperimentRunner runner;
    LiveRecorder live = new LiveRecorder();
    try (SshBackend backend = new SshBackend(h, dist, listener)) {
      runner = new ExperimentRunner(ExperimentRunner.Options.defaults().withOutputRoot(tmp.resolve("results"))
          .withLog(new PrintStream(log, true)).withBackend(backend));
      runner.addListener(live);
      r = runner.run(e);
    }
    assertEquals(Results.OK, r.status(), log + "\n" + events);
    assertEquals(1, r.runs().size());
    Results.RunResult run = r.runs().get(0);
    assertTrue(run.ok(), run.reason());
    assertEquals(2, run.clients());
    assertTrue(run.throughput() > 0 && run.operations() > 0, run.toString());
    assertTrue(run.op("READ").count() > 0 && run.op("UPDATE").count() > 0, run.ops().toString());

    // Where things ran: servers of datacenter 0 on h1 and of datacenter 1 on h2, clients on h1 and h3.
    String h1 = hosts.hosts.get(0).address();
    String h2 = hosts.hosts.get(1).address();
    String h3 = hosts.hosts.get(2).address();
    List<ClusterEvent> snapshot;
    synchronized (events) {
      snapshot = List.copyOf(events);
    }
    assertEquals(3, snapshot.stream().filter(x -> x.kind() == ClusterEvent.Kind.STARTED && x.host().equals(h1)).count(), snapshot.toString());
    assertEquals(3, snapshot.stream().filter(x -> x.kind() == ClusterEvent.Kind.STARTED && x.host().equals(h2)).count(), snapshot.toString());
    for (String phase : List.of("load", "run")) {
      assertTrue(snapshot.stream().anyMatch(x -> x.kind() == ClusterEvent.Kind.CLIENT_STARTED && x.host().equals(h1)
          && x.node().equals(phase + "/dc0-c0")), snapshot.toString());
      assertTrue(snapshot.stream().anyMatch(x -> x.kind() == ClusterEvent.Kind.CLIENT_STARTED && x.host().equals(h3)
          && x.node().equals(phase + "/dc1-c0")), snapshot.toString());
    }
    // the client-only host got the distribution, but not the cluster's secret
    assertTrue(snapshot.stream().anyMatch(x -> x.kind() == ClusterEvent.Kind.UPLOADED && x.host().equals(h3)), snapshot.toString());
    assertTrue(snapshot.stream().noneMatch(x -> x.kind() == ClusterEvent.Kind.SECRET_UPLOADED && x.host().equals(h3)));
    assertTrue(snapshot.stream().noneMatch(x -> x.kind() == ClusterEvent.Kind.FAILED), snapshot.toString());

    // The clients' files came back; the report is the local one's.
    Path out = runner.outputDirectory();
    Path runDir = out.resolve("runs").resolve(run.id());
    for (String client : List.of("dc0-c0", "dc1-c0")) {
      Path c = runDir.resolve("run").resolve(client);
      assertTrue(Files.size(c.resolve("export.json")) > 0, c.toString());
      assertTrue(Files.exists(c.resolve("stderr.txt")));
      try (var hdr = Files.list(c.resolve("hdr"))) {
        assertTrue(hdr.anyMatch(p -> p.getFileName().toString().startsWith("READ")), "READ histogram collected in " + c);
      }
      assertTrue(Files.readString(c.resolve("command.txt")).contains("site.ycsb.Client"));
    }
    for (var s : List.of("0_0", "0_1", "0_2", "1_0", "1_1", "1_2")) {
      assertTrue(Files.exists(runDir.resolve("logs").resolve(s + ".log")), "server log " + s);
    }
    for (String f : List.of("results.json", "results.csv", "report.html", "throughput.svg")) {
      assertTrue(Files.size(out.resolve(f)) > 0, f);
    }
    assertTrue(Files.readString(runDir.resolve("cluster.yaml")).contains("host: " + h2));

    // Drawn live from the hosts: throughput (YCSB's status lines) and latencies (its histogram logs, read over SSH)
    // arrived while the clients ran, not only from the files collected after.
    live.assertLiveDuringEachRun();
    // The report says where it ran: the backend and, per datacenter, the servers' and the clients' hosts.
    Results.Environment env = Reports.readJson(out.resolve("results.json")).environment();
    assertEquals("ssh", env.backend());
    assertEquals(List.of(new Results.DatacenterHosts(0, List.of(h1), List.of(h1)),
        new Results.DatacenterHosts(1, List.of(h2), List.of(h3))), env.hosts());
    String report = Files.readString(out.resolve("report.html"));
    assertTrue(report.contains("<th class=\"l\">backend</th><td class=\"l\">ssh</td>"), report);
    assertTrue(report.contains("servers: " + h2 + "; clients: " + h3), report);

    // Nothing left running: every server and client PID reported is gone, and the hosts' namespaces hold only sshd.
    List<Long> pids = new ArrayList<>();
    for (ClusterEvent x : snapshot) {
      if ((x.kind() == ClusterEvent.Kind.STARTED || x.kind() == ClusterEvent.Kind.CLIENT_STARTED)
          && x.message().startsWith("pid ")) {
        pids.add(Long.parseLong(x.message().split("\\s+")[1]));
      }
    }
    assertEquals(6 + 4, pids.size(), snapshot.toString());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    List<Long> alive = alive(pids);
    List<Long> stray = hosts.strayProcesses();
    while ((!alive.isEmpty() || !stray.isEmpty()) && System.nanoTime() < deadline) {
      Thread.sleep(200);
      alive = alive(pids);
      stray = hosts.strayProcesses();
    }
    assertEquals(List.of(), alive, "server or client processes still running");
    assertEquals(List.of(), stray, "processes left in the hosts' namespaces (" + hosts.mode + " mode)");
    assertFalse(Files.exists(tmp.resolve("remote").resolve(h1).resolve("clusters/bench-sshbench/data")));
  }

  private static List<Long> alive(List<Long> pids) {
    return pids.stream().filter(p -> ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false)).toList();
  }

  @Test
  void the_ec2_path_up_ssh_deploy_benchmark_down_against_the_emulator_and_the_sshd_hosts() throws Exception {
    Path file = tmp.resolve("ec2-bench.yaml");
    Files.writeString(file, """
        name: ec2bench
        cluster:
          datacenters: 2
          partitions: 3
          storage: memory
          jvm: -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1
        protocols: [eventual]
        workload: { fieldcount: 1, fieldlength: 16 }
        clients: { processes: 1, threads: 2, jvm: -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 }
        recordcount: 200
        duration: 3s
        warmup: 1s
        """);
    Experiment e = ExperimentLoader.load(file, Protocols.all().stream().map(Protocol::name).toList());
    int basePort = org.kvlab.runtime.LoopbackPorts.freeBlock(6);
    var shape = RunPlan.shape(e, basePort);
    String ec2Yaml = """
        ec2:
          instanceType: t3.small
          regions: [us-east-1, eu-west-1]
          regionPerDatacenter: true
          amiLookup: { owner: "099720109477", name: "ubuntu/images/hvm-ssd/ubuntu-xenial-16.04-amd64-server-*" }
          instancesPerDatacenter: 1
          user: %s
          expiryHours: 1
          owner: tester
        """.formatted(hosts.user);
    Ec2Spec spec = Ec2Spec.parse(ec2Yaml, "ec2.yaml", shape);
    Path state = tmp.resolve("ec2-state");
    List<ClusterEvent> events = Collections.synchronizedList(new ArrayList<>());
    ClusterListener listener = new ClusterListener() {
      @Override
      public void event(ClusterEvent ev) {
        events.add(ev);
      }
    };
    String h1 = hosts.hosts.get(0).address();
    String h2 = hosts.hosts.get(1).address();
    try (Ec2Emulator emulator = Ec2Emulator.start();
         Ec2Clients clients = new Ec2Clients(StaticCredentialsProvider.create(AwsBasicCredentials.create("testing", "testing")),
             emulator.endpoint)) {
      // An instance that is not the cluster's: down must leave it running.
      var east = clients.region("us-east-1");
      String ami = east.describeImages(b -> b.owners("099720109477")).images().get(0).imageId();
      String unrelated = east.runInstances(b -> b.imageId(ami).instanceType("t3.micro").minCount(1).maxCount(1))
          .instances().get(0).instanceId();
      Ec2Provisioner provisioner = new Ec2Provisioner(clients, PriceTable.bundled(), Ec2Backend.forward(listener),
          new Ec2Provisioner.Options(java.time.Clock.systemUTC(), java.time.Duration.ofMillis(100),
              java.time.Duration.ofSeconds(60), state));
      Ec2Backend backend = new Ec2Backend(provisioner, state, dist, listener, new Ec2Backend.Options(false,
          java.time.Duration.ofSeconds(60), hosts.hosts.get(0).port(), basePort, tmp.resolve("remote") + "/{host}", null));
      List<String> mapped = Collections.synchronizedList(new ArrayList<>());
      LiveRecorder live = new LiveRecorder();
      Results.ExperimentResult r;
      ExperimentRunner runner;
      try {
        backend.up(shape, spec, CallerAddress.fixed("203.0.113.7/32"), (Ec2Instance i) -> {
          authorize(provisioner.keyFile(shape.name()));
          mapped.add(i.id() + " " + i.publicIp());
          return i.datacenter() == 0 ? h1 : h2;
        });
        assertEquals(2, backend.cluster().hosts().size(), backend.cluster().toString());
        runner = new ExperimentRunner(ExperimentRunner.Options.defaults().withOutputRoot(tmp.resolve("results-ec2"))
            .withLog(new PrintStream(new ByteArrayOutputStream(), true)).withBackend(backend));
        runner.addListener(live);
        r = runner.run(e);
      } finally {
        backend.close();
      }
      List<ClusterEvent> snapshot;
      synchronized (events) {
        snapshot = List.copyOf(events);
      }
      assertEquals(Results.OK, r.status(), r.runs() + "\n" + snapshot);
      Results.RunResult run = r.runs().get(0);
      assertTrue(run.throughput() > 0 && run.op("READ").count() > 0, run.toString());
      assertTrue(Files.size(runner.outputDirectory().resolve("report.html")) > 0);
      // live charts from the instances' clients, and the report names the backend, hosts, instance types and regions
      live.assertLiveDuringEachRun();
      Results.Environment env = Reports.readJson(runner.outputDirectory().resolve("results.json")).environment();
      assertEquals("ec2", env.backend());
      assertEquals(List.of(new Results.DatacenterHosts(0, List.of(h1), List.of(h1)),
          new Results.DatacenterHosts(1, List.of(h2), List.of(h2))), env.hosts());
      assertTrue(env.hostDetails().get(h1).startsWith("t3.small in us-east-1, i-"), env.hostDetails().toString());
      assertTrue(env.hostDetails().get(h2).startsWith("t3.small in eu-west-1, i-"), env.hostDetails().toString());
      String report = Files.readString(runner.outputDirectory().resolve("report.html"));
      assertTrue(report.contains("servers: " + h2 + " (t3.small in eu-west-1, i-"), report);
      assertEquals(2, mapped.size(), mapped.toString());
      // The hosts were reached with the key up wrote (PKCS#8 PEM, read by JSch), their keys recorded as new.
      assertEquals(2, snapshot.stream().filter(x -> x.kind() == ClusterEvent.Kind.NEW_HOST_KEY).count(), snapshot.toString());
      assertTrue(snapshot.stream().anyMatch(x -> x.kind() == ClusterEvent.Kind.PROVISIONED && x.message().startsWith("instance ")),
          snapshot.toString());
      assertEquals(3, snapshot.stream().filter(x -> x.kind() == ClusterEvent.Kind.STARTED && x.host().equals(h2)).count());
      // down: the cluster's instances are gone, the unrelated one runs on.
      List<Ec2Instance> left = provisioner.list(List.of("us-east-1", "eu-west-1"), java.util.Optional.of(shape.name()));
      assertEquals(List.of(), left.stream().filter(i -> !i.state().equals("terminated")).toList());
      assertTrue(snapshot.stream().anyMatch(x -> x.kind() == ClusterEvent.Kind.DELETED), snapshot.toString());
      String state0 = east.describeInstances(b -> b.instanceIds(unrelated)).reservations().get(0).instances().get(0)
          .state().nameAsString();
      assertEquals("running", state0);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    List<Long> stray = hosts.strayProcesses();
    while (!stray.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(200);
      stray = hosts.strayProcesses();
    }
    assertEquals(List.of(), stray, "processes left in the hosts' namespaces");
  }

  private static volatile boolean authorized;

  /** What EC2 does with the key pair at the instance's first boot: its public half goes into authorized_keys. */
  private static synchronized void authorize(Path keyPem) {
    if (authorized) {
      return;
    }
    try {
      Process p = new ProcessBuilder("ssh-keygen", "-y", "-f", keyPem.toString()).redirectErrorStream(true).start();
      String pub = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0 || !pub.startsWith("ssh-rsa ")) {
        throw new IllegalStateException("ssh-keygen -y cannot read " + keyPem + ": " + pub);
      }
      Files.writeString(hosts.dir.resolve("authorized_keys"), pub + " kvlab-ec2-test\n",
          java.nio.file.StandardOpenOption.APPEND);
      authorized = true;
    } catch (java.io.IOException | InterruptedException ex) {
      throw new IllegalStateException(ex);
    }
  }

  record Cli(int code, String out, String err) {}

  static Cli kvlab(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream x = new ByteArrayOutputStream();
    System.setOut(new PrintStream(o, true, java.nio.charset.StandardCharsets.UTF_8));
    System.setErr(new PrintStream(x, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      int code = org.kvlab.cli.Main.run(args);
      return new Cli(code, o.toString(java.nio.charset.StandardCharsets.UTF_8), x.toString(java.nio.charset.StandardCharsets.UTF_8));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  /** The CLI is a front end to the backend API: kvlab ssh up/status/down on a 1x2 cluster, and bench's usage errors. */
  @Test
  void kvlab_ssh_up_status_down_go_through_the_backend_and_bench_names_a_missing_hosts_file() throws Exception {
    String h1 = hosts.hosts.get(0).address();
    int base = org.kvlab.runtime.LoopbackPorts.freeBlock(2);
    Path f = tmp.resolve("cli-ssh.yaml");
    Files.writeString(f, "name: clissh\nprotocol: eventual\ndatacenters: 1\npartitions: 2\nservers:\n"
        + "  - { id: 0_0, host: " + h1 + ", port: " + base + " }\n"
        + "  - { id: 0_1, host: " + h1 + ", port: " + (base + 1) + " }\n"
        + "storage: { engine: memory, durability: none, dir: data }\n"
        + "ssh:\n  user: " + hosts.user + "\n  keyFile: " + hosts.key + "\n  knownHosts: " + hosts.knownHosts + "\n"
        + "  port: " + hosts.hosts.get(0).port() + "\n  dir: " + tmp.resolve("remote") + "/{host}\n"
        + "  jvmOptions: -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1\n");
    try {
      Cli up = kvlab("ssh", "up", f.toString(), "--wait", "120s");
      assertEquals(org.kvlab.cli.Main.OK, up.code(), up.out() + up.err());
      assertTrue(up.out().contains("deploy: done on 1 host(s)"), up.out());
      assertTrue(up.out().contains(h1 + " 0_1: started pid "), up.out());
      Cli status = kvlab("ssh", "status", f.toString());
      assertEquals(org.kvlab.cli.Main.OK, status.code(), status.out() + status.err());
      assertTrue(status.out().contains("0_1"), status.out());
    } finally {
      Cli down = kvlab("ssh", "down", f.toString());
      assertEquals(org.kvlab.cli.Main.OK, down.code(), down.out() + down.err());
      assertTrue(down.out().contains("0_0: stopped pid"), down.out());
    }
    Cli after = kvlab("ssh", "status", f.toString());
    assertEquals(org.kvlab.cli.Main.NOT_RUNNING, after.code(), after.out() + after.err());

    Path exp = tmp.resolve("cli-exp.yaml");
    Files.writeString(exp, "name: cliexp\ncluster: { datacenters: 1, partitions: 1, storage: memory }\n"
        + "protocols: [eventual]\nduration: 1s\n");
    Cli noHosts = kvlab("bench", exp.toString(), "--backend", "ssh");
    assertEquals(org.kvlab.cli.Main.USAGE, noHosts.code(), noHosts.out() + noHosts.err());
    assertTrue(noHosts.err().contains("--backend ssh needs --hosts FILE. Fix:"), noHosts.err());
    Cli wrong = kvlab("bench", exp.toString(), "--backend", "gcp");
    assertEquals(org.kvlab.cli.Main.USAGE, wrong.code(), wrong.err());
    assertTrue(wrong.err().contains("is not a backend. Fix:"), wrong.err());
  }
}
