package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.testing.OutcomeKit;

/**
 * A state probe sees each server's state as the run goes, without changing the run; the whole-run layout
 * has one column per process and every send, receipt, note and operation line.
 */
class StateProbeTest {
  private static final SimSpec SPEC = SimSpec.defaults().withTopology(2, 1).withDuration(1_000_000)
      .withSettle(500_000).withFaults(List.of(new Fault.Crash(new NodeId(1, 0), 300_000, 400_000)));

  private static List<Script> scripts() {
    return List.of(Script.at(0).put("c", "3").get("c"), Script.at(1).startingAt(100_000).put("d", "4"));
  }

  @Test
  void when_aProbeObserves_then_itSeesTheStoresAndCrashes_andTheRunIsTheSame() {
    SimResult plain = new Simulation(SPEC, new OutcomeKit(), 5, scripts()).run();
    List<Simulation.NodeState> seen = new ArrayList<>();
    SimResult observed = new Simulation(SPEC, new OutcomeKit(), 5, scripts()).observe(seen::add).run();
    assertEquals(plain.trace().fingerprint(), observed.trace().fingerprint(), "same messages at the same times");
    assertEquals(plain.history().operations(), observed.history().operations());

    Simulation.NodeState afterPut = seen.stream().filter(s -> s.node().equals("0_0") && !s.store().isEmpty())
        .findFirst().orElseThrow(() -> new AssertionError("0_0 never showed a stored key: " + seen));
    assertTrue(afterPut.store().get(0).startsWith("c: ") && afterPut.store().get(0).contains("\"3\""),
        afterPut.store().toString());
    assertNull(afterPut.protocol(), "OutcomeKit's server does not override toString(): no protocol state");
    assertTrue(seen.stream().anyMatch(s -> s.node().equals("1_0") && !s.up() && s.micros() == 300_000),
        "the crash of 1_0 at 300 ms is reported");
    assertTrue(seen.stream().anyMatch(s -> s.node().equals("1_0") && s.up() && s.incarnation() == 1
        && s.micros() == 400_000), "and its restart");
    for (int i = 1; i < seen.size(); i++) {
      assertTrue(seen.get(i).micros() >= seen.get(i - 1).micros(), "in time order");
    }
  }

  @Test
  void when_theWholeRunIsLaidOut_then_everyProcessHasAColumn_andEveryLineARow() {
    SimResult r = new Simulation(SPEC, new OutcomeKit(), 5, scripts()).run();
    Trace.Layout all = r.trace().layoutAll(List.of());
    assertEquals(List.of("s0@dc0", "s1@dc1", "s2@dc0", "s3@dc1", "0_0", "1_0"), all.columns(),
        "sessions by number (the two scripts, then the final readers), then the servers");
    long lines = r.trace().entries().stream().mapToLong(e -> e.isMessage() && e.deliverMicros() >= 0 ? 2 : 1).sum();
    assertEquals(lines, all.rows().size(), "a row per send, per receipt, per note and operation line");
    assertEquals(0, all.hiddenAtEnd());
    for (int i = 1; i < all.rows().size(); i++) {
      assertTrue(all.rows().get(i).micros() >= all.rows().get(i - 1).micros(), "time flows down");
    }
    assertTrue(all.rows().stream().anyMatch(row -> row.text().equals("** CRASH") && row.process().equals("1_0")));
    assertFalse(all.rows().stream().anyMatch(Trace.Row::focus), "nothing in focus when no operation is given");
  }
}
