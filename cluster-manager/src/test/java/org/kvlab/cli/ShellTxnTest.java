package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import org.kvlab.api.TxnRequest;
import org.kvlab.config.ClusterConfig;
import org.kvlab.history.History;
import org.kvlab.history.HistoryFiles;
import org.kvlab.protocols.camu.Camu;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.testing.TestClusters;

/** The shell's {@code txn} command: parsing, and a real-runtime CaMu cluster on loopback driven by a script. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShellTxnTest {

  @Test
  void when_txnWordsAreParsed_then_readsWritesAndProceduresAreRecognisedAndBadInputNamesTheFix() {
    TxnRequest t = ShellCommand.parseTxn(List.of("r", "a", "b", "w", "c=1", "d=x=y"));
    assertEquals(List.of("a", "b"), t.reads());
    assertEquals("1", t.writes().get("c").toStringUtf8());
    assertEquals("x=y", t.writes().get("d").toStringUtf8());
    TxnRequest p = ShellCommand.parseTxn(List.of("add", "5", "a", "b"));
    assertEquals("add", p.procedure());
    assertEquals(List.of("5"), p.args());
    assertEquals(List.of("a", "b"), p.reads());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ShellCommand.parseTxn(List.of("a")))
        .getMessage().contains("read (r) or write (w)"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ShellCommand.parseTxn(List.of("w", "a")))
        .getMessage().contains("<key>=<value>"));
    assertThrows(IllegalArgumentException.class, () -> ShellCommand.parseTxn(List.of("add", "x", "a")));
    assertThrows(IllegalArgumentException.class, () -> ShellCommand.parseTxn(List.of()));
  }

  @Test
  void when_aShellScriptRunsTransactionsOnCamu_then_theyApplyAtomicallyAndTheHistoryPassesTheTxnChecker(
      @TempDir Path dir) throws Exception {
    Path file = dir.resolve("camu-shell.yaml");
    Files.writeString(file, """
        name: camu-shell
        protocol: camu
        datacenters: 1
        partitions: 3
        params: { mode: camu, round: 5ms, pbPartners: 1 }
        local: { basePort: %d }
        storage: { engine: memory }
        """.formatted(TestClusters.freeBasePort(3)));
    ClusterConfig config = ClusterConfig.load(file);
    Path history = dir.resolve("run.jsonl");
    String script = String.join("\n", "txn w x=1 y=2 z=3", "txn add 10 x y z", "txn r x y z", "txn r x w",
        "txn w q", "quit", "");
    String out;
    int code;
    try (LocalCluster cluster = LocalCluster.start(config, new Camu())) {
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
    assertEquals(Main.FAILED, code, "the malformed last command fails the script: " + out);
    assertTrue(out.contains("x = \"11\"") && out.contains("y = \"12\"") && out.contains("z = \"13\""), out);
    assertTrue(out.contains("a write is <key>=<value>, got 'q'") && out.contains("usage: txn"), out);
    History h = HistoryFiles.read(history);
    assertEquals(4, h.size(), out);
    assertEquals(Main.OK, Main.run("check", history.toString(), "--check", "txn"));
  }
}
