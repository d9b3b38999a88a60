package org.kvlab.protocols.epaxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.kvlab.sim.Fault;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/**
 * Truncation keeps the durable instance map bounded: after runs of hundreds of commands, with and without a
 * crashed replica (which restarts from its map and catches up), each replica's last execution leaves it holding a
 * small fraction of the instances it executed.
 */
class EPaxosTruncationTest {

  /** Per replica: commands executed, and instances held in the map after its last execution. */
  static final class Held {
    final Map<Integer, long[]> byReplica = new TreeMap<>();

    EPaxosServer server() {
      return new EPaxosServer() {
        @Override
        public void execute(Instance e) {
          super.execute(e);
          long[] h = byReplica.computeIfAbsent(dc(), d -> new long[2]);
          h[0]++;
          h[1] = heldInstances();
        }
      };
    }
  }

  @Test
  void when_hundredsOfCommandsExecute_then_eachReplicaHoldsOnlyTheRecentOnes() {
    SimSpec spec = SimSpec.defaults().withTopology(3, 1).withDuration(4_000_000).withTrace(false)
        .withWorkload(SimSpec.defaults().workload().withKeys(5).withSessionsPerDc(4));
    check(spec, 1);
    check(spec.withFaultKinds(Set.of("crash")), 2);
  }

  private static void check(SimSpec spec, long seed) {
    Held held = new Held();
    SeedReport r = SimRunner.run(spec, new Variant("epaxos-held", held::server), seed, List.of("linearizable"));
    assertTrue(r.ok(), () -> r.checks() + " " + r.result().failures());
    assertEquals(3, held.byReplica.size());
    held.byReplica.forEach((dc, h) -> assertTrue(h[0] >= 200 && h[1] * 10 <= h[0], "replica " + dc + " executed "
        + h[0] + " commands and still holds " + h[1] + " instances; faults " + r.result().faults()));
    if (!spec.faultKinds().isEmpty()) {
      assertTrue(r.result().faults().stream().anyMatch(f -> f instanceof Fault.Crash), "seed " + seed
          + " drew no crash: " + r.result().faults());
    }
  }
}
