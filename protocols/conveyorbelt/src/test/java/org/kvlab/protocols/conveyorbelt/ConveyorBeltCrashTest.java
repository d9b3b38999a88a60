package org.kvlab.protocols.conveyorbelt;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.history.Operation;
import org.kvlab.sim.Fault;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.TxnWorkload;
import org.kvlab.sim.Workload;
import org.kvlab.workload.micro.MicroProcedures;
import org.kvlab.workload.store.StoreProcedures;

/**
 * A server down from 1 s to 2.5 s of a 5 s run, each of the three in turn: meanwhile the others go on with their local
 * operations while the token waits for it (global operations stall, as in the seed); after its restart from its store
 * the token, kept in the durable slot of whoever held it or was handing it on, moves again and global operations
 * complete; on the online store the invariants and the replicated state's convergence hold.
 */
class ConveyorBeltCrashTest {
  static final long DOWN = 1_000_000;
  static final long UP = 2_500_000;

  private static SeedReport run(String workload, Map<String, String> params, int down, long seed, long thinkMicros,
      List<String> checks) {
    SimSpec spec = ConveyorBeltCheckedSimTest.spec(workload, params).withFaultKinds(Set.of())
        .withFaults(List.of(new Fault.Crash(new NodeId(down, 0), DOWN, UP))).withDuration(5_000_000);
    Workload w = spec.workload().withSessionsPerDc(10).withThinkMicros(thinkMicros); // sessions block on stalled ops
    SeedReport r = SimRunner.run(spec.withWorkload(w.withTxn(Workload.Txns.of(1.0,
        TxnWorkload.of(workload).withReadShare(0.9)))), new ConveyorBelt(), seed, checks);
    assertTrue(r.ok(), () -> "server " + down + " down, seed " + seed + ": " + r.checks() + " " + r.result().failures());
    return r;
  }

  private static long count(SeedReport r, Predicate<Operation> p) {
    return r.result().history().operations().stream().filter(o -> o.ok() && o.txn() != null).filter(p).count();
  }

  @Test
  void when_aServerIsDown_then_localOperationsGoOnElsewhere_andGlobalOnesResumeAfterItsRestart() {
    for (int down = 0; down < 3; down++) {
      for (long seed = 1; seed <= 3; seed++) {
        int d = down;
        SeedReport r = run("micro", Map.of("operations", "micro"), down, seed, 100_000, List.of());
        long localDuring = count(r, o -> o.dc() != d && o.invokeMicros() > DOWN + 100_000 && o.completeMicros() < UP
            && o.txn().request().procedure().equals(MicroProcedures.LOCAL));
        long globalDuring = count(r, o -> o.invokeMicros() > DOWN + 100_000 && o.completeMicros() < UP
            && o.txn().request().procedure().equals(MicroProcedures.GLOBAL));
        long globalAfter = count(r, o -> o.invokeMicros() > UP + 200_000
            && o.txn().request().procedure().equals(MicroProcedures.GLOBAL));
        String what = "server " + down + " down, seed " + seed;
        assertTrue(localDuring >= 20, what + ": only " + localDuring + " local operations while it was down");
        assertTrue(globalDuring == 0, what + ": " + globalDuring + " global operations completed while it was down");
        assertTrue(globalAfter >= 5, what + ": only " + globalAfter + " global operations after its restart");
      }
    }
  }

  @Test
  void when_aServerOfTheOnlineStoreIsDown_then_theInvariantsHoldAndOrdersCompleteAfterItsRestart() {
    for (int down = 0; down < 3; down++) {
      for (long seed = 1; seed <= 3; seed++) {
        SeedReport r = run("store", Map.of(), down, seed, 0, List.of("store"));
        assertTrue(r.checks().stream().noneMatch(c -> c.vacuous()), r.checks().toString());
        long ordersAfter = count(r, o -> o.invokeMicros() > UP + 200_000
            && o.txn().request().procedure().equals(StoreProcedures.ORDER));
        assertTrue(ordersAfter >= 3, "server " + down + " down, seed " + seed + ": only " + ordersAfter + " orders"
            + " after its restart");
      }
    }
  }
}
