package org.kvlab.protocols.camu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.UnknownFieldSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.check.Result;
import org.kvlab.check.TxnChecker;
import org.kvlab.history.Operation;
import org.kvlab.history.Operation.Type;
import org.kvlab.sim.Fault;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/**
 * Crash recovery (docs/protocols.md#camu-crash-recovery): one partition crashes in the middle of the run and restarts from
 * the ordering state it saved in its slot; the run must pass the txn checker, the partition must count one
 * recovery, and transactions submitted after the restart (also at the restarted partition) must complete. Without
 * the saved state (durableState=false, the mutant) the restarted partition reuses transaction ids and positions and
 * votes below what it promised, which the checker catches.
 */
class CamuCrashTest {
  private static final NodeId VICTIM = NodeId.of(0, 1);

  private static SimSpec crashOfPartition1(String mode, String extra) {
    // 3 s of workload: a session whose request died with the crash waits out the client's 2 s timeout, then goes on
    return CamuCheckedSimTest.spec(mode, "zipf", 2, extra).withFaultKinds(Set.of()).withDuration(3_000_000)
        .withFaults(List.of(new Fault.Crash(VICTIM, 120_000, 200_000)));
  }

  @Test
  void when_aPartitionCrashesAndRestarts_then_eachModeRecoversAndPassesTheTxnChecker() {
    for (String mode : List.of("pb", "tom", "camu")) {
      for (long seed = 1; seed <= 10; seed++) {
        SeedReport r = SimRunner.run(crashOfPartition1(mode, ""), new Camu(), seed, List.of(TxnChecker.NAME));
        String at = mode + " seed " + seed;
        assertTrue(r.ok(), () -> at + ": " + r.checks() + " " + r.result().failures());
        Result c = r.checks().get(0);
        assertTrue(!c.vacuous(), at + ": " + c.note());
        assertEquals(1, r.result().counter("camu.recovered"), at + ": restarts recovered from the saved state");
        long okAfter = 0;
        long okAfterAtVictim = 0;
        for (Operation op : r.result().history().operations()) {
          if (op.type() == Type.TXN && op.ok() && op.invokeMicros() > 200_000) {
            okAfter++;
            if (op.txn().result().parts().containsKey(VICTIM.partition())) {
              okAfterAtVictim++;
            }
          }
        }
        assertTrue(okAfter > 0, at + ": no transaction completed after the restart");
        assertTrue(okAfterAtVictim > 0, at + ": no transaction touching the restarted partition completed after it");
      }
    }
  }

  @Test
  void when_theRestartedPartitionForgetsItsState_then_theTxnCheckerCatchesIt() {
    boolean caught = false;
    for (long seed = 1; seed <= 20 && !caught; seed++) {
      SeedReport r = SimRunner.run(crashOfPartition1("camu", "durableState=false"), new Camu(), seed,
          List.of(TxnChecker.NAME));
      assertEquals(0, r.result().counter("camu.recovered"), "durableState=false saves nothing, so recovers nothing");
      caught = !r.ok();
    }
    assertTrue(caught, "a partition that restarts with empty ordering state must be caught within 20 seeds");
  }

  @Test
  void when_theSavedStateIsFromAnOlderCamu_then_theRestartRefusesNamingTheFix() {
    // before TOM moved to the consensus module's block, its clock, pending set and votes were fields 11-13
    Params p = new Params(java.util.Map.of("mode", "tom"));
    Fig33ScenarioTest.Harness h = new Fig33ScenarioTest.Harness(p);
    Fig33ScenarioTest.Harness.Ctx restarted = h.new Ctx(1, p);
    restarted.slots.put(CamuState.class, CamuState.newBuilder().setRound(7).setUnknownFields(UnknownFieldSet
        .newBuilder().addField(11, UnknownFieldSet.Field.newBuilder().addVarint(42).build()).build()).build());
    IllegalStateException e = assertThrows(IllegalStateException.class, restarted.server::start);
    assertEquals("camu: partition 1 saved its ordering state with another version of camu (fields [11] are unknown"
        + " here). Fix: start from an empty data directory", e.getMessage());
  }

  @Test
  void when_theStoreHasTheStateCamuKeptAmongItsKeys_then_theRestartRefusesNamingTheFix() {
    // before the kit's slot, the state was a record under a reserved key in the protocol's keyspace
    Params p = new Params(java.util.Map.of("mode", "tom"));
    Fig33ScenarioTest.Harness h = new Fig33ScenarioTest.Harness(p);
    Fig33ScenarioTest.Harness.Ctx restarted = h.new Ctx(1, p);
    restarted.store.put(CamuServer.OLD_STATE_KEY, Record.newBuilder().setValue(CamuState.newBuilder().setRound(7)
        .build().toByteString()).setTs(7).setTid(-1).build());
    IllegalStateException e = assertThrows(IllegalStateException.class, restarted.server::start);
    assertEquals("camu: partition 1 has ordering state that an earlier camu saved among the store's keys"
        + " (\\u0000camu.state); this camu keeps it in the framework's slot and cannot read it. Fix: start from an"
        + " empty data directory", e.getMessage());
  }
}
