package org.kvlab.protocols.m2paxos;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.history.Operation;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;

class M2PaxosDebugTest {
  @Test
  void debug() {
    long seed = Long.getLong("seed", 50);
    Observed obs = Observed.of(new M2Paxos());
    SeedReport r = SimRunner.run(M2PaxosCheckedSimTest.spec(System.getProperty("leader", "none"),
        Boolean.getBoolean("txn")), obs, seed, List.of());
    System.out.println("faults " + r.result().faults());
    System.out.println("counters " + r.result().counters());
    for (Operation op : r.result().history().operations()) {
      System.out.println(op);
    }
    obs.live.forEach((d, sv) -> System.out.println("  dc" + d + ": " + sv.blocked()));
  }
}
