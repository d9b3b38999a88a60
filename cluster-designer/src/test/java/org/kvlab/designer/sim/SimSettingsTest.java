package org.kvlab.designer.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Params;
import org.kvlab.api.Protocols;
import org.kvlab.api.Topology;

/** The command the Simulate tab prints replays the same run in {@code kvlab sim}. */
class SimSettingsTest {
  @Test
  void theReplayCommandRunsTheSameSeedInKvlabSim() {
    SimSettings s = new SimSettings("eventual", new Topology(2, 2), null, 40, Params.empty(), 1, 8, 500,
        Set.of("crash", "slow"), List.of("session", "convergence"), List.of());
    SimRun gui = SimRun.run(s, Protocols.byName("eventual"), 3);
    String command = s.command(3);
    assertTrue(command.startsWith("./kvlab sim --protocol eventual --seeds 3 --faults crash,slow"), command);
    String[] args = command.substring("./kvlab ".length()).split(" ");
    PrintStream out = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code;
    try {
      System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
      code = org.kvlab.cli.Main.run(args);
    } finally {
      System.setOut(out);
    }
    String printed = buf.toString(StandardCharsets.UTF_8);
    assertEquals(gui.report().ok() ? 0 : 1, code, printed);
    // Columns by the header's names (SEED OPS OK INFO FAIL MESSAGES ...), so a new column does not shift the check.
    List<String> header = List.of(printed.lines().filter(l -> l.trim().startsWith("SEED ")).findFirst()
        .orElseThrow(() -> new AssertionError(printed)).trim().split("\\s+"));
    String row = printed.lines().filter(l -> l.trim().startsWith("3 ")).findFirst().orElseThrow(() -> new AssertionError(printed));
    String[] cols = row.trim().split("\\s+");
    assertEquals(String.valueOf(gui.report().result().history().size()), cols[header.indexOf("OPS")],
        "same operations: " + row);
    assertEquals(String.valueOf(gui.report().result().deliveries()), cols[header.indexOf("MESSAGES")],
        "same messages: " + row);
    assertEquals(String.valueOf(gui.report().result().history().outcomes().ok()), cols[header.indexOf("OK")],
        "same OK count: " + row);
    assertTrue(row.contains(org.kvlab.sim.Fault.summary(gui.report().result().faults())), "same faults: " + row);
  }
}
