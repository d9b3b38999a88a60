package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kvlab.cli.InProcessCli.Run;

/**
 * Goal: {@code kvlab bench} refuses a command-line option out of its range or misspelt (issue 28 item 4) before it
 * reads the experiment or starts anything, naming the option, its range or the nearest name, and the fix. Method: the
 * CLI in this JVM with a valid experiment file and {@code --dry-run}, so a refusal is the options' alone.
 */
class BenchOptionsTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(delimiter = '|', value = {
      "--base-port | -1     | --base-port -1: out of range. Fix: give a port from 1024 to 60,000",
      "--base-port | 0      | --base-port 0: out of range. Fix: give a port from 1024 to 60,000",
      "--base-port | 70000  | --base-port 70000: out of range. Fix: give a port from 1024 to 60,000",
      "--backend   | lcoal  | --backend lcoal is not a backend. Fix: did you mean 'local'?",
      "--backend   | ec3    | --backend ec3 is not a backend. Fix: did you mean 'ec2'?",
      "--backend   | azure  | --backend azure is not a backend. Fix: write --backend local",
  })
  void when_anOptionIsOutOfRangeOrMisspelt_then_benchRefusesItBeforeAnything(String option, String value,
      String message) throws Exception {
    Path exp = dir.resolve("e.yaml");
    Files.writeString(exp, "name: e\ncluster: { datacenters: 1, partitions: 1, storage: memory }\n"
        + "protocols: [eventual]\nduration: 1s\n");
    Run r = InProcessCli.run("bench", exp.toString(), "--dry-run", option, value);
    assertEquals(Main.USAGE, r.code(), r.out() + r.err());
    assertTrue(r.err().contains(message), r.err());
    assertEquals("", r.out(), "no run listed");
  }
}
