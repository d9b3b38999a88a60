package org.kvlab.protocols.conveyorbelt;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvlab.sim.TxnWorkload;

/**
 * The shape of seed 004's Figs 5/6 in {@link ConveyorBeltEvaluation}'s runs (virtual time, 3 servers on Table 2's
 * G, J, US, 5 ms per operation): more local operations, more throughput; a local operation is answered at its
 * site, a global one waits for the token's ring; and Table 3's: server-specific ids keep local operations at home.
 */
class ConveyorBeltEvaluationShapeTest {
  @Test
  void when_moreOperationsAreLocal_then_throughputGrows_andLocalOperationsAreFasterThanGlobalOnes() {
    Map<String, String> micro = Map.of("operations", "micro", "serviceMicros", "5000");
    ConveyorBeltEvaluation.Measure few = ConveyorBeltEvaluation.run(3, micro, TxnWorkload.of("micro").withReadShare(0.3),
        20, 4, 0, 2);
    ConveyorBeltEvaluation.Measure most = ConveyorBeltEvaluation.run(3, micro,
        TxnWorkload.of("micro").withReadShare(0.9), 20, 4, 0, 2);
    assertTrue(most.perSecond() > 2 * few.perSecond(), few + " vs " + most);
    assertTrue(most.localMs() * 5 < most.globalMs(), most.toString());
    assertTrue(most.localMs() >= 5, "every operation takes its 5 ms of service: " + most);
    assertTrue(few.globalMs() > 92, "a global operation waits at least for the token's hops: " + few);
  }

  /** Table 3's point: with carts minted at the session's site, the store on 3 sites beats hashed carts. */
  @Test
  void when_cartsAreMintedAtTheirSite_then_theStoreIsFasterThanWithHashedCarts() {
    double site = ConveyorBeltEvaluation.siteStore(3, 2);
    double hashed = ConveyorBeltEvaluation.run(3, Map.of("operations", "store"), TxnWorkload.of("store"), 5, 1, 50_000,
        2).allMs();
    assertTrue(site * 1.5 < hashed, "site-minted carts " + site + " ms, hashed " + hashed + " ms");
  }
}
