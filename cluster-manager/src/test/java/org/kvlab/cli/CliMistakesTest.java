package org.kvlab.cli;

import org.kvlab.cli.InProcessCli.Run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Goal: the mistakes a newcomer makes typing the README's commands get an error that names the cause and the fix:
 * a misspelt cluster or experiment file name (did you mean the file beside it), a misspelt protocol in a cluster
 * file (at its line and column) or in {@code kvlab sim}, {@code kvlab check} of a history not recorded yet.
 * Method: the commands in this JVM ({@code Main.run}); each is refused before it starts anything.
 */
class CliMistakesTest {
  static final Path REPO = Path.of("..").toAbsolutePath().normalize();

  @TempDir Path dir;

  private static Run kvlab(String... args) {
    return InProcessCli.run(args);
  }

  @Test
  void when_aFileNameIsMisspelt_then_theErrorSuggestsTheFileBesideIt() {
    Path typo = REPO.resolve("examples/eventual-2dc3p.yaml");
    Run up = kvlab("local", "up", typo.toString());
    assertEquals(Main.USAGE, up.code());
    assertTrue(up.err().contains("kvlab: cluster file " + typo + " does not exist. Fix: did you mean "
        + REPO.resolve("examples/eventual-2dc-3p.yaml") + "? (examples are in examples/"), up.err());

    Path yml = REPO.resolve("experiments/smoke.yml");
    Run bench = kvlab("bench", yml.toString(), "--dry-run");
    assertEquals(Main.USAGE, bench.code());
    assertTrue(bench.err().contains("kvlab: experiment file " + yml + " does not exist. Fix: did you mean "
        + REPO.resolve("experiments/smoke.yaml") + "?"), bench.err());

    // nothing near: the path is to be checked
    Run far = kvlab("shell", REPO.resolve("examples/nothing-like-it.yaml").toString());
    assertEquals(Main.USAGE, far.code());
    assertTrue(far.err().contains("does not exist. Fix: check the path (examples are in examples/"), far.err());
  }

  @Test
  void when_aProtocolIsMisspelt_then_theErrorSaysWhereAndSuggestsTheInstalledOne() throws Exception {
    Path file = dir.resolve("c.yaml");
    String err = refusedUp(file, "protocol:   gentleran");
    assertTrue(err.contains("kvlab: " + file + ":2:13: protocol: 'gentleran' is not an installed protocol. Fix:"
        + " did you mean 'gentlerain'? The installed protocols are "), err);
    assertTrue(err.contains("eventual") && err.contains("(./kvlab protocols lists them"), err);
    // a name in another case is refused too (servers and tools match names exactly: issue 28 item 2)
    err = refusedUp(file, "protocol: Eventual");
    assertTrue(err.contains("kvlab: " + file + ":2:11: protocol: 'Eventual' is not an installed protocol."
        + " Fix: did you mean 'eventual'?"), err);

    Run sim = kvlab("sim", "--protocol", "evntual", "--seeds", "1");
    assertEquals(Main.USAGE, sim.code());
    assertTrue(sim.err().contains("kvlab: --protocol: 'evntual' is not an installed protocol. Fix: did you mean"
        + " 'eventual'?"), sim.err());
  }

  /** {@code local up} of a cluster file whose line 2 is {@code protocolLine}: refused with exit 2; its stderr. */
  private String refusedUp(Path file, String protocolLine) throws Exception {
    Files.writeString(file, "name: cli-mistake\n" + protocolLine + "\ndatacenters: 1\npartitions: 1\n"
        + "local: { basePort: 7100 }\n");
    Run up = kvlab("local", "up", file.toString());
    assertEquals(Main.USAGE, up.code(), up.out() + up.err());
    assertFalse(Files.exists(Path.of(".kvlab/local/cli-mistake")), "nothing was started");
    return up.err();
  }

  @Test
  void when_checkIsGivenAHistoryNotRecordedYet_then_itSaysHowToRecordOne() {
    Path missing = dir.resolve("run.jsonl");
    Run check = kvlab("check", missing.toString(), "--check", "causal,session");
    assertEquals(Main.USAGE, check.code());
    assertTrue(check.err().contains("history file " + missing + " does not exist. Fix: check the path, or record a"
        + " history first: ./kvlab shell <cluster.yaml> --history " + missing), check.err());
  }
}
