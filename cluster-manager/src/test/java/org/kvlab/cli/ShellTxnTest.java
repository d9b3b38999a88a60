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
    TxnRequest append = ShellCommand.parseTxn(List.of("append", "7", "x", "y", "r", "z"));
    assertEquals(List.of("x", "y", "z"), append.reads());
    assertEquals(List.of("7", "x", "y"), append.args());
    TxnRequest transfer = ShellCommand.parseTxn(List.of("transfer", "3", "a", "b"));
    assertEquals(List.of("3", "a", "b"), transfer.args());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ShellCommand.parseTxn(List.of("append", "e", "x")))
        .getMessage().contains("the first argument must be a whole number"));
  }

  /** What a shell script did on a real 1 x 3 CaMu cluster on loopback: exit code, output, recorded history file. */
  private record Ran(int code, String out, Path history) {}

  private static Ran shellOnCamu(Path dir, String... commands) throws Exception {
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
    String script = String.join("\n", commands) + "\n";
    try (LocalCluster cluster = LocalCluster.start(config, new Camu())) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)));
      InputStream stdin = System.in;
      PrintStream stdout = System.out;
      ByteArrayOutputStream captured = new ByteArrayOutputStream();
      try {
        System.setIn(new ByteArrayInputStream(script.getBytes(StandardCharsets.UTF_8)));
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        int code = Main.run("shell", file.toString(), "--history", history.toString());
        return new Ran(code, captured.toString(StandardCharsets.UTF_8), history);
      } finally {
        System.setIn(stdin);
        System.setOut(stdout);
      }
    }
  }

  @Test
  void when_aShellScriptRunsTransactionsOnCamu_then_theyApplyAtomicallyAndTheHistoryPassesTheTxnChecker(
      @TempDir Path dir) throws Exception {
    Ran r = shellOnCamu(dir, "txn w x=1 y=2 z=3", "txn add 10 x y z", "txn r x y z", "txn r x w", "txn w q", "quit");
    String out = r.out();
    assertEquals(Main.FAILED, r.code(), "the malformed last command fails the script: " + out);
    assertTrue(out.contains("x = \"11\"") && out.contains("y = \"12\"") && out.contains("z = \"13\""), out);
    assertTrue(out.contains("a write is <key>=<value>, got 'q'") && out.contains("usage: txn"), out);
    History h = HistoryFiles.read(r.history());
    assertEquals(4, h.size(), out);
    assertEquals(Main.OK, Main.run("check", r.history().toString(), "--check", "txn"));
  }

  @Test
  void when_aShellScriptAppendsToListsOnCamu_then_theHistoryIsStrictlySerializableByTheBlackBoxChecker(
      @TempDir Path dir) throws Exception {
    Ran r = shellOnCamu(dir, "txn append 1 x y", "txn append 2 y r x", "txn append 3 x z", "txn r x y z", "quit");
    assertEquals(Main.OK, r.code(), r.out());
    assertTrue(r.out().contains("x = \"1 3\"") && r.out().contains("y = \"1 2\"") && r.out().contains("z = \"3\""),
        r.out());
    assertEquals(4, HistoryFiles.read(r.history()).size());
    assertEquals(Main.OK, Main.run("check", r.history().toString(), "--check", "serializable,strict-serializable"));
  }
}
