package org.kvlab.protocols.dynastar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Params;
import org.kvlab.history.Operation;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.TxnWorkload;
import org.kvlab.sim.Workload;

/**
 * DynaStar under the simulator's faults (crashes with a restart from the durable state, network partitions, slow
 * servers; durability sync): 3 data partitions and the oracle, 12 keys, list-append transactions over 1 to 4 keys,
 * the initial placement random and the oracle repartitioning every 300 ms, so plans move variables while commands
 * borrow them. Every seed must be strictly serializable, and once the run is quiet every key held by exactly one
 * partition (the location invariant, checked from outside over the partitions' state).
 */
class DynaStarCheckedSimTest {
  static final Set<String> FAULTS = Set.of("crash", "partition", "slow");
  static final int KEYS = 12;

  static SimSpec spec(String extra, Set<String> faults) {
    Map<String, String> p = new HashMap<>(Map.of("placement", "random", "repartitionEvery", "300ms",
        "hintEvery", "50ms", "partitioner", "greedy"));
    for (String kv : extra.isEmpty() ? new String[0] : extra.split(",")) {
      String[] a = kv.split("=", 2);
      p.put(a[0], a[1]);
    }
    Workload w = Workload.defaults().withKeys(KEYS).withSessionsPerDc(6).withThinkMicros(2_000)
        .withTxn(Workload.Txns.of(1.0, TxnWorkload.of("list-append")));
    return SimSpec.defaults().withTopology(1, 4).withNetwork(NetworkModel.uniform(1, 2)).withParams(new Params(p))
        .withWorkload(w).withFaultKinds(faults).withDuration(2_000_000).withSettle(3_000_000).withTrace(false);
  }

  static List<String> keys() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      out.add("k" + i);
    }
    return out;
  }

  /** Seeds 1..count; each strictly serializable with the location invariant; returns the OK operations per seed. */
  static long[] seeds(SimSpec spec, int count) {
    long[] ok = new long[count];
    int located = 0;
    for (int i = 0; i < count; i++) {
      long seed = i + 1;
      Watched w = new Watched();
      SeedReport r = SimRunner.run(spec, w, seed, List.of("strict-serializable"));
      assertTrue(r.ok(), () -> "seed " + seed + ": " + r.checks() + " " + r.result().failures());
      List<String> bad = w.locationViolations(keys());
      if (bad != null) {
        located++;
        assertEquals(List.of(), bad, "seed " + seed + ": the location invariant");
      }
      ok[i] = r.result().history().operations().stream().filter(Operation::ok).count();
    }
    assertTrue(located * 10 >= count * 9, "only " + located + " of " + count + " seeds ended quiet");
    return ok;
  }

  @Test
  void when_noFaults_then_seedsAreStrictlySerializableAndRepartition() {
    SimSpec s = spec("", Set.of());
    long plans = 0;
    for (long seed = 1; seed <= 5; seed++) {
      SeedReport r = SimRunner.run(s, new DynaStar(), seed, List.of("strict-serializable"));
      assertTrue(r.ok(), () -> r.checks() + " " + r.result().failures());
      plans += r.result().counter("dynastar.plans");
      assertTrue(r.result().counter("dynastar.multiPartition") > 0, "no multi-partition command");
    }
    assertTrue(plans > 0, "no plan in 5 seeds");
  }
}
