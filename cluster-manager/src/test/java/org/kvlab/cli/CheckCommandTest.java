package org.kvlab.cli;

import org.kvlab.cli.InProcessCli.Run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/** {@code kvlab check} and {@code kvlab sim} option validation and verdict printing. */
class CheckCommandTest {
  @TempDir
  Path dir;

  private static Run run(String... args) {
    return InProcessCli.run(args);
  }

  private static String line(long id, int session, int dc, String rest, long invoke, long complete) {
    return "{\"id\":" + id + ",\"session\":" + session + ",\"dc\":" + dc + "," + rest + ",\"invokeMicros\":" + invoke
        + ",\"completeMicros\":" + complete + ",\"outcome\":\"OK\"}\n";
  }

  @Test
  void when_aCheckNameIsUnknown_then_checkRefusesItBeforeReadingOrChecking() {
    Run r = run("check", dir.resolve("missing.jsonl").toString(), "--check", "causal,convergance");
    assertEquals(Main.USAGE, r.code());
    assertTrue(r.err().contains("unknown checker 'convergance'") && r.err().contains("known: causal, session,"
        + " convergence, rotx, linearizable, txn"), r.err());
    assertEquals("", r.out(), "nothing ran");
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(delimiter = '|', value = {
      "--show  | -1           | from 0 to 100,000",
      "--show  | 1000000      | from 0 to 100,000",
      "--check | linearisable | did you mean 'linearizable'?",
      "--check | convergance  | did you mean 'convergence'?",
  })
  void when_anOptionIsOutOfRangeOrMisspelt_then_checkRefusesItBeforeReading(String option, String value, String fix)
      throws Exception {
    Path file = dir.resolve("h.jsonl");
    Files.writeString(file, line(0, 1, 0, "\"type\":\"PUT\",\"key\":\"x\",\"value\":\"a\"", 1, 10));
    Run r = run("check", file.toString(), option, value);
    assertEquals(Main.USAGE, r.code(), r.out() + r.err());
    assertTrue(r.err().contains(fix) && r.err().contains("Fix: "), r.err());
    assertEquals("", r.out(), "nothing checked");
  }

  @Test
  void when_noOperationEndedOk_then_checkSaysNoVerdictInsteadOfOk() throws Exception {
    Path file = dir.resolve("info.jsonl");
    Files.writeString(file, line(0, 1, 0, "\"type\":\"PUT\",\"key\":\"x\",\"value\":\"a\"", 1, 10)
        .replace("\"OK\"", "\"INFO\""));
    Run r = run("check", file.toString(), "--check", "causal,linearizable");
    assertEquals(Main.OK, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("1 operations (0 OK, 1 INFO, 0 FAIL)"), r.out());
    assertTrue(r.out().contains("causal        no verdict: nothing checked: no operation ended OK (0 OK, 1 INFO, 0 FAIL)")
        && r.out().contains("linearizable  no verdict: nothing checked"), r.out());
  }

  @Test
  void when_aCheckNameIsUnknown_then_simRefusesItBeforeAnySeedRuns() {
    Run r = run("sim", "--protocol", "eventual", "--seeds", "1", "--check", "convergence,causl");
    assertEquals(Main.USAGE, r.code());
    assertTrue(r.err().contains("unknown checker 'causl'") && r.err().contains("known: causal"), r.err());
    assertEquals("", r.out(), "no seed ran");
  }

  @Test
  void when_aSimParamIsNotDeclared_then_simRefusesItListingTheDeclaredOnes() {
    Run r = run("sim", "--protocol", "gentlerain", "--seeds", "1", "--param", "heartbeet=5ms");
    assertEquals(Main.USAGE, r.code());
    assertTrue(r.err().contains("--param heartbeet: not a parameter of protocol gentlerain")
        && r.err().contains("reads: ") && r.err().contains("heartbeat"), r.err());
    assertEquals("", r.out(), "no seed ran");
  }

  @Test
  void when_severalCheckersFindTheSameThinAirRead_then_itIsPrintedOnceNamingThem() throws Exception {
    Path file = dir.resolve("thin.jsonl");
    Files.writeString(file, line(0, 1, 0, "\"type\":\"PUT\",\"key\":\"x\",\"value\":\"a\"", 1, 10)
        + line(1, 2, 1, "\"type\":\"GET\",\"key\":\"x\",\"reads\":{\"x\":\"ghost\"}", 20, 30));
    Run r = run("check", file.toString(), "--check", "causal,session,linearizable");
    assertEquals(Main.FAILED, r.code(), r.out() + r.err());
    int first = r.out().indexOf("thin-air read");
    assertTrue(first >= 0 && r.out().indexOf("thin-air read", first + 1) < 0, "printed once:\n" + r.out());
    assertTrue(r.out().contains("[found by causal, session, linearizable]"), r.out());
    assertTrue(r.out().contains("(1 shown above)"), r.out());
  }

  @Test
  void when_noReadFollowsTheLastWrite_then_convergenceSaysNothingToCompare() throws Exception {
    Path file = dir.resolve("w.jsonl");
    Files.writeString(file, line(0, 1, 0, "\"type\":\"PUT\",\"key\":\"x\",\"value\":\"a\"", 1, 10));
    Run r = run("check", file.toString(), "--check", "convergence");
    assertTrue(r.out().contains("convergence   no verdict: nothing to compare"), r.out());
    Files.writeString(file, line(0, 1, 0, "\"type\":\"PUT\",\"key\":\"x\",\"value\":\"a\"", 1, 10)
        + line(1, 2, 1, "\"type\":\"GET\",\"key\":\"x\",\"reads\":{\"x\":\"a\"}", 20, 30)
        + line(2, 1, 0, "\"type\":\"GET\",\"key\":\"x\",\"reads\":{\"x\":\"a\"}", 20, 30));
    r = run("check", file.toString(), "--check", "convergence");
    assertEquals(Main.OK, r.code());
    assertTrue(r.out().contains("convergence   ok: compared 2 final reads of 1 key in 2 datacenters"), r.out());
  }

  @Test
  void when_theHistoryIsMalformed_then_theLineIsNamed() throws Exception {
    Path file = dir.resolve("bad.jsonl");
    Files.writeString(file, line(0, 1, 0, "\"type\":\"GET\",\"key\":\"x\",\"reads\":{\"y\":\"a\"}", 1, 10));
    Run r = run("check", file.toString());
    assertEquals(Main.USAGE, r.code());
    assertTrue(r.err().contains("bad.jsonl:1: the \"reads\" of an OK GET of \"x\" must hold exactly that key"),
        r.err());
  }
}
