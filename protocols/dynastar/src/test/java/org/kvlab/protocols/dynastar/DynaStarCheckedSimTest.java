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
import org.kvlab.consensus.multicast.MulticastChecker;
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
 * the initial placement random and the oracle repartitioning every 300 ms whenever the plan moves anything
 * ({@code planGain=0}), so plans move variables while commands borrow them. Every seed must be strictly serializable, and once the run is quiet every key held by exactly one
 * partition (the location invariant, checked from outside over the partitions' state).
 */
class DynaStarCheckedSimTest {
  /** partition is drawn only between datacenters, and DynaStar runs in one: crashes, slow servers and skew act. */
  static final Set<String> FAULTS = Set.of("crash", "partition", "slow", "skew");
  static final int KEYS = 12;
  static final String REPLAY = "./kvlab sim --protocol dynastar --txn-workload list-append --check strict-serializable"
      + " --duration 2s --sessions 6 --keys 12 --rtt 2ms --faults crash,partition,slow,skew --param placement=random"
      + " --param repartitionEvery=300ms --param partitioner=greedy --param hintEvery=50ms --param planGain=0";

  static SimSpec spec(String extra, Set<String> faults) {
    Map<String, String> p = new HashMap<>(Map.of("placement", "random", "repartitionEvery", "300ms",
        "hintEvery", "50ms", "partitioner", "greedy", "planGain", "0"));
    for (String kv : extra.isEmpty() ? new String[0] : extra.split(",")) {
      String[] a = kv.split("=", 2);
      p.put(a[0], a[1]);
    }
    return SimSpec.defaults().withTopology(1, 4).withNetwork(NetworkModel.uniform(1, 2)).withParams(new Params(p))
        .withWorkload(workload(6)).withFaultKinds(faults).withDuration(2_000_000).withSettle(3_000_000)
        .withTrace(false);
  }

  /** List-append transactions over the 12 keys, {@code sessions} per datacenter. */
  static Workload workload(int sessions) {
    return Workload.defaults().withKeys(KEYS).withSessionsPerDc(sessions).withThinkMicros(2_000)
        .withTxn(Workload.Txns.of(1.0, TxnWorkload.of("list-append")));
  }

  static List<String> keys() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      out.add("k" + i);
    }
    return out;
  }

  /** What the seeds of {@link #seeds} did, summed. */
  record Totals(long ok, long multi, long single, long plans, long retries, long recovered, long queries) {}

  /**
   * Seeds 1..count: each strictly serializable, its multicast (commands and plans) passing the consensus module's
   * multicast checker, and, once quiet, every key held by exactly one partition.
   */
  static Totals seeds(SimSpec spec, int count) {
    long[] t = new long[7];
    int quiet = 0;
    for (int i = 0; i < count; i++) {
      long seed = i + 1;
      Watched w = new Watched();
      SeedReport r = SimRunner.run(spec, w, seed, List.of("strict-serializable"));
      assertTrue(r.ok(), () -> "seed " + seed + " (replay: " + REPLAY + " --seeds " + seed + "): " + r.checks() + " "
          + r.result().failures());
      List<String> bad = w.locationViolations(keys());
      if (bad != null) {
        quiet++;
        assertEquals(List.of(), bad, "seed " + seed + ": the location invariant");
      }
      assertEquals(List.of(), MulticastChecker.check(w.log, bad != null), "seed " + seed + ": the multicast");
      t[0] += r.result().history().operations().stream().filter(Operation::ok).count();
      t[1] += r.result().counter("dynastar.multiPartition");
      t[2] += r.result().counter("dynastar.singlePartition");
      t[3] += r.result().counter("dynastar.plans");
      t[4] += r.result().counter("dynastar.retries");
      t[5] += r.result().counter("dynastar.recovered");
      t[6] += r.result().counter("dynastar.oracleQueries");
    }
    assertTrue(quiet * 10 >= count * 9, "only " + quiet + " of " + count + " seeds ended quiet");
    return new Totals(t[0], t[1], t[2], t[3], t[4], t[5], t[6]);
  }

  @Test
  void when_200SeedsRunWithCrashesAndSlowServersWhileRepartitioning_then_allAreStrictlySerializableAndLocated() {
    Totals t = seeds(spec("", FAULTS), 200);
    assertTrue(t.ok() >= 200 * 300, "few operations completed: " + t);
    assertTrue(t.multi() > 0 && t.single() > 0, "both kinds of command: " + t);
    assertTrue(t.plans() >= 200, "plans moved variables in most seeds: " + t);
    assertTrue(t.retries() > 0, "clients with stale caches were told to retry: " + t);
    assertTrue(t.recovered() >= 100, "crashed servers recovered from their saved state: " + t);
  }

  @Test
  void when_clientsOnlyGetAndPutUnderFaults_then_50SeedsAreLinearizableAndTheOracleMakesNoPlan() {
    // single-key commands give the workload graph no edge: nothing to partition (gpmetis refuses such a graph, so
    // the oracle must not ask it); partitioner auto runs METIS where it is installed
    Map<String, String> p = Map.of("repartitionEvery", "300ms", "hintEvery", "50ms", "partitioner", "auto");
    SimSpec s = spec("", FAULTS).withParams(new Params(p)).withWorkload(Workload.defaults().withKeys(KEYS)
        .withSessionsPerDc(4).withThinkMicros(2_000));
    for (long seed = 1; seed <= 50; seed++) {
      SeedReport r = SimRunner.run(s, new DynaStar(), seed, List.of("linearizable", "convergence"));
      long n = seed;
      assertTrue(r.ok(), () -> "seed " + n + ": " + r.checks() + " " + r.result().failures());
      assertEquals(0, r.result().counter("dynastar.plans"), "seed " + seed + ": a plan without co-accessed keys");
      assertEquals(0, r.result().counter("dynastar.multiPartition"), "seed " + seed);
    }
  }
}
