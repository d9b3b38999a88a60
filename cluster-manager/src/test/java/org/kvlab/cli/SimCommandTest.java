package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kvlab.api.Params;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.cli.InProcessCli.Run;

/**
 * Goal: {@code kvlab sim} refuses, before any seed runs, every option value that would make a run check nothing or
 * blame the protocol (issue 28 item 4), naming the option and its range; shows per seed how many operations ended OK,
 * INFO and FAIL, and fails a seed that completed none; writes a seed's history that {@code kvlab check} reads with the
 * same verdict; reports servers that do not start as an error naming the protocol and the cause; starts from the
 * protocol's own topology (issue 27). Method: the CLI in this JVM, one short seed per run.
 */
class SimCommandTest {
  @TempDir Path dir;

  /** {@code sim --protocol eventual --seeds 1 --duration 500ms --jobs 1}, with {@code extra} added or replacing. */
  private static Run sim(String... extra) {
    List<String> args = new ArrayList<>(List.of("sim", "--protocol", "eventual", "--seeds", "1"));
    List<String> given = Arrays.asList(extra);
    for (String[] fallback : new String[][] {{"--duration", "500ms"}, {"--jobs", "1"}}) {
      if (!given.contains(fallback[0])) {
        args.addAll(List.of(fallback));
      }
    }
    args.addAll(given);
    return InProcessCli.run(args.toArray(String[]::new));
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(delimiter = '|', value = {
      "--duration    | -1s                 | from 1ms to 10m",
      "--duration    | 0ms                 | from 1ms to 10m",
      "--duration    | 99999999999999999h  | from 1ms to 10m",
      "--duration    | 11m                 | from 1ms to 10m",
      "--duration    | soon                | from 1ms to 10m",
      "--get-ratio   | -0.5                | from 0 to 1",
      "--get-ratio   | NaN                 | from 0 to 1",
      "--get-ratio   | 1.5                 | from 0 to 1",
      "--rotx-ratio  | -1                  | from 0 to 1",
      "--rotx-ratio  | NaN                 | from 0 to 1",
      "--rotx-keys   | -3                  | from 1 to 100",
      "--rotx-keys   | 0                   | from 1 to 100",
      "--max-skew    | -5ms                | from 0 to 1s",
      "--max-skew    | NaNs                | from 0 to 1s",
      "--max-skew    | 2s                  | from 0 to 1s",
      "--trace-rows  | -1                  | from 1 to 10,000",
      "--trace-rows  | 0                   | from 1 to 10,000",
      "--rtt         | -1ms                | from 0 to 1s",
      "--rtt         | 1000000h            | from 0 to 1s",
      "--show        | -1                  | from 0 to 1,000",
      "--datacenters | 0                   | from 1 to 16",
      "--datacenters | 17                  | from 1 to 16",
      "--partitions  | -2                  | from 1 to 256",
      "--sessions    | 0                   | from 1 to 1,000",
      "--keys        | 0                   | from 1 to 1,000,000",
      "--jobs        | 0                   | from 1 to 1,024",
  })
  void when_anOptionIsOutOfItsRange_then_simRefusesItNamingTheRange_andNoSeedRuns(String option, String value,
      String range) {
    Run r = sim(option, value);
    assertEquals(Main.USAGE, r.code(), r.out() + r.err());
    assertTrue(r.err().contains(option + " " + value + ": ") && r.err().contains(range) && r.err().contains("Fix: "),
        r.err());
    assertEquals("", r.out(), "no seed ran");
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(delimiter = '|', value = {
      "--check        | linearisable  | did you mean 'linearizable'?",
      "--check        | causl         | did you mean 'causal'?",
      "--faults       | crsh          | did you mean 'crash'?",
      "--distribution | zipf          | did you mean 'zipfian'?",
      "--durability   | snyc          | did you mean 'sync'?",
      "--param        | heartbeet=5ms | did you mean 'heartbeat'?",
  })
  void when_aNameIsMisspelt_then_simSuggestsTheNearestOne(String option, String value, String suggestion) {
    Run r = InProcessCli.run("sim", "--protocol", "gentlerain", "--seeds", "1", option, value);
    assertEquals(Main.USAGE, r.code(), r.out() + r.err());
    assertTrue(r.err().contains(suggestion), r.err());
    assertEquals("", r.out(), "no seed ran");
  }

  @Test
  void when_theProtocolNameIsMisspelt_then_simSuggestsTheInstalledOne() {
    Run r = InProcessCli.run("sim", "--protocol", "gentleran", "--seeds", "1");
    assertEquals(Main.USAGE, r.code());
    assertTrue(r.err().contains("did you mean 'gentlerain'?"), r.err());
  }

  @Test
  void when_aServiceTimeIsGiven_then_fewerOperationsComplete_andAMisspeltTypeIsRefusedWithTheNearest() {
    Run free = InProcessCli.run("sim", "--protocol", "eventual", "--seeds", "1", "--duration", "300ms", "--jobs", "1");
    Run busy = InProcessCli.run("sim", "--protocol", "eventual", "--seeds", "1", "--duration", "300ms", "--jobs", "1",
        "--service-time", "5ms");
    assertEquals(Main.OK, busy.code(), busy.out() + busy.err());
    Matcher a = Pattern.compile("(?m)^ +1 +(\\d+) ").matcher(free.out());
    Matcher b = Pattern.compile("(?m)^ +1 +(\\d+) ").matcher(busy.out());
    assertTrue(a.find() && b.find(), free.out() + busy.out());
    assertTrue(Long.parseLong(b.group(1)) * 3 < Long.parseLong(a.group(1)), "5 ms per input slows the servers: "
        + a.group(1) + " -> " + b.group(1));
    Run bad = InProcessCli.run("sim", "--protocol", "eventual", "--seeds", "1", "--service-time", "50us,Nope=1ms");
    assertEquals(Main.USAGE, bad.code());
    assertTrue(bad.err().contains("--service-time: 'Nope' is not a message type of protocol eventual. Fix:"),
        bad.err());
  }

  @Test
  void when_replicasAreGiven_then_eachPartitionIsAGroup_andAShapeTheProtocolRefusesExitsWithItsFix() {
    Run r = InProcessCli.run("sim", "--protocol", "dynastar", "--partitions", "3", "--replicas", "3", "--seeds", "1",
        "--duration", "500ms", "--jobs", "1", "--txn-workload", "list-append", "--check", "strict-serializable",
        "--rtt", "2ms");
    assertEquals(Main.OK, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("1 datacenters x 3 partitions x 3 replicas"), r.out());
    Run two = InProcessCli.run("sim", "--protocol", "dynastar", "--partitions", "3", "--replicas", "2", "--seeds", "1");
    assertEquals(Main.USAGE, two.code(), two.out() + two.err());
    assertTrue(two.err().contains("--replicas") && two.err().contains("Fix:"), two.err());
    Run none = InProcessCli.run("sim", "--protocol", "eventual", "--replicas", "0", "--seeds", "1");
    assertEquals(Main.USAGE, none.code(), none.out() + none.err());
    assertTrue(none.err().contains("--replicas"), none.err());
  }

  @Test
  void when_theConsensusWorkloadRunsOpenLoop_then_m2paxosIsLinearizable_andLocalityAloneIsRefused() {
    Run r = InProcessCli.run("sim", "--protocol", "m2paxos", "--seeds", "1", "--datacenters", "3", "--partitions", "1",
        "--duration", "300ms", "--objects-per-replica", "20", "--locality", "0.5", "--open-rate",
        "300", "--sessions", "4", "--rtt", "2ms", "--check", "linearizable");
    assertEquals(Main.OK, r.code(), r.out() + r.err());
    Run alone = InProcessCli.run("sim", "--protocol", "m2paxos", "--seeds", "1", "--locality", "0.5");
    assertEquals(Main.USAGE, alone.code());
    assertTrue(alone.err().contains("need --objects-per-replica") && alone.err().contains("Fix:"), alone.err());
  }

  @Test
  void when_aSeedRuns_then_itsRowCountsOkInfoAndFailOperations() {
    Run r = sim("--check", "convergence");
    assertEquals(Main.OK, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("     OPS       OK   INFO   FAIL  MESSAGES"), r.out());
    Matcher row = Pattern.compile("(?m)^ +1 +(\\d+) +(\\d+) +(\\d+) +(\\d+) ").matcher(r.out());
    assertTrue(row.find(), r.out());
    long ops = Long.parseLong(row.group(1));
    long ok = Long.parseLong(row.group(2));
    assertTrue(ok > 0, r.out());
    assertEquals(ops, ok + Long.parseLong(row.group(3)) + Long.parseLong(row.group(4)), "every operation counted once");
  }

  @Test
  void when_aCheckerHasNoVerdict_then_theSummarySaysWhatTheRunDid_notAdviceToRecordReads() {
    Run r = sim("--check", "convergence", "--get-ratio", "1");
    assertEquals(Main.OK, r.code(), "the workload's choice, not a failure: " + r.out() + r.err());
    assertTrue(r.out().contains("convergence: no verdict on 1 seed; seed 1: nothing to compare: the run wrote no key"
        + " (no PUT; the workload's get ratio is 1.0)"), r.out());
    assertTrue(!r.out().contains("Fix: record reads"), r.out());
  }

  @Test
  void when_rotxIsAskedOfAProtocolWithout_then_simRefusesIt_andTheRotxCheckerHasNoVerdictWithoutRotx() {
    Run r = sim("--rotx-ratio", "0.5");
    assertEquals(Main.USAGE, r.code(), r.out() + r.err());
    assertTrue(r.err().contains("--rotx-ratio 0.5: protocol eventual has no read-only transactions. Fix: "), r.err());
    Run none = sim("--check", "rotx");
    assertEquals(Main.OK, none.code(), none.out() + none.err());
    assertTrue(none.out().contains("rotx: no verdict on 1 seed; seed 1: no read-only transaction completed OK"),
        none.out());
    Run rotx = InProcessCli.run("sim", "--protocol", "gentlerain", "--seeds", "1", "--duration", "500ms", "--jobs",
        "1", "--rotx-ratio", "0.3", "--check", "rotx");
    assertEquals(Main.OK, rotx.code(), rotx.out() + rotx.err());
    assertTrue(!rotx.out().contains("no verdict"), rotx.out());
  }

  @Test
  void when_historyIsWritten_then_checkReadsItAndGivesTheSameVerdict() throws Exception {
    Path file = dir.resolve("seed1.jsonl");
    Run r = sim("--check", "causal,session,linearizable", "--history", file.toString());
    assertEquals(Main.FAILED, r.code(), "eventual is not linearizable: " + r.out() + r.err());
    assertTrue(r.out().contains("history of seed 1: " + file), r.out());
    Matcher row = Pattern.compile("(?m)^ +1 +(\\d+) .*ok +ok +(\\d+) violations").matcher(r.out());
    assertTrue(row.find(), r.out());
    Run c = InProcessCli.run("check", file.toString(), "--check", "causal,session,linearizable");
    assertEquals(Main.FAILED, c.code(), c.out() + c.err());
    assertTrue(c.out().contains(file + ": " + row.group(1) + " operations"), c.out());
    assertTrue(c.out().contains("causal        ok") && c.out().contains("session       ok")
        && c.out().contains("linearizable  " + row.group(2) + " violations"), c.out());

    Run passing = sim("--check", "causal,convergence", "--history", file.toString());
    assertEquals(Main.OK, passing.code(), passing.out() + passing.err());
    Run checked = InProcessCli.run("check", file.toString(), "--check", "causal,convergence");
    assertEquals(Main.OK, checked.code(), checked.out() + checked.err());
    assertTrue(checked.out().contains("convergence   ok: compared"), checked.out());
  }

  @Test
  void when_historyIsAskedOfSeveralSeeds_then_simRefusesItNamingOneSeed() {
    Run r = InProcessCli.run("sim", "--protocol", "eventual", "--seeds", "3..5", "--history",
        dir.resolve("h.jsonl").toString());
    assertEquals(Main.USAGE, r.code());
    assertTrue(r.err().contains("--seeds 3..5 names 3. Fix: run the seed you want alone, e.g. --seeds 3 --history"),
        r.err());
    assertTrue(Files.notExists(dir.resolve("h.jsonl")));
  }

  @Test
  void when_theServersThrowAtStart_then_simFailsNamingTheProtocolAndTheCause_notAPass() {
    Run r = InProcessCli.run("sim", "--protocol", "startfails", "--seeds", "1..3", "--duration", "200ms",
        "--check", "linearizable");
    assertEquals(Main.FAILED, r.code(), r.out() + r.err());
    assertTrue(r.err().contains("protocol startfails: 6 servers (first: 0_0) failed to start in the simulator, so no"
        + " operation ran: server 0_0: java.lang.IllegalStateException: store not opened (at "), r.err());
    assertTrue(!r.out().contains("passed"), "no summary of passes: " + r.out());
  }

  @Test
  void when_theServersRefuseTheirParametersAtStart_then_simCallsItAConfigurationProblem() {
    Run r = InProcessCli.run("sim", "--protocol", "startfails", "--seeds", "1", "--duration", "200ms",
        "--param", "failWith=refusal");
    assertEquals(Main.USAGE, r.code(), r.out() + r.err());
    assertTrue(r.err().contains("--param failWith: protocol startfails: 6 servers (first: 0_0) refused to start in"
        + " the simulator: 'refusal' is refused by the server. Fix: use bug (protocol startfails's checkParameters"
        + " should refuse it before any server starts"), r.err());
  }

  @Test
  void when_camuRunsTheListAppendWorkload_then_theBlackBoxChecksJudgeItAndCheckAgreesOnItsHistory() throws Exception {
    Path file = dir.resolve("append.jsonl");
    Run r = InProcessCli.run("sim", "--protocol", "camu", "--seeds", "1", "--duration", "500ms", "--jobs", "1",
        "--sessions", "4", "--txn-workload", "list-append", "--txn-length", "1..3", "--check",
        "serializable,strict-serializable,txn", "--history", file.toString());
    assertEquals(Main.OK, r.code(), r.out() + r.err());
    Run c = InProcessCli.run("check", file.toString(), "--check", "serializable,strict-serializable");
    assertEquals(Main.OK, c.code(), c.out() + c.err());
    assertTrue(c.out().contains("serializable") && c.out().contains("list-append"), c.out());
    Run bad = InProcessCli.run("sim", "--protocol", "camu", "--seeds", "1", "--txn-workload", "list-append",
        "--txn-length", "4");
    assertEquals(Main.USAGE, bad.code());
    assertTrue(bad.err().contains("--txn-length: '4' is not MIN..MAX. Fix: e.g. --txn-length 1..4"), bad.err());
  }

  @Test
  void when_noDatacentersAreGiven_then_camuRunsInItsOwnSingleDatacenter() {
    Run r = InProcessCli.run("sim", "--protocol", "camu", "--seeds", "1", "--duration", "500ms", "--jobs", "1");
    assertEquals(Main.OK, r.code(), r.out() + r.err());
    assertTrue(r.out().startsWith("simulating camu: 1 datacenters x 3 partitions"), r.out());
    Run two = InProcessCli.run("sim", "--protocol", "camu", "--seeds", "1", "--datacenters", "2");
    assertEquals(Main.USAGE, two.code(), "an explicit shape is still the user's: " + two.out());
    assertTrue(two.err().contains("--datacenters: protocol camu refuses it"), two.err());
  }

  @Test
  void when_anyInstalledProtocolRunsOnItsDefaultTopology_then_itsOwnCheckAcceptsIt() {
    for (Protocol p : Protocols.all()) {
      assertDoesNotThrow(() -> p.checkParameters(Params.empty(), p.defaultTopology()), p.name());
    }
  }
}
