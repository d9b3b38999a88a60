package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.TxnRequest;
import org.kvlab.cli.InProcessCli.Run;
import org.kvlab.history.History;
import org.kvlab.history.HistoryFiles;
import org.kvlab.history.Operation;

/** {@code kvlab advise-placement}: a trace with planted groups is placed far better than by hash; bad input names the fix. */
class AdvisePlacementCommandTest {
  @TempDir Path tmp;

  /** 3 groups of 30 keys; each transaction touches 2 keys of one group. */
  private static List<List<String>> planted() {
    Random r = new Random(3);
    List<List<String>> t = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      int g = r.nextInt(3);
      t.add(List.of("g" + g + "-" + r.nextInt(30), "g" + g + "-" + (30 + r.nextInt(30))));
    }
    return t;
  }

  private static double share(String out, String row) {
    String line = out.lines().filter(l -> l.startsWith(row)).findFirst().orElseThrow(() -> new AssertionError(out));
    return Double.parseDouble(line.replaceAll(".*?(\\d+\\.\\d)%.*", "$1"));
  }

  @Test
  void aPlainTrace_isPlacedWithFewMultiPartitionTransactions_andTheMapIsWritten() throws Exception {
    Path trace = tmp.resolve("trace.txt");
    List<String> lines = new ArrayList<>(List.of("# one transaction per line"));
    planted().forEach(t -> lines.add(String.join(" ", t)));
    Files.write(trace, lines);
    Path map = tmp.resolve("map.tsv");
    Run r = InProcessCli.run("advise-placement", trace.toString(), "--parts", "3", "--partitioner", "greedy", "--output",
        map.toString());
    assertEquals(Main.OK, r.code(), r.err());
    assertTrue(r.out().contains("2000 transactions over 180 keys"), r.out());
    assertTrue(share(r.out(), "hash") > 50, r.out());
    assertTrue(share(r.out(), "greedy") < 5, r.out());
    List<String> placed = Files.readAllLines(map);
    assertEquals(180, placed.size());
    assertTrue(placed.stream().allMatch(l -> l.matches("g\\d-\\d+\t[0-2]")), placed.toString());
  }

  @Test
  void aKvlabHistory_isReadAsItsTransactionsAndSingleKeyOperations_withMetis() throws Exception {
    List<Operation> ops = new ArrayList<>();
    long id = 0;
    for (List<String> t : planted()) {
      ops.add(new Operation(id++, 0, 0, Operation.Type.TXN, null, null, null, id, id + 1,
          Operation.Outcome.INFO, "timeout", new Operation.Txn(TxnRequest.of(t, Map.of()), null)));
    }
    ops.add(new Operation(id++, 0, 0, Operation.Type.GET, "lonely", null, null, id, id + 1,
        Operation.Outcome.INFO, "timeout"));
    Path history = tmp.resolve("history.jsonl");
    HistoryFiles.write(new History(ops), history);
    Run r = InProcessCli.run("advise-placement", history.toString(), "--parts", "3", "--partitioner", "metis");
    assertEquals(Main.OK, r.code(), r.err() + r.out());
    assertTrue(r.out().contains("2001 transactions over 181 keys"), r.out());
    assertTrue(share(r.out(), "metis") < 5, r.out());
  }

  @Test
  void badInput_namesTheCauseAndTheFix() throws Exception {
    Run missing = InProcessCli.run("advise-placement", tmp.resolve("nope").toString(), "--parts", "2");
    assertEquals(Main.USAGE, missing.code());
    assertTrue(missing.err().contains("does not exist. Fix:"), missing.err());
    Path empty = Files.writeString(tmp.resolve("empty.txt"), "# nothing\n");
    Run none = InProcessCli.run("advise-placement", empty.toString(), "--parts", "2");
    assertEquals(Main.USAGE, none.code());
    assertTrue(none.err().contains("holds no transaction. Fix:"), none.err());
    Run parts = InProcessCli.run("advise-placement", empty.toString(), "--parts", "0");
    assertEquals(Main.USAGE, parts.code());
    assertTrue(parts.err().contains("Fix: give 1 to 4096"), parts.err());
    Run which = InProcessCli.run("advise-placement", empty.toString(), "--parts", "2", "--partitioner", "kl");
    assertEquals(Main.USAGE, which.code());
    assertTrue(which.err().contains("Fix: use one of [auto, metis, greedy]"), which.err());
  }
}
