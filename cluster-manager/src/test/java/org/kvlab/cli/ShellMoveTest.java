package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.config.ClusterConfig;
import org.kvlab.history.History;
import org.kvlab.history.HistoryFiles;
import org.kvlab.history.Operation;
import org.kvlab.protocols.nukv.NuKV;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.testing.TestClusters;

/**
 * The shell's {@code move <n>} (issue 15): one NuKV session writes in datacenter 0, moves to datacenter 1 and reads
 * its own write there at MR+RYW (its hwm went with it, so the read waits for the forwarded write), writes again and
 * moves back; the recorded history is one session whose operations went to both datacenters, and the session checker
 * accepts it. A move to a datacenter that does not exist is refused with the valid range and fails the script.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShellMoveTest {

  @Test
  void when_theShellMovesItsSession_then_itIsOneSessionAndItsGuaranteesGoWithIt(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("shell-move.yaml");
    Files.writeString(file, """
        name: shell-move
        protocol: nukv
        params: { electionTimeout: 300ms }
        datacenters: 2
        partitions: 1
        replicas: 3
        local: { basePort: %d }
        storage: { engine: memory }
        """.formatted(TestClusters.freeBasePort(6)));
    ClusterConfig config = ClusterConfig.load(file);
    Path history = dir.resolve("run.jsonl");
    try (LocalCluster cluster = LocalCluster.start(config, new NuKV())) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)));
      String[] ok = shell(file, List.of("put@mw+wfr x a1", "move 1", "get@mr+ryw x", "put@mw+wfr x b1", "move 0",
          "get@mr+ryw x", "quit"), "--history", history.toString());
      assertEquals(String.valueOf(Main.OK), ok[0], ok[1]);
      assertTrue(ok[1].contains("session moved to datacenter 1") && ok[1].contains("session moved to datacenter 0"),
          ok[1]);

      String[] bad = shell(file, List.of("move 7", "move", "quit"));
      assertEquals(String.valueOf(Main.FAILED), bad[0], bad[1]);
      assertTrue(bad[1].contains("datacenter 7 does not exist") && bad[1].contains("0..1"), bad[1]);
      assertTrue(bad[1].contains("usage: move <n>, n from 0 to 1"), bad[1]);
    }
    History h = HistoryFiles.read(history);
    List<Operation> ops = h.operations();
    assertEquals(4, ops.size());
    assertEquals(1, ops.stream().map(Operation::session).distinct().count(), "move keeps one session");
    assertEquals(List.of(0, 1, 1, 0), ops.stream().map(Operation::dc).toList());
    assertEquals("a1", ops.get(1).readValue().orElseThrow().toStringUtf8(), "read-your-writes after the move");
    assertEquals("b1", ops.get(3).readValue().orElseThrow().toStringUtf8(), "read-your-writes after moving back");
    assertEquals(Main.OK, Main.run("check", history.toString(), "--check", "session"));
  }

  /** Runs the shell on {@code lines} as standard input; returns its exit code and its output. */
  private static String[] shell(Path file, List<String> lines, String... extra) {
    InputStream stdin = System.in;
    PrintStream stdout = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    int code;
    try {
      System.setIn(new ByteArrayInputStream((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8)));
      System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
      String[] args = new String[2 + extra.length];
      args[0] = "shell";
      args[1] = file.toString();
      System.arraycopy(extra, 0, args, 2, extra.length);
      code = Main.run(args);
    } finally {
      System.setIn(stdin);
      System.setOut(stdout);
    }
    return new String[] {String.valueOf(code), captured.toString(StandardCharsets.UTF_8)};
  }
}
