package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.check.Checkers;
import org.kvlab.check.Result;
import org.kvlab.history.Operation;
import org.kvlab.history.Operation.Outcome;
import org.kvlab.history.Operation.Type;
import org.kvlab.testing.OutcomeKit;

/**
 * Outcomes in the simulator follow the protocol's word (Request.fail / Request.unknown), never the words
 * of a reason; a request never answered is in the history as INFO.
 */
class SimulationOutcomeTest {
  private static final SimSpec SPEC = SimSpec.defaults().withTopology(2, 1).withDuration(1_000_000)
      .withSettle(3_000_000);

  private static Operation put(SimResult r, String key) {
    return r.history().operations().stream().filter(o -> o.type() == Type.PUT && key.equals(o.key())).findFirst()
        .orElseThrow(() -> new AssertionError("no put(" + key + ") in the history: " + r.history().operations()));
  }

  @Test
  void when_protocolFailsWithTimedOutReason_then_FAIL_and_whenItSaysUnknown_then_INFO() {
    SimResult r = new Simulation(SPEC, new OutcomeKit(), 1,
        List.of(Script.at(0).put("fail/a", "1").put("unknown/b", "2").put("c", "3").get("fail/d").get("unknown/e")))
        .run();
    assertTrue(r.failures().isEmpty(), r.failures().toString());
    Operation failed = put(r, "fail/a");
    assertEquals(Outcome.FAIL, failed.outcome(), "fail(...) is definite, whatever its reason says: " + failed);
    assertEquals(OutcomeKit.FAIL_REASON, failed.error());
    assertTrue(failed.error().contains("timed out"), "the reason does say 'timed out'");
    assertEquals(Outcome.INFO, put(r, "unknown/b").outcome());
    assertEquals(Outcome.OK, put(r, "c").outcome());
    List<Operation> gets = r.history().operations().stream().filter(o -> o.type() == Type.GET && o.session() == 0)
        .toList();
    assertEquals(Outcome.FAIL, gets.get(0).outcome(), gets.get(0).describe());
    assertEquals(Outcome.INFO, gets.get(1).outcome(), gets.get(1).describe());
  }

  @Test
  void when_serverNeverAnswers_then_theClientTimesOut_andThePutIsInTheHistoryAsInfo() {
    // The server stores held/x, replicates nothing and never answers; another session reads the value.
    // One datacenter: OutcomeKit does not replicate, so only there is the history linearizable.
    SimResult r = new Simulation(SPEC.withTopology(1, 1), new OutcomeKit(), 2,
        List.of(Script.at(0).put("held/x", "v1"), Script.at(0).startingAt(50_000).get("held/x"))).run();
    Operation held = put(r, "held/x");
    assertEquals(Outcome.INFO, held.outcome(), held.describe());
    assertEquals(SimSpec.CLIENT_TIMEOUT_MICROS, held.completeMicros() - held.invokeMicros(),
        "the client's own timeout ends it: " + held.describe());
    assertTrue(held.error().contains("no answer within"), held.error());
    Operation read = r.history().operations().stream().filter(o -> o.session() == 1).findFirst().orElseThrow();
    assertEquals("v1", read.readValue().orElseThrow().toStringUtf8(), "the held write is visible");
    // The run still reports the protocol bug...
    assertTrue(r.failures().stream().anyMatch(f -> f.contains("never answered a KitPut")), r.failures().toString());
    // ...but the read is of a write in the history (INFO), not a thin-air read, for every checker.
    for (String checker : List.of("causal", "session", "linearizable")) {
      Result c = Checkers.byName(checker).check(r.history());
      assertTrue(c.valid(), checker + ": " + c.violations());
    }
  }

  @Test
  void when_anOperationHasNoOutcomeWhenTheRunEnds_then_itIsRecordedAsInfo() {
    // The client's future for never/x never completes: the run ends (final reads cannot start) with it open.
    SimResult r = new Simulation(SPEC, new OutcomeKit(), 3, List.of(Script.at(1).put("a", "1").put("never/x", "2")))
        .run();
    Operation open = put(r, "never/x");
    assertEquals(Outcome.INFO, open.outcome(), open.describe());
    assertTrue(open.error().startsWith("no answer when the simulation ended"), open.error());
    assertEquals(r.virtualMicros(), open.completeMicros());
    assertEquals(Outcome.OK, put(r, "a").outcome());
    assertEquals(2, r.history().size(), "each operation once: " + r.history().operations());
  }
}
