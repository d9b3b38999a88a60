package org.kvlab.cluster.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.Protocols;
import org.kvlab.config.ClusterConfig;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LoopbackPorts;

/**
 * A 2 datacenter x 3 partition cluster on two real SSH hosts (one datacenter each; separate network
 * namespaces when available): deploy, deploy again (nothing uploaded), start under PID files, answer a
 * client, stop by PID, nothing left running.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class SshClusterTest {
  @TempDir static Path tmp;
  static SshTestHosts hosts;
  static Distribution dist;

  @BeforeAll
  static void startHosts() throws Exception {
    hosts = SshTestHosts.start(tmp.resolve("hosts"), 2, 0);
    dist = Distribution.fromClassPath(System.getProperty("java.class.path"), tmp.resolve("dist"));
  }

  @AfterAll
  static void stopHosts() {
    if (hosts != null) {
      hosts.close();
    }
  }

  private static Path clusterFile(String name, int dcs, int partitions, List<String> serverHosts, String extraSsh)
      throws Exception {
    int base = LoopbackPorts.freeBlock(dcs * partitions);
    StringBuilder y = new StringBuilder("name: " + name + "\nprotocol: eventual\ndatacenters: " + dcs
        + "\npartitions: " + partitions + "\nservers:\n");
    int i = 0;
    for (int d = 0; d < dcs; d++) {
      for (int p = 0; p < partitions; p++, i++) {
        y.append("  - { id: ").append(d).append('_').append(p).append(", host: ").append(serverHosts.get(i))
            .append(", port: ").append(base + i).append(" }\n");
      }
    }
    y.append("storage: { engine: je, durability: none, dir: data }\n")
        .append("ssh:\n")
        .append("  user: ").append(hosts.user).append('\n')
        .append("  keyFile: ").append(hosts.key).append('\n')
        .append("  knownHosts: ").append(hosts.knownHosts).append('\n')
        .append("  port: ").append(hosts.hosts.get(0).port()).append('\n')
        .append("  dir: ").append(tmp.resolve("remote")).append("/{host}\n")
        .append("  jvmOptions: -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1\n")
        .append("  connectTimeout: 3s\n")
        .append(extraSsh);
    Path f = tmp.resolve(name + ".yaml");
    Files.writeString(f, y.toString());
    return f;
  }

  private static long count(List<SshEvent> events, SshEvent.Kind kind) {
    synchronized (events) {
      return events.stream().filter(e -> e.kind() == kind).count();
    }
  }

  @Test
  void deploys_once_starts_answers_and_stops_a_2x3_cluster_on_two_hosts() throws Exception {
    String h1 = hosts.hosts.get(0).address();
    String h2 = hosts.hosts.get(1).address();
    Path file = clusterFile("ssh-2x3", 2, 3, List.of(h1, h1, h1, h2, h2, h2), "");
    ClusterConfig config = ClusterConfig.load(file);
    List<SshEvent> events = Collections.synchronizedList(new ArrayList<>());
    SshCluster cluster = new SshCluster(file, config, SshSection.load(file), events::add);
    config.security().loadOrCreate(); // the cluster's secret (0600), which the servers and this test's tools prove
    Path secret = config.security().secretFile();

    SshCluster.Report deployed = cluster.deploy(dist, secret);
    assertTrue(deployed.ok(), deployed.failures().toString());
    assertEquals(2, count(events, SshEvent.Kind.UPLOADED), events.toString());
    assertEquals(2, count(events, SshEvent.Kind.JAVA_CHECKED), events.toString());
    assertEquals(2, count(events, SshEvent.Kind.SECRET_UPLOADED), events.toString());
    for (String h : List.of(h1, h2)) {
      Path cdir = tmp.resolve("remote").resolve(h).resolve("clusters/ssh-2x3");
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(cdir.resolve("secret/cluster.secret"))));
      assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(cdir.resolve("secret"))));
      assertEquals(Files.readString(file), Files.readString(cdir.resolve("cluster.yaml")));
    }
    synchronized (events) {
      assertTrue(events.stream().noneMatch(e -> e.toString().contains("not-a-real-secret")));
    }

    events.clear();
    SshCluster.Report again = cluster.deploy(dist, null);
    assertTrue(again.ok(), again.failures().toString());
    assertEquals(2, count(events, SshEvent.Kind.UPLOAD_SKIPPED), events.toString());
    assertEquals(0, count(events, SshEvent.Kind.UPLOADED), events.toString());

    events.clear();
    List<Long> pids = new ArrayList<>();
    try {
      SshCluster.Report started = cluster.start(Duration.ofSeconds(120));
      assertTrue(started.ok(), started.failures().toString() + "\n" + events);
      assertEquals(6, count(events, SshEvent.Kind.STARTED), events.toString());
      assertEquals(6, count(events, SshEvent.Kind.RUNNING), events.toString());

      List<SshCluster.NodeStatus> status = cluster.status(null);
      assertEquals(6, status.size());
      for (SshCluster.NodeStatus s : status) {
        assertTrue(s.running(), s.toString());
        assertTrue(s.status().isPresent(), s.toString());
        pids.add(s.pid());
        // the server runs on its host: in its namespace, with the host's address
        assertTrue(ProcessHandle.of(s.pid()).isPresent());
      }
      // Starting again starts nothing new.
      events.clear();
      assertTrue(cluster.start(Duration.ofSeconds(30)).ok());
      assertEquals(6, count(events, SshEvent.Kind.ALREADY_RUNNING), events.toString());

      // A client writes in datacenter 0 and reads it back there and, once replicated, in datacenter 1.
      try (ClientRuntime clients = new ClientRuntime(config, Protocols.byName("eventual"), 1)) {
        var dc0 = clients.openSession(0);
        dc0.put("user:1", ByteString.copyFromUtf8("alice"));
        assertEquals(Optional.of(ByteString.copyFromUtf8("alice")), dc0.get("user:1"));
        var dc1 = clients.openSession(1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Optional<ByteString> there = dc1.get("user:1");
        while (there.isEmpty() && System.nanoTime() < deadline) {
          Thread.sleep(100);
          there = dc1.get("user:1");
        }
        assertEquals(Optional.of(ByteString.copyFromUtf8("alice")), there);
      }

      Path logs = tmp.resolve("logs");
      assertTrue(cluster.fetchLogs(logs).ok());
      for (var s : config.servers()) {
        assertTrue(Files.exists(logs.resolve(s.id() + ".log")));
      }
    } finally {
      events.clear();
      SshCluster.Report stopped = cluster.stop(Duration.ofSeconds(20));
      assertTrue(stopped.ok(), stopped.failures().toString());
    }
    assertEquals(6, count(events, SshEvent.Kind.STOPPED), events.toString());
    for (long pid : pids) {
      // The stop waited until the process exited; the kernel removes it once its parent has reaped it.
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < until) {
        Thread.sleep(50);
      }
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "server pid " + pid + " still runs");
    }
    // Nothing left in the hosts' namespaces but their sshd (sessions end shortly after the connections close).
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    List<Long> stray = hosts.strayProcesses();
    while (!stray.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(100);
      stray = hosts.strayProcesses();
    }
    assertEquals(List.of(), stray);
    for (SshCluster.NodeStatus s : cluster.status(null)) {
      assertFalse(s.running(), s.toString());
      assertTrue(s.status().isEmpty(), s.toString());
    }
    // Stopping a stopped cluster is fine: every server is reported as not running.
    events.clear();
    assertTrue(cluster.stop(Duration.ofSeconds(5)).ok());
    assertEquals(6, count(events, SshEvent.Kind.NOT_RUNNING), events.toString());
  }

  @Test
  void a_failing_host_is_reported_with_cause_and_fix_while_the_others_carry_on() throws Exception {
    String h1 = hosts.hosts.get(0).address();
    String nobody = h1.substring(0, h1.lastIndexOf('.')) + ".250";
    Path file = clusterFile("ssh-partial", 1, 2, List.of(h1, nobody), "");
    List<SshEvent> events = Collections.synchronizedList(new ArrayList<>());
    SshCluster cluster = new SshCluster(file, ClusterConfig.load(file), SshSection.load(file), events::add);
    long t0 = System.nanoTime();
    SshCluster.Report r = cluster.deploy(dist, null);
    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(60));
    assertEquals(1, r.failures().size(), r.toString());
    assertEquals(nobody, r.failures().get(0).host());
    assertTrue(r.failures().get(0).error().getMessage().contains("Fix:"), r.toString());
    assertTrue(r.hosts().get(0).ok(), r.toString());
    assertEquals(1, count(events, SshEvent.Kind.FAILED), events.toString());
    assertTrue(Files.exists(tmp.resolve("remote").resolve(h1).resolve("clusters/ssh-partial/cluster.yaml")));
    // Stopping the half-deployed cluster works on the reachable host.
    SshCluster.Report stopped = cluster.stop(Duration.ofSeconds(5));
    assertTrue(stopped.hosts().get(0).ok(), stopped.toString());
  }

  @Test
  void a_host_without_java_17_is_refused_with_the_fix() throws Exception {
    Path oldJava = tmp.resolve("old-java");
    Files.writeString(oldJava, "#!/bin/sh\necho 'java version \"1.8.0_292\"' >&2\n");
    Files.setPosixFilePermissions(oldJava, PosixFilePermissions.fromString("rwxr-xr-x"));
    String h1 = hosts.hosts.get(0).address();
    for (String java : List.of(oldJava.toString(), tmp.resolve("no-such-java").toString())) {
      Path file = clusterFile("ssh-java", 1, 1, List.of(h1), "  java: " + java + "\n");
      List<SshEvent> events = Collections.synchronizedList(new ArrayList<>());
      SshCluster cluster = new SshCluster(file, ClusterConfig.load(file), SshSection.load(file), events::add);
      SshCluster.Report r = cluster.deploy(dist, null);
      assertEquals(1, r.failures().size());
      String msg = r.failures().get(0).error().getMessage();
      assertTrue(msg.contains(java.equals(oldJava.toString()) ? "Java 8 is too old" : "no Java on the host"), msg);
      assertTrue(msg.contains("Fix: install a JDK or JRE 17+"), msg);
      assertEquals(0, count(events, SshEvent.Kind.UPLOADED), "nothing uploaded to a host without Java");
    }
  }
}
