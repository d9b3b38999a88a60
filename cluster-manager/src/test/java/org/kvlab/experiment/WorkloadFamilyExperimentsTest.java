package org.kvlab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Goal: the example experiments of the workload families (experiments/m2paxos-tpcc.yaml, epaxos-chirper.yaml,
 * conveyorbelt-micro-3dc.yaml) load,
 * pass their family properties to YCSB as they are, and stay small enough to run locally.
 */
class WorkloadFamilyExperimentsTest {
  @Test
  void when_theFamilyExperimentsLoad_then_theyDrawEveryTransactionFromTheirFamily() throws Exception {
    for (String[] e : new String[][] {{"m2paxos-tpcc", "m2paxos", "tpcc"}, {"epaxos-chirper", "epaxos", "chirper"},
        {"conveyorbelt-micro-3dc", "conveyorbelt", "micro"}}) {
      Experiment x = ExperimentLoader.load(ExperimentLoaderTest.REPO.resolve("experiments/" + e[0] + ".yaml"),
          List.of("m2paxos", "epaxos", "conveyorbelt"));
      assertEquals(List.of(e[1]), x.protocols());
      assertEquals(e[2], x.workload().get("kvlab.txnworkload"));
      assertEquals("1", x.workload().get("txproportion"));
      assertEquals(e[2].equals("micro") ? 3 : 1, x.runs().size(), "micro: one run per local share");
      assertTrue(x.duration().toSeconds() <= 20, e[0] + " stays short");
    }
  }
}
