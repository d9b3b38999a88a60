package org.kvlab.protocols.epaxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Params;
import org.kvlab.check.txn.SerializabilityChecker;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.TxnWorkload;
import org.kvlab.sim.Workload;

/**
 * The order of execution itself: every replica records, per key, the commands it executed on that key (reads and
 * writes, multi-key transactions under each of their keys); for every key the replicas' sequences must be prefixes
 * of one another (one order, some replicas behind), hold no command twice (a restarted replica does not execute
 * again what its durable map says it executed), and at the end of the run be equal for most keys. 3 replicas, and 5
 * with thrifty PreAccept (fast quorum 4), under partitions, crashes and slow nodes, list-append transactions of 1 to
 * 3 keys (strictly serializable too).
 */
class EPaxosExecutionOrderTest {

  /** Per replica (datacenter), per key, the ids of the commands executed there, in order. */
  static final class Log {
    final Map<Integer, Map<String, List<String>>> byReplica = new TreeMap<>();

    EPaxosServer server() {
      return new EPaxosServer() {
        @Override
        public void execute(Instance e) {
          super.execute(e);
          Map<String, List<String>> mine = byReplica.computeIfAbsent(dc(), d -> new TreeMap<>());
          for (String k : e.getCmd().getKeysList()) {
            mine.computeIfAbsent(k, x -> new ArrayList<>()).add(e.getCmd().getId());
          }
        }
      };
    }
  }

  static SimSpec spec(int replicas, boolean thrifty) {
    SimSpec s = SimSpec.defaults().withTopology(replicas, 1).withFaultKinds(Set.of("partition", "crash", "slow"))
        .withParams(new Params(Map.of("thrifty", Boolean.toString(thrifty)))).withDuration(2_000_000)
        .withTrace(false);
    return s.withWorkload(s.workload().withKeys(4).withTxn(Workload.Txns.of(1.0, TxnWorkload.of("list-append")
        .withLength(1, 3))));
  }

  @Test
  void when_3ReplicasRunWithFaults_then_everyKeyExecutesInOneOrderEverywhere() {
    seeds(spec(3, false), 3, 20);
  }

  @Test
  void when_5ThriftyReplicasRunWithFaults_then_everyKeyExecutesInOneOrderEverywhere() {
    seeds(spec(5, true), 5, 10);
  }

  private static void seeds(SimSpec spec, int replicas, int count) {
    int equalAtEnd = 0;
    int keys = 0;
    for (long seed = 1; seed <= count; seed++) {
      Log log = new Log();
      SeedReport r = SimRunner.run(spec, new Variant("epaxos-recorded", log::server), seed,
          List.of(SerializabilityChecker.STRICT));
      assertTrue(r.ok(), () -> "seed " + r.seed() + ": " + r.checks() + " " + r.result().failures());
      assertTrue(r.checks().stream().noneMatch(c -> c.vacuous()), () -> "seed " + r.seed() + ": " + r.checks());
      assertEquals(replicas, log.byReplica.size(), "seed " + seed + ": every replica executed commands");
      Map<String, List<List<String>>> byKey = new TreeMap<>();
      log.byReplica.values().forEach(m -> m.forEach((k, seq) -> byKey.computeIfAbsent(k, x -> new ArrayList<>())
          .add(seq)));
      for (Map.Entry<String, List<List<String>>> k : byKey.entrySet()) {
        List<String> longest = k.getValue().stream().max((a, b) -> a.size() - b.size()).orElseThrow();
        assertEquals(longest.size(), Set.copyOf(longest).size(), "seed " + seed + " key " + k.getKey()
            + ": a command executed twice");
        for (List<String> seq : k.getValue()) {
          assertEquals(longest.subList(0, seq.size()), seq, "seed " + seed + " key " + k.getKey()
              + ": two replicas executed its commands in different orders");
        }
        keys++;
        equalAtEnd += k.getValue().size() == replicas && k.getValue().stream().allMatch(s -> s.size()
            == longest.size()) ? 1 : 0;
      }
    }
    assertTrue(equalAtEnd * 10 >= keys * 9, "replicas ended with the same sequences on only " + equalAtEnd + " of "
        + keys + " keys");
  }
}
