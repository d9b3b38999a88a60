package org.kvlab.protocols.conveyorbelt;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.history.Operation;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/**
 * The token pauses when idle instead of spinning: on a 1 ms network, 0.5 s of the online store followed by 5 s with
 * no client, the token's trips stay within a few per global operation (a spinning ring would go round thousands of
 * times in the idle 5 s), and it is paused at the end.
 */
class ConveyorBeltIdleTest {
  @Test
  void when_noOperationIsQueued_then_theTokenStopsMoving() {
    SimSpec spec = ConveyorBeltCheckedSimTest.spec("store", Map.of()).withFaultKinds(Set.of())
        .withNetwork(NetworkModel.uniform(3, 1)).withDuration(500_000).withSettle(5_000_000).withFinalReads(false);
    SeedReport r = SimRunner.run(spec, new ConveyorBelt(), 1, List.of());
    assertTrue(r.ok(), () -> r.checks() + " " + r.result().failures());
    long globals = r.result().history().operations().stream().filter(o -> o.ok() && o.txn() != null
        && o.txn().request().procedure().equals("order")).count();
    long rounds = r.result().counter("cb.tokenRounds");
    assertTrue(globals > 10, "only " + globals + " orders");
    assertTrue(rounds <= 2 * globals + 5, rounds + " token rounds for " + globals + " orders: the token spins");
    assertTrue(r.result().counter("cb.parks") >= 1, r.result().counters().toString());
    long last = r.result().history().operations().stream().mapToLong(Operation::completeMicros).max().orElse(0);
    assertTrue(last < 1_000_000, "an operation ended at " + last + " µs, long after the clients stopped");
  }
}
