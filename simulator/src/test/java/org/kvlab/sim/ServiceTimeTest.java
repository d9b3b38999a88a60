package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.history.Operation;
import org.kvlab.testing.CostKit;

/**
 * The servers' CPU cost ({@link ServiceTime}): a saturated server, FIFO service, per-type overrides, a handler's
 * extra charge, offloaded work in virtual time, and no model = handlers in zero time. One server (1 x 1), a
 * client-server latency of exactly 100 µs each way, so the times below are exact.
 */
class ServiceTimeTest {
  private static final NetworkModel FIXED = new NetworkModel(new long[][] {{100}}, new long[][] {{0}});
  private static final SimSpec ONE = SimSpec.defaults().withTopology(1, 1).withNetwork(FIXED).withFaultKinds(Set.of())
      .withDuration(400_000).withSettle(100_000).withTrace(false).withFinalReads(false);

  private static SimResult run(SimSpec spec, List<Script> scripts) {
    SimResult r = new Simulation(spec, new CostKit(), 1, scripts).run();
    assertTrue(r.failures().isEmpty(), r.failures().toString());
    return r;
  }

  /** Three sessions ask at 0, 10 and 20 µs: the GETs of {@code keys} in that order. */
  private static List<Script> staggered(String... keys) {
    return List.of(Script.at(0).get(keys[0]), Script.at(0).startingAt(10).get(keys[1]),
        Script.at(0).startingAt(20).get(keys[2]));
  }

  private static Operation get(SimResult r, String key) {
    return r.history().operations().stream().filter(o -> key.equals(o.key())).findFirst().orElseThrow();
  }

  private static String value(Operation o) {
    assertEquals(Operation.Outcome.OK, o.outcome(), o.describe());
    return o.readValue().orElseThrow().toStringUtf8();
  }

  @Test
  void saturatedServer_completesOneRequestPerServiceTime_andWithoutTheModelThousands() {
    SimSpec busy = ONE.withWorkload(Workload.defaults().withSessionsPerDc(8).withThinkMicros(0));
    long free = run(busy, List.of()).history().operations().size();
    long ops = run(busy.withServiceTime(ServiceTime.of(1_000)), List.of()).history().operations().size();
    // 0.4 s at 1 ms per request: 400 at most (plus the 8 in flight at the end), nearly all of them
    assertTrue(ops <= 408 && ops >= 390, ops + " operations at 1 ms each");
    assertTrue(free > 10 * ops, free + " operations in zero time");
  }

  @Test
  void requestsAreServedInArrivalOrder_oneServiceTimeApart_withPerTypeOverrides() {
    SimResult r = run(ONE.withServiceTime(ServiceTime.of(1_000)), staggered("a", "b", "c"));
    // arrivals at 100, 110, 120 µs; served until 1,100, 2,100, 3,100; answers 100 µs later
    assertEquals(List.of("0", "1", "2"), List.of(value(get(r, "a")), value(get(r, "b")), value(get(r, "c"))));
    assertEquals(List.of(1_200L, 2_200L, 3_200L),
        List.of(get(r, "a").completeMicros(), get(r, "b").completeMicros(), get(r, "c").completeMicros()));
    SimResult typed = run(ONE.withServiceTime(ServiceTime.parse("1ms,PbGet=3ms")), staggered("a", "b", "c"));
    assertEquals(List.of(3_200L, 6_200L, 9_200L), List.of(get(typed, "a").completeMicros(),
        get(typed, "b").completeMicros(), get(typed, "c").completeMicros()));
  }

  @Test
  void aCostPerKilobyte_addsWhatTheInputCarries() {
    String big = "k".repeat(2045); // a PbGet of 2,048 bytes: field tag, 2-byte length, the key
    SimResult r = run(ONE.withServiceTime(ServiceTime.of(100).withPerKilobyte(1_000)), List.of(Script.at(0).get(big)));
    assertEquals(100 + 100 + 2_000 + 100L, get(r, big).completeMicros(), "100 µs + 2 KB at 1 ms per KB");
  }

  @Test
  void aHandlersCharge_delaysItsReplyAndTheInputsBehindIt_andNothingWithoutTheModel() {
    SimResult r = run(ONE.withServiceTime(ServiceTime.of(1_000)), staggered("charge/5000", "b", "c"));
    // served until 1,100, then 5 ms charged before the reply: it leaves at 6,100; b waits for the charge
    assertEquals(6_200L, get(r, "charge/5000").completeMicros());
    assertEquals(7_200L, get(r, "b").completeMicros());
    assertEquals(8_200L, get(r, "c").completeMicros());
    SimResult none = run(ONE, staggered("charge/5000", "b", "c"));
    assertEquals(List.of(200L, 210L, 220L), List.of(get(none, "charge/5000").completeMicros(),
        get(none, "b").completeMicros(), get(none, "c").completeMicros()));
  }

  @Test
  void offloadedWork_comesBackAfterItsDuration_whileTheServerGoesOnServing() {
    SimResult r = run(ONE.withServiceTime(ServiceTime.of(0).withOffload(50_000)),
        List.of(Script.at(0).get("offload/21"), Script.at(0).startingAt(10).get("b")));
    assertTrue(value(get(r, "offload/21")).matches(".*:42\\|.*"), value(get(r, "offload/21")));
    assertEquals(50_200L, get(r, "offload/21").completeMicros(), "computed, back 50 ms later, answered");
    assertEquals(210L, get(r, "b").completeMicros(), "the loop was not paused by the computation");
    SimResult none = run(ONE, List.of(Script.at(0).get("offload/21")));
    assertEquals(200L, get(none, "offload/21").completeMicros(), "no model: back as the next event, at once");
  }

  @Test
  void theDefaultIsNoModel_andTheTextFormIsCheckedWithAFix() {
    assertEquals(ServiceTime.NONE, SimSpec.defaults().serviceTime());
    assertEquals(new ServiceTime(true, 50, Map.of("PbGet", 200L), 20_000, 100),
        ServiceTime.parse("50us,PbGet=200us,offload=20ms,perKB=100us"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ServiceTime.parse("50us,PbGet"));
    assertTrue(e.getMessage().contains("Fix: write TypeName=DURATION"), e.getMessage());
  }
}
