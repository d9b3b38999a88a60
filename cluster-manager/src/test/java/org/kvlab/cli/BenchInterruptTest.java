package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Goal: Ctrl-C stops {@code kvlab bench} cleanly: the client JVMs and the cluster it started are
 * stopped, results.json and report.html are written with the interrupted run marked, exit code 130.
 * Method: {@code kvlab bench} in a child JVM on an experiment of two runs whose run phase lasts 10 minutes, so
 * that no machine, however slow or loaded, finishes the first run before the signal: only SIGINT ends it. Once
 * the first run's client prints a YCSB status line in its run phase (the marker that the run phase is under
 * way; no fixed delay), the child gets SIGINT; its descendants (servers, clients) are noted before and must all
 * be gone after.
 */
@Timeout(value = 360, unit = TimeUnit.SECONDS)
class BenchInterruptTest {
  private Process bench;

  @AfterEach
  void stop() {
    if (bench != null) {
      bench.descendants().forEach(ProcessHandle::destroyForcibly);
      bench.destroyForcibly();
    }
  }

  @Test
  void when_benchGetsSigint_then_itStopsEverythingAndKeepsPartialResults(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("long.yaml");
    Files.writeString(file, """
        name: interrupted
        cluster: { datacenters: 1, partitions: 1, storage: memory }
        protocols: [eventual, gentlerain]
        workload: { fieldcount: 1, fieldlength: 16 }
        clients: { threads: 1 }
        recordcount: 100
        duration: 600s
        """);
    Path out = dir.resolve("results");
    List<String> cmd = List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx256m", "-XX:+UseSerialGC",
        "-cp", System.getProperty("java.class.path"), "org.kvlab.cli.Main", "bench", file.toString(),
        "--output", out.toString());
    bench = new ProcessBuilder(ServerProcesses.withDefaultSigint(cmd)).redirectErrorStream(true).redirectOutput(dir.resolve("bench.log").toFile()).start();

    // the marker: a YCSB status line ("... sec: N operations; ...") of the first run's run phase
    boolean running = false;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240); // bounds a broken start, not the behaviour
    while (System.nanoTime() < deadline && bench.isAlive() && !running) {
      Path stderr = find(out, "stderr.txt", "/runs/001-eventual-1/run/");
      running = stderr != null && Files.readString(stderr).contains(" sec: ");
      if (!running) {
        Thread.sleep(200);
      }
    }
    assertTrue(running, "the first run's run phase never started:\n" + Files.readString(dir.resolve("bench.log")));
    assertTrue(bench.isAlive(), "bench exited in a 10-minute run phase:\n" + Files.readString(dir.resolve("bench.log")));
    List<ProcessHandle> children = bench.descendants().toList();
    assertTrue(children.size() >= 2, "a server and a client JVM are running: " + children);

    new ProcessBuilder("kill", "-INT", Long.toString(bench.pid())).start().waitFor();
    assertTrue(bench.waitFor(60, TimeUnit.SECONDS), () -> "bench did not stop after SIGINT:\n" + read(dir.resolve("bench.log")));
    String log = Files.readString(dir.resolve("bench.log"));
    assertEquals(130, bench.exitValue(), log);
    for (ProcessHandle child : children) {
      child.onExit().get(15, TimeUnit.SECONDS);
      assertTrue(!child.isAlive(), "left running: " + child.info());
    }

    Path results = out.resolve("interrupted/latest/results.json");
    JsonNode r = new ObjectMapper().readTree(results.toFile());
    assertEquals("interrupted", r.get("status").asText());
    assertEquals(2, r.get("runsPlanned").asInt());
    assertEquals(1, r.get("runs").size(), "the second run never starts");
    assertEquals("interrupted", r.get("runs").get(0).get("status").asText());
    assertTrue(r.get("runs").get(0).get("reason").asText().contains("Ctrl-C"));
    assertTrue(Files.readString(out.resolve("interrupted/latest/report.html")).contains("interrupted"));
    assertTrue(log.contains("report: "), log);
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (java.io.IOException e) {
      return "(" + e + ")";
    }
  }

  private static Path find(Path root, String name, String within) throws Exception {
    if (!Files.isDirectory(root)) {
      return null;
    }
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(p -> p.getFileName().toString().equals(name) && p.toString().contains(within)).findFirst().orElse(null);
    }
  }
}
