package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.runtime.LoopbackPorts;

/**
 * What a new user does first (issue 14): in a copy of this checkout, {@code ./kvlab new-protocol demo}, then
 * the generated module's own tests under Maven, then the protocol in the simulator and on a local cluster
 * through {@code ./kvlab} (which builds the copy: a real, unchanged build of the generated module).
 * Everything runs as child processes in the copy; the cluster is stopped with {@code local down} and any
 * process still alive at the end is killed by PID.
 */
class NewProtocolEndToEndTest {
  private static final Path REPO = Path.of("..").toAbsolutePath().normalize();

  @TempDir Path tmp;
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void stopEverything() {
    for (Process p : started) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }

  /** The checkout's tracked and not-ignored files, without build output: what a fresh clone holds. */
  private Path copyOfCheckout() throws Exception {
    Path copy = Files.createDirectories(tmp.resolve("kvlab"));
    Process ls = new ProcessBuilder("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
        .directory(REPO.toFile()).redirectErrorStream(false).start();
    byte[] out = ls.getInputStream().readAllBytes();
    assertTrue(ls.waitFor(60, TimeUnit.SECONDS) && ls.exitValue() == 0, "git ls-files failed in " + REPO);
    for (String name : new String(out, StandardCharsets.UTF_8).split("\0")) {
      if (name.isEmpty()) {
        continue;
      }
      Path from = REPO.resolve(name);
      if (!Files.isRegularFile(from)) {
        continue; // deleted in the working tree
      }
      Path to = copy.resolve(name);
      Files.createDirectories(to.getParent());
      Files.copy(from, to);
      if (Files.isExecutable(from)) {
        to.toFile().setExecutable(true);
      }
    }
    return copy;
  }

  private record Run(int code, String output) {}

  private Run run(Path dir, String log, int timeoutMinutes, String stdin, String... cmd) throws Exception {
    Path logFile = tmp.resolve(log);
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(logFile.toFile());
    pb.environment().put("KVLAB_JAVA_OPTS", "-XX:+UseSerialGC -Xmx512m -XX:TieredStopAtLevel=1");
    Process p = pb.start();
    started.add(p);
    if (stdin != null) {
      p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
    }
    p.getOutputStream().close();
    boolean done = p.waitFor(timeoutMinutes, TimeUnit.MINUTES);
    String output = Files.readString(logFile);
    assertTrue(done, String.join(" ", cmd) + " did not finish in " + timeoutMinutes + " min:\n" + tail(output));
    return new Run(p.exitValue(), output);
  }

  /** The names of the surefire reports of {@code module}, sorted; empty if it ran no test. */
  private static List<String> reports(Path copy, String module) throws Exception {
    Path dir = copy.resolve(module).resolve("target/surefire-reports");
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("TEST-")).sorted().toList();
    }
  }

  private static String tail(String s) {
    return s.length() <= 6000 ? s : "..." + s.substring(s.length() - 6000);
  }

  @Test
  @Timeout(value = 25, unit = TimeUnit.MINUTES)
  void when_aProtocolIsGenerated_then_itBuildsPassesItsTestsAndRunsInTheSimulatorAndOnALocalCluster() throws Exception {
    Path copy = copyOfCheckout();

    Run created = run(copy, "new.log", 5, null, "./kvlab", "new-protocol", "demo");
    assertEquals(Main.OK, created.code(), created.output());
    assertTrue(Files.isRegularFile(copy.resolve("protocols/demo/src/main/java/org/kvlab/protocols/demo/DemoServer.java")),
        created.output());

    // the generated module's own tests (simulator with checkers, determinism rule), and only those: the command
    // new-protocol prints, online as in a fresh clone
    List<String> printed = NewProtocolCommand.testCommand("demo");
    assertTrue(created.output().contains("next: " + String.join(" ", printed).replace("-Dtest=org.kvlab.protocols.demo.**",
        "-Dtest='org.kvlab.protocols.demo.**'")), created.output());
    List<String> mvn = new ArrayList<>(List.of("mvn", "-B", "-ntp"));
    mvn.addAll(printed.subList(1, printed.size()));
    Run tests = run(copy, "mvn-test.log", 15, null, mvn.toArray(String[]::new));
    assertEquals(0, tests.code(), tail(tests.output()));
    assertEquals(List.of("TEST-org.kvlab.protocols.demo.DemoSimTest.xml",
        "TEST-org.kvlab.protocols.demo.DeterminismRuleTest.xml"), reports(copy, "protocols/demo"));
    for (String dependency : List.of("framework", "simulator")) { // built by -am, their suites not run
      assertEquals(List.of(), reports(copy, dependency), dependency + " ran tests");
    }

    // a protocol whose every operation waits one WAN round trip (the client asks the other datacenter) still does
    // the work the generated simulator test asks for
    Path client = copy.resolve("protocols/demo/src/main/java/org/kvlab/protocols/demo/DemoClient.java");
    String remote = Files.readString(client).replace("call(serverFor(key)",
        "call(org.kvlab.api.NodeId.of(1 - dc(), serverFor(key).partition())");
    assertTrue(remote.contains("1 - dc()"), remote);
    Files.writeString(client, remote);
    Run wan = run(copy, "mvn-test-wan.log", 15, null, "mvn", "-B", "-ntp", "-o", "-pl", "protocols/demo", "-am", "test",
        "-Dtest=org.kvlab.protocols.demo.DemoSimTest", "-Dsurefire.failIfNoSpecifiedTests=false");
    assertEquals(0, wan.code(), tail(wan.output()));
    Files.writeString(client, Files.readString(client).replace("org.kvlab.api.NodeId.of(1 - dc(), serverFor(key).partition())",
        "serverFor(key)"));

    Run protocols = run(copy, "protocols.log", 10, null, "./kvlab", "protocols");
    assertEquals(Main.OK, protocols.code(), tail(protocols.output()));
    assertTrue(protocols.output().lines().anyMatch(l -> l.startsWith("demo ")), protocols.output());

    Run sim = run(copy, "sim.log", 5, null, "./kvlab", "sim", "--protocol", "demo", "--seeds", "1..10",
        "--faults", "partition,crash", "--check", "convergence");
    assertEquals(Main.OK, sim.code(), tail(sim.output()));

    // the generated cluster file, on free ports (two checkouts on one machine must not collide)
    int base = LoopbackPorts.freeBlock(4);
    String cluster = Files.readString(copy.resolve("protocols/demo/cluster.yaml"));
    for (int i = 0; i < 4; i++) {
      cluster = cluster.replace("port: " + (7300 + i) + " ", "port: " + (base + i) + " ");
    }
    Path file = copy.resolve("demo-cluster.yaml");
    Files.writeString(file, cluster);
    assertTrue(cluster.contains("port: " + base + " "), cluster);

    Run up = run(copy, "up.log", 3, null, "./kvlab", "local", "up", file.toString(), "--wait", "90s");
    try {
      assertEquals(Main.OK, up.code(), tail(up.output()));
      Run shell = run(copy, "shell.log", 2, "put user:1 alice\nget user:1\n", "./kvlab", "shell", file.toString(),
          "--dc", "0");
      assertEquals(Main.OK, shell.code(), shell.output());
      assertTrue(shell.output().contains("alice"), shell.output());
    } finally {
      Run down = run(copy, "down.log", 2, null, "./kvlab", "local", "down", file.toString(), "--wipe");
      assertEquals(Main.OK, down.code(), down.output());
    }
  }
}
