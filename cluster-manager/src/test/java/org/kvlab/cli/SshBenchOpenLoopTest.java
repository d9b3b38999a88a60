package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.cluster.ssh.SshTestHosts;

/**
 * {@code kvlab bench --backend ssh --hosts FILE} runs an open-loop sweep on SSH hosts: the server on one host, the
 * load generator on the client host the hosts file names (not on this machine), every rate's point in
 * openloop.json with requests delivered, the generator's files collected back, and nothing left running on the
 * hosts. Real sshd hosts in network namespaces (or on 127.0.0.x), as in SshBenchTest.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class SshBenchOpenLoopTest {
  @TempDir static Path tmp;
  static SshTestHosts hosts;

  @BeforeAll
  static void startHosts() throws Exception {
    hosts = SshTestHosts.start(tmp.resolve("hosts"), 2, 0);
  }

  @AfterAll
  static void stopHosts() {
    if (hosts != null) {
      hosts.close();
    }
  }

  /** The hosts file: datacenter 0's server on the first host, its clients on the second. */
  private static Path hostsFile() throws Exception {
    Path hostsFile = tmp.resolve("hosts.yaml");
    Files.writeString(hostsFile, hosts.sshSection(tmp.resolve("remote"))
        + "basePort: " + org.kvlab.runtime.LoopbackPorts.freeBlock(1) + "\n"
        + "datacenters:\n"
        + "  - { servers: [" + hosts.hosts.get(0).address() + "], clients: [" + hosts.hosts.get(1).address() + "] }\n");
    return hostsFile;
  }

  /** The open-loop experiment: one Eventual server, two low rates of 1 s. */
  private static Path experiment() throws Exception {
    Files.writeString(tmp.resolve("ol-ssh-eventual-1.yaml"), "name: ol-ssh-eventual-1\nprotocol: eventual\n"
        + "datacenters: 1\npartitions: 1\n"
        + "servers:\n  - { id: 0_0, host: 127.0.0.1, port: " + org.kvlab.runtime.LoopbackPorts.freeBlock(1) + " }\n"
        + "storage: { engine: memory, durability: none }\n"
        + "security: { secretFile: '" + tmp.resolve("ol-ssh.secret") + "' }\n");
    Path file = tmp.resolve("ol-ssh.yaml");
    Files.writeString(file, """
        mode: open-loop
        name: ol-ssh
        clusters: [ol-ssh-eventual-1.yaml]
        jvm: -Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1
        rates: [100, 200]
        warmup: 0s
        duration: 1s
        p99bound: 500ms
        sessions: 2
        records: 20
        """);
    return file;
  }

  @Test
  void the_backend_options_of_an_open_loop_experiment_are_checked_before_anything_starts() throws Exception {
    Path file = experiment();
    InProcessCli.Run dry = InProcessCli.run("bench", file.toString(), "--backend", "ssh", "--hosts",
        hostsFile().toString(), "--dry-run");
    assertEquals(Main.OK, dry.code(), dry.out() + dry.err());
    assertTrue(dry.out().contains("offered 100 ops/s for PT1S after PT0S (ssh)"), dry.out());
    InProcessCli.Run noHosts = InProcessCli.run("bench", file.toString(), "--backend", "ssh", "--dry-run");
    assertEquals(Main.USAGE, noHosts.code());
    assertTrue(noHosts.err().contains("--backend ssh needs --hosts FILE. Fix:"), noHosts.err());
    InProcessCli.Run unknown = InProcessCli.run("bench", file.toString(), "--backend", "ftp");
    assertEquals(Main.USAGE, unknown.code());
    assertTrue(unknown.err().contains("--backend ftp is not a backend. Fix:"), unknown.err());
  }

  @Test
  void an_open_loop_sweep_runs_on_ssh_hosts_with_the_load_generator_on_the_client_host() throws Exception {
    String server = hosts.hosts.get(0).address();
    String client = hosts.hosts.get(1).address();
    Path file = experiment();
    Path hostsFile = hostsFile();
    InProcessCli.Run run = InProcessCli.run("bench", file.toString(), "--backend", "ssh", "--hosts",
        hostsFile.toString(), "--output", tmp.resolve("results").toString());
    assertEquals(Main.OK, run.code(), run.out() + run.err());
    assertTrue(run.out().contains("open loop: load generator for ol-ssh-eventual-1 on " + client), run.out());
    assertTrue(run.out().contains("warning: the servers on the ssh backend's hosts are not collected"), run.out());

    Path dir;
    try (Stream<Path> s = Files.list(tmp.resolve("results").resolve("ol-ssh"))) {
      dir = s.filter(Files::isDirectory).filter(p -> !p.getFileName().toString().equals("latest")).findFirst().orElseThrow();
    }
    JsonNode json = JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build()
        .readTree(dir.resolve("openloop.json").toFile());
    assertEquals("ok", json.path("status").asText(), json.toString());
    assertEquals("ssh", json.path("backend").asText());
    assertEquals(client, json.path("generatorHosts").path("ol-ssh-eventual-1").asText(), json.toString());
    List<Double> rates = new ArrayList<>();
    for (JsonNode p : json.path("points")) {
      rates.add(p.path("targetRate").asDouble());
      assertTrue(p.path("measured").asLong() > 0, "requests delivered at " + p);
      assertEquals(0, p.path("errors").asLong(), p.toString());
      assertTrue(p.path("achievedOpsPerSec").asDouble() > 0, p.toString());
      // the server's pauses come from its log fetched from its host after each rate
      assertTrue(p.path("serverPauses").isObject(), "server pauses read from the fetched log: " + p);
    }
    assertEquals(List.of(100.0, 200.0), rates);

    // The generator's files came back from the client host, and it ran there: its network namespace's address.
    Path gen = dir.resolve("generator-ol-ssh-eventual-1");
    assertEquals(2, Files.readAllLines(gen.resolve("points.jsonl")).size());
    assertTrue(Files.size(gen.resolve("rate-0.hdr")) > 0 && Files.size(gen.resolve("rate-1.hdr")) > 0);
    String host = Files.readString(gen.resolve("host.txt"));
    if (hosts.mode.equals("netns")) {
      assertTrue(host.contains(" " + client), host);
      assertTrue(!host.contains(" " + server + " ") && !host.strip().endsWith(" " + server), host);
    }
    assertTrue(Files.readString(gen.resolve("command.txt")).contains("org.kvlab.openloop.OpenLoopClient"));
    assertTrue(Files.exists(dir.resolve("logs-ol-ssh-eventual-1").resolve("0_0.log")), "server log fetched");
    assertTrue(Files.readString(dir.resolve("cluster-ol-ssh-eventual-1.yaml")).contains("host: " + server));

    // Nothing left running in the hosts' namespaces.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    List<Long> stray = hosts.strayProcesses();
    while (!stray.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(200);
      stray = hosts.strayProcesses();
    }
    assertEquals(List.of(), stray, "processes left in the hosts' namespaces (" + hosts.mode + " mode)");
  }
}
