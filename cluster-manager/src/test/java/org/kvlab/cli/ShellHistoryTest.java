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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.config.ClusterConfig;
import org.kvlab.history.History;
import org.kvlab.history.HistoryFiles;
import org.kvlab.history.Operation;
import org.kvlab.protocols.causalspartanx.CausalSpartanX;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.testing.TestClusters;

/**
 * The by-hand real-runtime check of docs/protocols.md: one {@code kvlab shell} process with sessions in both
 * datacenters ({@code dc <n>}), waiting with {@code sleep}, records one history that {@code kvlab check} accepts.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShellHistoryTest {

  @Test
  void when_aShellScriptSwitchesDatacenters_then_oneHistoryHoldsBothSessionsAndPassesTheCheckers(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("shell-test.yaml");
    Files.writeString(file, """
        name: shell-test
        protocol: causalspartanx
        datacenters: 2
        partitions: 2
        local: { basePort: %d }
        storage: { engine: memory }
        """.formatted(TestClusters.freeBasePort(4)));
    ClusterConfig config = ClusterConfig.load(file);
    Path history = dir.resolve("run.jsonl");
    String script = String.join("\n", "put x a1", "put y a2", "dc 1", "sleep 1s", "rotx x y", "put x b1",
        "dc 0", "sleep 1s", "get x", "rotx x y", "dc 1", "get x", "get y", "quit", "");
    String out;
    int code;
    try (LocalCluster cluster = LocalCluster.start(config, new CausalSpartanX())) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)));
      InputStream stdin = System.in;
      PrintStream stdout = System.out;
      ByteArrayOutputStream captured = new ByteArrayOutputStream();
      try {
        System.setIn(new ByteArrayInputStream(script.getBytes(StandardCharsets.UTF_8)));
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        code = Main.run("shell", file.toString(), "--history", history.toString());
      } finally {
        System.setIn(stdin);
        System.setOut(stdout);
      }
      out = captured.toString(StandardCharsets.UTF_8);
    }
    assertEquals(Main.OK, code, out);
    History h = HistoryFiles.read(history);
    assertEquals(8, h.size(), out);
    assertEquals(2, h.operations().stream().map(Operation::session).distinct().count(), "one session per datacenter");
    Operation dc1Rotx = h.operations().get(2);
    assertEquals(1, dc1Rotx.dc());
    assertEquals("a1", dc1Rotx.reads().get("x").orElseThrow().toStringUtf8(), "dc 1 sees dc 0's write: " + out);
    assertEquals("b1", h.operations().get(4).readValue().orElseThrow().toStringUtf8(), "dc 0 sees dc 1's write: " + out);
    assertEquals(Main.OK, Main.run("check", history.toString(), "--check", "causal,session,convergence,rotx"));
  }
}
