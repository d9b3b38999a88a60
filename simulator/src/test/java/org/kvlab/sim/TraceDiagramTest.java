package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.history.Operation;
import org.kvlab.history.Operation.Outcome;
import org.kvlab.history.Operation.Type;
import org.kvlab.testing.kit.KitGet;
import org.kvlab.testing.kit.KitGetReply;
import org.kvlab.testing.kit.KitPut;
import org.kvlab.testing.kit.KitPutReply;
import org.kvlab.testing.kit.Seq;

/** The diagram of a violation is centred on its operations; the fault summary shows skew. */
class TraceDiagramTest {
  private static final NodeId A = new NodeId(0, 0);
  private static final NodeId B = new NodeId(1, 0);

  /**
   * Session s0@dc0 writes through 0_0 at 10 ms; s1@dc1 reads through 1_0 at 990 ms; meanwhile the two
   * servers exchange a heartbeat every millisecond and 0_1 (not involved) talks to 1_1.
   */
  private static Trace trace() {
    Trace t = new Trace(true);
    for (long ms = 0; ms < 1000; ms++) {
      t.deliver(t.send(ms * 1000, "0_0", "1_0", Seq.getDefaultInstance()), ms * 1000 + 25_000);
      t.deliver(t.send(ms * 1000 + 1, "0_1", "1_1", Seq.getDefaultInstance()), ms * 1000 + 25_001);
      if (ms == 10) {
        t.op(10_000, "s0@dc0", "invoke put(x)=\"a\"", 1);
        t.deliver(t.send(10_000, "s0@dc0", "0_0", KitPut.getDefaultInstance()), 10_200);
        t.deliver(t.send(10_300, "0_0", "s0@dc0", KitPutReply.getDefaultInstance()), 10_500);
        t.op(10_500, "s0@dc0", "complete #1 put(x)", 1);
      }
      if (ms == 990) {
        t.op(990_000, "s1@dc1", "invoke get(x)", 2);
        t.deliver(t.send(990_000, "s1@dc1", "1_0", KitGet.getDefaultInstance()), 990_200);
        t.deliver(t.send(990_300, "1_0", "s1@dc1", KitGetReply.getDefaultInstance()), 990_500);
        t.op(990_500, "s1@dc1", "complete #2 get(x)->nil", 2);
      }
    }
    return t;
  }

  private static final List<Operation> OPS = List.of(
      new Operation(1, 0, 0, Type.PUT, "x", ByteString.copyFromUtf8("a"), null, 10_000, 10_500, Outcome.OK, null),
      new Operation(2, 1, 1, Type.GET, "x", null, Map.of("x", Optional.empty()), 990_000, 990_500, Outcome.OK, null));

  @Test
  void when_theWindowHoldsMoreRowsThanAllowed_then_theOperationsRowsAreShownWithTheirNeighbours() {
    String d = trace().diagram(OPS, List.of(), 40);
    for (String row : List.of("invoke put(x)", "complete #1 put(x)", "send KitPut → 0_0", "recv KitPut ← s0@dc0",
        "invoke get(x)", "complete #2 get(x)->nil", "recv KitGetReply ← 1_0")) {
      assertTrue(d.contains(row), "the diagram must show '" + row + "':\n" + d);
    }
    String header = d.lines().findFirst().orElseThrow();
    for (String col : List.of("s0@dc0", "s1@dc1", "0_0", "1_0")) {
      assertTrue(header.contains(col), header);
    }
    assertFalse(header.contains("0_1") || header.contains("1_1"), "only the servers involved: " + header);
    assertFalse(d.contains("← 0_1"), "no rows of uninvolved servers");
    long shown = d.lines().filter(l -> l.matches("\\s*\\d+\\.\\d{3} \\|.*")).count();
    assertEquals(40, shown, d);
    assertTrue(d.contains("rows not shown"), d);
    // The operations' rows are marked, and the rows around the early write are there (centred, not the tail).
    assertEquals(4, d.lines().filter(l -> l.endsWith("  <")).count(), d);
    assertTrue(d.contains("   10.000 |"), d);
  }

  @Test
  void when_everythingFits_then_everyRowOfTheWindowIsShown() {
    String d = trace().diagram(List.of(OPS.get(0)), List.of(), 1000);
    assertFalse(d.contains("rows not shown"), d);
    assertTrue(d.contains("invoke put(x)") && d.contains("recv KitPutReply ← 0_0"), d);
    assertFalse(d.contains("1_0"), "s0 called only 0_0 (heartbeats to 1_0 are not its messages): " + d);
  }

  @Test
  void when_aServerIsSkewed_then_itsColumnShowsTheClock() {
    String d = trace().diagram(OPS, List.of(new Fault.Skew(A, 12_300, 150), new Fault.Skew(new NodeId(0, 1), -5_000, 0)),
        40);
    String clock = d.lines().skip(1).findFirst().orElseThrow();
    assertTrue(clock.trim().startsWith("clock"), d);
    assertTrue(clock.contains("+12.3ms +150ppm"), clock);
    assertFalse(clock.contains("-5.0ms"), "0_1 is not a column: " + clock);
  }

  @Test
  void when_aViolationIsExplained_then_onlyTheFaultsOfItsServersAndDatacentersAreListed() {
    SimResult run = new SimResult(1, new org.kvlab.history.History(OPS), List.of(
        new Fault.Skew(A, 12_300, 150), new Fault.Skew(new NodeId(0, 1), -5_000, 0),
        new Fault.Crash(new NodeId(1, 1), 0, 500_000), new Fault.Partition(0, 1, 400_000, 600_000)),
        List.of(), trace(), 0, 0, 1_000_000, 0, 0);
    String text = SimRunner.explain(new SimRunner.SeedReport(1, run, List.of()),
        new org.kvlab.check.Violation("test", "two operations", List.of(1L, 2L)), 40);
    String faults = text.lines().filter(l -> l.contains("faults while they ran")).findFirst().orElseThrow();
    assertTrue(faults.contains("skew 0_0") && faults.contains("partition dc0|dc1"), faults);
    assertFalse(faults.contains("0_1") || faults.contains("1_1"), "servers not involved: " + faults);
    assertTrue(text.contains("invoke put(x)") && text.contains("invoke get(x)"), text);
  }

  @Test
  void when_skewIsDrawn_then_theFaultSummaryShowsIt() {
    SimSpec spec = SimSpec.defaults().withFaultKinds(java.util.Set.of("skew", "partition"));
    List<Fault> faults = FaultPlan.draw(spec, new Random(3));
    String summary = Fault.summary(faults);
    assertTrue(summary.contains("skew 6 nodes up to ±"), summary);
    assertTrue(summary.contains("partition dc0|dc1"), summary);
    assertEquals("skew 1_0 +2.0ms drift +0ppm", Fault.summary(List.of(new Fault.Skew(B, 2_000, 0))));
  }
}
