package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.kvlab.cli.InProcessCli.Run;

/**
 * {@code kvlab sim --shrink} end to end: Eventual is not linearizable (it answers reads from the local replica), so
 * a one-second run with a partition fails {@code linearizable}; the shrinker finds a run of a few operations that
 * still does, prints before -> after and the smaller run's replay command, and that command fails the same way.
 */
class SimShrinkTest {
  @Test
  void eventualUnderLinearizable_shrinksToAFewOperations_andTheReplayCommandFailsAgain() {
    Run r = InProcessCli.run("sim", "--protocol", "eventual", "--seeds", "1", "--duration", "1s", "--faults",
        "partition", "--check", "linearizable", "--jobs", "1", "--shrink", "--shrink-seeds", "20");
    assertEquals(Main.FAILED, r.code(), r.err());
    assertTrue(r.out().contains("shrinking seed 1 ("), r.out());
    Matcher m = Pattern.compile("shrunk in \\d+ runs: (\\d+) -> (\\d+) operations").matcher(r.out());
    assertTrue(m.find(), r.out());
    int before = Integer.parseInt(m.group(1));
    int after = Integer.parseInt(m.group(2));
    assertTrue(after <= 20 && after * 10 < before, before + " -> " + after);
    Matcher replay = Pattern.compile("Replay: \\./kvlab (sim .*)").matcher(r.out());
    assertTrue(replay.find(), r.out());
    assertTrue(r.out().contains("not linearizable"), r.out());
    Run again = InProcessCli.run((replay.group(1) + " --jobs 1").split(" "));
    assertEquals(Main.FAILED, again.code(), again.out());
    Matcher ops = Pattern.compile("\\n\\s+\\d+\\s+(\\d+)\\s").matcher(again.out());
    assertTrue(ops.find(), again.out());
    assertEquals(after, Integer.parseInt(ops.group(1)), "the replay runs the shrunk run: " + again.out());
  }

  @Test
  void shrinkSeedsOutOfRange_isRefused() {
    Run r = InProcessCli.run("sim", "--protocol", "eventual", "--seeds", "1", "--shrink", "--shrink-seeds", "0");
    assertEquals(Main.USAGE, r.code());
    assertTrue(r.err().contains("shrink-seeds"), r.err());
  }
}
