package org.kvlab.protocols.m2paxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/**
 * The per-object delivery order is the same at every replica (Alg. 5's delivery: next on every object of the
 * command): each replica's sequence of commands delivered on an object, recorded by the {@link Observed} servers
 * across crashes and restarts, is a prefix of every longer one. Multi-key list-append transactions under partitions,
 * crashes and a slow server, for M²Paxos and Multi-Paxos. After the run every replica holds only a few instances:
 * the gossip of LastDecided let each one remove what all had delivered (a few hundred deliveries per seed).
 */
class M2PaxosDeliveryOrderTest {

  private static long check(SimSpec spec, int seeds) {
    long compared = 0;
    for (long seed = 1; seed <= seeds; seed++) {
      Observed obs = Observed.of(new M2Paxos());
      SeedReport r = SimRunner.run(spec, obs, seed, List.of());
      assertEquals(List.of(), r.result().failures(), "seed " + seed);
      for (Map.Entry<String, Map<Integer, List<Long>>> o : obs.deliveries.entrySet()) {
        List<Long> longest = o.getValue().values().stream().max((a, b) -> a.size() - b.size()).orElseThrow();
        for (Map.Entry<Integer, List<Long>> d : o.getValue().entrySet()) {
          long s = seed;
          assertEquals(longest.subList(0, d.getValue().size()), d.getValue(), () -> "seed " + s + ": object "
              + o.getKey() + " delivered in another order at dc" + d.getKey());
          compared += d.getValue().size();
        }
      }
      for (Map.Entry<Integer, M2PaxosServer> s : obs.live.entrySet()) { // truncation: 5 keys, a few instances each
        assertTrue(s.getValue().heldInstances() <= 20, "seed " + seed + ": dc" + s.getKey() + " still holds "
            + s.getValue().heldInstances() + " instances after the run");
      }
    }
    return compared;
  }

  @Test
  void when_transactionsRunUnderFaults_then_everyReplicaDeliversEachObjectsCommandsInOneOrder() {
    long m2 = check(M2PaxosCheckedSimTest.spec("none", true), 30);
    long multi = check(M2PaxosCheckedSimTest.spec("0", true), 10);
    assertTrue(m2 > 30 * 3 * 50 && multi > 10 * 3 * 50, "too few deliveries compared: " + m2 + ", " + multi);
  }
}
