package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.cli.InProcessCli.Run;

/** {@code kvlab explore} and {@code kvlab sim --schedule}: a clean exploration, a replay, and bad input (exit 2). */
class ExploreCommandTest {
  @TempDir Path tmp;

  @Test
  void explore_ofEventual_inATinyConfig_isExhaustiveAndFindsNothing() {
    Run r = InProcessCli.run("explore", "--protocol", "eventual", "--session", "dc0 put k0=a; get k0", "--session",
        "dc1 get k0", "--out", tmp.resolve("s.txt").toString());
    assertEquals(0, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("session s0: dc0 put k0=a; get k0"), r.out());
    assertTrue(r.out().matches("(?s).*states [0-9,]+, transitions [0-9,]+.*max depth [0-9]+.*states/s.*"), r.out());
    assertTrue(r.out().contains("no violation: every state within the bounds explored"), r.out());
    assertTrue(Files.notExists(tmp.resolve("s.txt")), "no schedule without a violation");
  }

  /** Eventual is not linearizable: BFS finds the 6-event schedule, writes it, and sim --schedule replays it. */
  @Test
  void explore_writesTheViolationsSchedule_andSimScheduleReplaysIt() {
    Path file = tmp.resolve("lin.txt");
    Run r = InProcessCli.run("explore", "--protocol", "eventual", "--session", "dc0 put k0=a", "--session",
        "dc1 get k0", "--check", "linearizable", "--out", file.toString());
    assertEquals(1, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("found at depth 6; schedule written to " + file), r.out());
    assertTrue(r.out().contains("VIOLATION linearizable"), r.out());
    assertTrue(r.out().contains("recv GetReply ← 1_0"), "the diagram: " + r.out());
    Run replay = InProcessCli.run("sim", "--schedule", file.toString());
    assertEquals(1, replay.code(), replay.out() + replay.err());
    assertTrue(replay.out().contains("6 events"), replay.out());
    String violation = r.out().lines().filter(l -> l.startsWith("VIOLATION")).findFirst().orElseThrow();
    assertTrue(replay.out().contains(violation), "the same violation: " + replay.out());
  }

  /** Random walks find it too; their schedule is shrunk to the events the operations need before it is written. */
  @Test
  void explore_random_shrinksTheSchedule() throws Exception {
    Path file = tmp.resolve("random.txt");
    Run r = InProcessCli.run("explore", "--protocol", "eventual", "--sessions", "3", "--ops", "3", "--keys", "2",
        "--check", "linearizable", "--mode", "random", "--out", file.toString());
    assertEquals(1, r.code(), r.out() + r.err());
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("shrunk the schedule: (\\d+) -> (\\d+) events")
        .matcher(r.out());
    assertTrue(m.find(), r.out());
    assertTrue(Integer.parseInt(m.group(2)) < Integer.parseInt(m.group(1)), m.group());
    assertEquals(Integer.parseInt(m.group(2)), org.kvlab.sim.explore.Schedule.read(file).choices().size());
    assertEquals(1, InProcessCli.run("sim", "--schedule", file.toString()).code(), "the shrunk schedule still fails");
  }

  @Test
  void simSchedule_replaysAScheduleAndDrawsItsDiagram() throws Exception {
    Path file = tmp.resolve("put-get.txt");
    Files.writeString(file, String.join("\n", "# by hand", "protocol: eventual", "topology: 2x1", "crashes: 0",
        "check: session", "seed: 1", "session: dc0 put k0=a; get k0", "choices:", "invoke s0@dc0",
        "deliver s0@dc0->0_0", "deliver 0_0->s0@dc0", "invoke s0@dc0", "deliver s0@dc0->0_0", "deliver 0_0->s0@dc0",
        ""));
    Run r = InProcessCli.run("sim", "--schedule", file.toString());
    assertEquals(0, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("6 events"), r.out());
    assertTrue(r.out().contains("no violation at the end of the schedule"), r.out());
    assertTrue(r.out().contains("recv PutReq ← s0@dc0"), "the diagram: " + r.out());
  }

  @Test
  void badInput_saysWhatAndHowToFixIt_withExitCode2() throws Exception {
    assertUsage(InProcessCli.run("explore", "--protocol", "eventual", "--mode", "dfs"), "unknown mode 'dfs'");
    assertUsage(InProcessCli.run("explore", "--protocol", "eventual", "--check", "convergence"),
        "cannot check convergence");
    assertUsage(InProcessCli.run("explore", "--protocol", "eventual", "--sessions", "9"), "sessions");
    assertUsage(InProcessCli.run("explore", "--protocol", "eventual", "--max-states", "0"), "state bound");
    assertUsage(InProcessCli.run("explore", "--protocol", "eventual", "--session", "dc5 put k0=a"), "datacenter 5");
    assertUsage(InProcessCli.run("explore", "--protocol", "eventual", "--session", "dc0 delete k0"), "is none of");
    assertUsage(InProcessCli.run("explore", "--protocol", "evntual"), "evntual");
    assertUsage(InProcessCli.run("sim"), "--protocol is missing");
    assertUsage(InProcessCli.run("sim", "--schedule", tmp.resolve("none.txt").toString()), "no such file");
    Path bad = tmp.resolve("bad.txt");
    Files.writeString(bad, "protocol: eventual\ntopology: 2x1\nsession: dc0 get k0\n");
    assertUsage(InProcessCli.run("sim", "--schedule", bad.toString()), "no 'choices:' section");
    Path unknownCheck = tmp.resolve("check.txt");
    Files.writeString(unknownCheck, "protocol: eventual\ntopology: 2x1\ncheck: causl\nsession: dc0 get k0\nchoices:\n");
    assertUsage(InProcessCli.run("sim", "--schedule", unknownCheck.toString()), "causl");
    Path wrong = tmp.resolve("wrong.txt");
    Files.writeString(wrong, "protocol: eventual\ntopology: 2x1\nsession: dc0 get k0\nchoices:\ndeliver 0_0->1_0\n");
    assertUsage(InProcessCli.run("sim", "--schedule", wrong.toString()), "is not enabled");
  }

  private static void assertUsage(Run r, String says) {
    assertEquals(2, r.code(), r.out() + r.err());
    assertTrue(r.err().contains(says), "wanted '" + says + "' in: " + r.err());
    assertTrue(r.err().contains("Fix:"), r.err());
  }
}
