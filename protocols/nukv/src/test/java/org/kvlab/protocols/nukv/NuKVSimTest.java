package org.kvlab.protocols.nukv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Params;
import org.kvlab.history.Operation;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/** NuKV in the deterministic simulator: 2 datacenters x 2 partitions x 3-replica Raft groups. */
class NuKVSimTest {
  static final SimSpec BASE = SimSpec.defaults().withTopology(2, 2, 3).withDuration(3_000_000);

  static SimSpec levels(String read, String write) {
    return BASE.withParams(new Params(Map.of("readLevel", read, "writeLevel", write)));
  }

  @Test
  void when_noFaults_then_writesCommitReplicateAndTheCheckersPass() {
    SeedReport r = SimRunner.run(levels("mr+ryw", "mw+wfr"), new NuKV(), 1, List.of("convergence", "session"));
    long okPuts = r.result().history().operations().stream()
        .filter(o -> o.type() == Operation.Type.PUT && o.ok()).count();
    long okGets = r.result().history().operations().stream()
        .filter(o -> o.type() == Operation.Type.GET && o.ok()).count();
    assertTrue(okPuts > 100, "puts acknowledged: " + okPuts + " " + r.result().failures());
    assertTrue(okGets > 100, "gets answered: " + okGets);
    assertTrue(r.ok(), () -> r.checks() + " " + r.result().failures());
  }

  @Test
  void when_theSameSeedRunsTwice_then_theHistoryIsTheSame() {
    SeedReport a = SimRunner.run(levels("mr+ryw", "mw+wfr"), new NuKV(), 5, List.of("session"));
    SeedReport b = SimRunner.run(levels("mr+ryw", "mw+wfr"), new NuKV(), 5, List.of("session"));
    assertEquals(a.result().history().operations(), b.result().history().operations());
  }
}
