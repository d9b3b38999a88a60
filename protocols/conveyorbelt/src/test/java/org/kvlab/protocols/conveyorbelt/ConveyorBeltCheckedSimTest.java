package org.kvlab.protocols.conveyorbelt;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Params;
import org.kvlab.api.Protocol;
import org.kvlab.history.Operation;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.TxnWorkload;
import org.kvlab.sim.Workload;

/**
 * The Conveyor Belt under the simulator's faults: partitions between datacenters, crashes with a restart from the
 * store (durability sync: the token in the kit's durable slot survives), a slow server. 3 datacenters x 1 server,
 * 50 ms RTT, 3 simulated seconds a seed (faults in the first 2.4), then final reads. The online store (its operations
 * file: create and addToCart local by cart, order global, browseCatalog commutative) keeps the store's invariants
 * and its replicated state (stock, orders) converges; list-append transactions (undeclared, so global) are
 * serializable; GET and PUT (global too) linearizable and every key converges.
 */
class ConveyorBeltCheckedSimTest {
  static final Set<String> FAULTS = Set.of("partition", "crash", "slow");
  static final String REPLAY = "./kvlab sim --protocol conveyorbelt --datacenters 3 --partitions 1 --keys 5"
      + " --duration 3s --faults partition,crash,slow";

  static SimSpec spec(String workload, Map<String, String> params) {
    SimSpec s = SimSpec.defaults().withTopology(3, 1).withNetwork(NetworkModel.uniform(3, 50))
        .withParams(new Params(params)).withDuration(3_000_000).withSettle(3_000_000).withTrace(false)
        .withFaultKinds(FAULTS);
    return s.withWorkload(s.workload().withKeys(5).withTxn(Workload.Txns.of(1.0, TxnWorkload.of(workload))));
  }

  /**
   * Runs seeds 1..count; each must pass {@code checks}. Returns the OK operations per seed (0 where a check judged
   * nothing: no order, no final read).
   */
  static long[] seeds(SimSpec spec, Supplier<Protocol> protocol, int count, List<String> checks, String replay) {
    long[] ok = new long[count];
    for (int i = 0; i < count; i++) {
      long seed = i + 1;
      SeedReport r = SimRunner.run(spec, protocol.get(), seed, checks);
      assertTrue(r.ok(), () -> "seed " + seed + " (replay: " + REPLAY + " " + replay + " --seeds " + seed + "): "
          + r.checks() + " " + r.result().failures());
      assertTrue(r.result().counter("cb.templateViolations") == 0, "seed " + seed + ": undeclared keys");
      boolean judged = r.checks().stream().noneMatch(c -> c.vacuous());
      ok[i] = judged ? r.result().history().operations().stream().filter(Operation::ok).count() : 0;
    }
    return ok;
  }

  /** At least 9 seeds in 10 complete {@code floor} operations. */
  static void mostWorked(long[] ok, long floor) {
    long worked = Arrays.stream(ok).filter(x -> x >= floor).count();
    assertTrue(worked * 10 >= ok.length * 9, "only " + worked + " of " + ok.length + " seeds completed " + floor
        + " operations: " + Arrays.toString(ok));
  }

  @Test
  void when_theOnlineStoreRunsUnderFaults_then_200SeedsKeepTheInvariantsAndTheReplicatedStateConverges() {
    mostWorked(seeds(spec("store", Map.of()), ConveyorBelt::new, 200, List.of("store"),
        "--txn-workload store --check store"), 20);
  }

  @Test
  void when_listAppendRunsUnderFaults_then_200SeedsAreSerializable() {
    mostWorked(seeds(spec("list-append", Map.of()), ConveyorBelt::new, 200, List.of("serializable"),
        "--txn-workload list-append --check serializable"), 10);
  }

  /** GET and PUT (undeclared, so global: executed in token order at the session's server) converge, linearizably. */
  @Test
  void when_getsAndPutsRunUnderFaults_then_200SeedsAreLinearizableAndConverge() {
    SimSpec s = spec("list-append", Map.of());
    s = s.withWorkload(s.workload().withTxn(Workload.Txns.NONE));
    mostWorked(seeds(s, ConveyorBelt::new, 200, List.of("linearizable", "convergence"),
        "--check linearizable,convergence"), 20);
  }

  @Test
  void when_clientsSendToTheirOwnServer_then_redirectsKeepTheStoreCorrect() {
    SimSpec s = spec("store", Map.of("routing", "server"));
    long[] ok = seeds(s, ConveyorBelt::new, 20, List.of("store"), "--txn-workload store --check store"
        + " --param routing=server");
    mostWorked(ok, 20);
    SeedReport r = SimRunner.run(s, new ConveyorBelt(), 1, List.of("store"));
    assertTrue(r.result().counter("cb.redirects") > 0, "no redirect counted");
    assertTrue(r.result().counter("cb.local") > 0 && r.result().counter("cb.global") > 0
        && r.result().counter("cb.commutative") > 0 && r.result().counter("cb.tokenRounds") > 0,
        r.result().counters().toString());
  }
}
