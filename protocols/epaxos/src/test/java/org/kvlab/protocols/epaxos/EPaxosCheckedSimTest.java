package org.kvlab.protocols.epaxos;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.check.txn.SerializabilityChecker;
import org.kvlab.history.Operation;
import org.kvlab.sim.Fault;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.TxnWorkload;
import org.kvlab.sim.Workload;

/**
 * EPaxos on 3 replicas (3 datacenters x 1 partition, 50 ms WAN RTT) under the simulator's faults: partitions
 * (a cut-off replica's instances wait, then are recovered by Explicit Prepare), slow nodes, crashes with a restart
 * from the durable instance map (durability sync, the default), clock skew (EPaxos reads no clock for safety). The
 * simulator has no message loss of its own under sync: a crashed replica's undelivered messages wait for its
 * restart. GET/PUT seeds are checked linearizable, list-append transaction seeds strictly serializable (the
 * convergence checker compares final reads with PUTs only, so it judges the GET/PUT seeds); each seed must do a
 * share of the work a fault-free run would.
 */
class EPaxosCheckedSimTest {
  static final SimSpec FAULTY = SimSpec.defaults().withTopology(3, 1)
      .withFaultKinds(Set.of("partition", "slow", "crash", "skew"))
      .withWorkload(SimSpec.defaults().workload().withKeys(5)).withDuration(3_000_000).withTrace(false);
  static final SimSpec APPEND = FAULTY.withWorkload(FAULTY.workload()
      .withTxn(Workload.Txns.of(1.0, TxnWorkload.of("list-append").withLength(1, 3))));
  /** A slow-path command waits two WAN round trips (PreAccept, Accept); faults stall sessions up to 2 s. */
  static final int WAN_ROUND_TRIPS = 2;
  static final int SEEDS = 200;

  @Test
  void when_faultsHit200SeedsOfGetsAndPuts_then_everyRunIsLinearizableAndConvergent() {
    Totals t = run(FAULTY, List.of("linearizable", "convergence"));
    assertTrue(t.fast > 0 && t.slow > 0, "both paths taken: " + t);
    assertTrue(t.crashed >= SEEDS / 10 && t.recovered > 0, "crashes restarted from the store and recoveries ran: " + t);
  }

  @Test
  void when_faultsHit200SeedsOfListAppendTransactions_then_everyRunIsStrictlySerializable() {
    Totals t = run(APPEND, List.of(SerializabilityChecker.STRICT));
    assertTrue(t.fast > 0 && t.slow > 0, "both paths taken: " + t);
  }

  record Totals(long fast, long slow, long recovered, long crashed) {}

  private static Totals run(SimSpec spec, List<String> checks) {
    long least = spec.closedLoopOperations(WAN_ROUND_TRIPS) / 5;
    long fast = 0;
    long slow = 0;
    long recovered = 0;
    long crashed = 0;
    for (long seed = 1; seed <= SEEDS; seed++) {
      SeedReport r = SimRunner.run(spec, new EPaxos(), seed, checks);
      assertTrue(r.ok(), () -> "seed " + r.seed() + " (replay: ./kvlab sim --protocol epaxos --datacenters 3"
          + " --partitions 1 --seeds " + r.seed() + " ...): " + r.checks() + " " + r.result().failures());
      assertTrue(r.checks().stream().noneMatch(c -> c.vacuous()), () -> "seed " + r.seed() + " checked nothing: "
          + r.checks());
      long ok = r.result().history().operations().stream().filter(Operation::ok).count();
      long s = seed;
      assertTrue(ok >= least, () -> "seed " + s + " did little work: " + ok + " operations OK, fewer than " + least);
      fast += r.result().counter("consensus.fast");
      slow += r.result().counter("consensus.slow");
      recovered += r.result().counter("epaxos.recovered");
      crashed += r.result().faults().stream().anyMatch(f -> f instanceof Fault.Crash) ? 1 : 0;
    }
    return new Totals(fast, slow, recovered, crashed);
  }
}
