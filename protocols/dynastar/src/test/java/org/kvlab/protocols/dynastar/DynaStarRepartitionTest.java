package org.kvlab.protocols.dynastar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.Params;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.TxnWorkload;
import org.kvlab.sim.Workload;

/**
 * What repartitioning is for: a workload with planted groups (every list-append transaction draws its 2 or 3 keys
 * from one group: the keys the topology's hash puts in the session's home partition, the simulator's locality 1)
 * starts from a random placement that scatters the groups over the 3 data partitions; the oracle's plan brings each
 * group together, so the share of multi-partition commands falls. And a placement file puts keys where it says.
 */
class DynaStarRepartitionTest {
  static final int KEYS = 24;

  static SimSpec spec(Map<String, String> params) {
    Workload w = Workload.defaults().withKeys(KEYS).withSessionsPerDc(8).withThinkMicros(2_000)
        .withTxn(Workload.Txns.of(1.0, TxnWorkload.of("list-append").withLength(2, 3).withLocality(1.0)));
    return SimSpec.defaults().withTopology(1, 4).withNetwork(NetworkModel.uniform(1, 2)).withParams(new Params(params))
        .withWorkload(w).withFaultKinds(Set.of()).withDuration(3_000_000).withSettle(1_000_000).withTrace(false);
  }

  /** Multi-partition commands over all executed, summed over seeds 1..3. */
  static double multiShare(Map<String, String> params, long[] plans) {
    long multi = 0;
    long all = 0;
    for (long seed = 1; seed <= 3; seed++) {
      SeedReport r = SimRunner.run(spec(params), new DynaStar(), seed, List.of("strict-serializable"));
      assertTrue(r.ok(), () -> r.checks() + " " + r.result().failures());
      SimResult res = r.result();
      multi += res.counter("dynastar.multiPartition");
      all += res.counter("dynastar.multiPartition") + res.counter("dynastar.singlePartition");
      plans[0] += res.counter("dynastar.plans");
    }
    assertTrue(all > 1000, "too few commands executed: " + all);
    return multi / (double) all;
  }

  @Test
  void when_theOracleRepartitionsPlantedGroups_then_theShareOfMultiPartitionCommandsFalls() {
    long[] none = new long[1];
    double fixed = multiShare(Map.of("placement", "random", "repartitionEvery", "0", "partitioner", "greedy"), none);
    long[] plans = new long[1];
    double moving = multiShare(Map.of("placement", "random", "repartitionEvery", "300ms", "hintEvery", "50ms",
        "partitioner", "greedy"), plans);
    assertEquals(0, none[0], "repartitionEvery=0 never repartitions");
    assertTrue(plans[0] >= 3, "at least one plan per seed: " + plans[0]);
    assertTrue(fixed > 0.4, "a random placement scatters the groups: multi-partition share " + fixed);
    assertTrue(moving < fixed / 2, "repartitioning must at least halve the multi-partition share: " + fixed + " -> "
        + moving);
  }

  @Test
  void when_thePartitionerTakesTime_then_theOraclesPlanComesWhenItsResultDoes_andTheRunStaysCorrect() {
    Map<String, String> params = Map.of("placement", "random", "repartitionEvery", "1s", "hintEvery", "50ms",
        "partitioner", "greedy");
    SimSpec spec = spec(params).withDuration(2_500_000).withTimeline(100_000);
    double at = firstPlan(spec);
    assertEquals(1.0, at, 1e-9, "no duration: the result is the next event, in the timer's bucket");
    double late = firstPlan(spec.withServiceTime(org.kvlab.sim.ServiceTime.of(0).withOffload(700_000)));
    assertEquals(1.7, late, 1e-9, "computed off the loop for 700 ms of virtual time: the plan 700 ms later");
  }

  /** The start (s) of the first bucket where seed 1's oracle issued a plan; the seed must pass strict-serializable. */
  private static double firstPlan(SimSpec spec) {
    SeedReport r = SimRunner.run(spec, new DynaStar(), 1, List.of("strict-serializable"));
    assertTrue(r.ok(), () -> r.checks() + " " + r.result().failures());
    return r.result().timeline().buckets().stream().filter(b -> b.counter("dynastar.plans") > 0)
        .mapToDouble(b -> b.startMicros() / 1e6).findFirst().orElseThrow();
  }

  @Test
  void when_aPlacementFileGroupsTheKeys_then_noCommandSpansPartitions(@TempDir Path dir) throws Exception {
    StringBuilder tsv = new StringBuilder();
    org.kvlab.api.Topology topology = new org.kvlab.api.Topology(1, 4);
    for (int i = 0; i < KEYS; i++) {
      // the planted groups are the topology's hash partitions 0..3; the oracle's group (3) joins partition 2
      tsv.append("k").append(i).append('\t').append(Math.min(2, topology.partitionOf("k" + i))).append('\n');
    }
    Path file = dir.resolve("placement.tsv");
    Files.writeString(file, tsv.toString());
    long[] plans = new long[1];
    double share = multiShare(Map.of("placement", "file:" + file, "repartitionEvery", "0"), plans);
    assertEquals(0.0, share, "every transaction's keys are in one group, and each group on one partition");
  }
}
