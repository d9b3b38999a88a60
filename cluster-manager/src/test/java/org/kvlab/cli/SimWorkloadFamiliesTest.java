package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.Protocols;
import org.kvlab.check.Result;
import org.kvlab.cli.InProcessCli.Run;
import org.kvlab.history.Operation;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Timeline;
import org.kvlab.sim.TxnWorkload;
import org.kvlab.sim.Workload;
import org.kvlab.workload.TxnFamily;
import org.kvlab.workload.WorkloadChecker;
import org.kvlab.workload.chirper.Chirper;
import org.kvlab.workload.tpcc.Tpcc;

/**
 * Goal: the workload families (Chirper, TPC-C-lite) run in the simulator on a consensus protocol of full replication
 * (M²Paxos, 3 replicas), their invariants hold there, and the run's time series adds up to its operations and counters
 * (issue 33 item 4). Method: one short seed per family through {@link SimRunner}, and the CLI in this JVM.
 */
class SimWorkloadFamiliesTest {
  @TempDir Path dir;

  private static SeedReport run(TxnFamily family, long seed) {
    SimSpec spec = SimSpec.defaults().withTopology(3, 1).withNetwork(NetworkModel.uniform(3, 10)).withTrace(false)
        .withDuration(3_000_000).withSettle(1_000_000).withTimeline(500_000)
        .withWorkload(Workload.defaults().withSessionsPerDc(2).withTxn(Workload.Txns.of(1.0, TxnWorkload.of(family))));
    return SimRunner.run(spec, Protocols.byName("m2paxos"), seed, List.of("strict-serializable",
        WorkloadChecker.NAME));
  }

  private static void judged(SeedReport r, String family) {
    assertTrue(r.ok(), r.checks() + " " + r.result().failures());
    Result w = r.checks().get(r.checks().size() - 1);
    assertFalse(w.vacuous(), w.note());
    assertTrue(w.note().startsWith("checked the invariants of " + family) && w.note().contains("3 reader(s)"),
        w.note());
    long ops = r.result().history().operations().stream().filter(op -> op.type() == Operation.Type.TXN
        && op.txn().request().procedure().startsWith(family + ".")).count();
    assertTrue(ops > 20, "the sessions did work: " + ops + " transactions");
  }

  @Test
  void when_tpccRunsOnM2paxos_then_itsConditionsHold_andTheTimeSeriesAddsUpToTheRun() {
    SeedReport r = run(Tpcc.of(2), 1);
    judged(r, Tpcc.NAME);
    Timeline t = r.result().timeline();
    assertNotNull(t);
    assertEquals(8, t.buckets().size(), "4 s of workload and settle time in buckets of 500 ms");
    long end = 4_000_000;
    long ok = r.result().history().operations().stream().filter(op -> op.ok() && op.completeMicros() < end).count();
    long all = r.result().history().operations().stream().filter(op -> op.completeMicros() < end).count();
    assertEquals(ok, t.totalOk(), "every OK operation before the final reads is in one bucket");
    assertEquals(all, t.buckets().stream().mapToLong(Timeline.Bucket::completed).sum());
    for (String counter : List.of("consensus.delivered", "consensus.slow")) {
      long sum = t.buckets().stream().mapToLong(b -> b.counter(counter)).sum();
      assertTrue(sum > 0 && sum <= r.result().counter(counter), counter + ": " + sum + " of "
          + r.result().counter(counter) + " (the rest at the final reads)");
    }
    String[] csv = t.csv().split("\n");
    assertEquals(9, csv.length);
    assertTrue(csv[0].startsWith("seconds,ok,completed,ok_per_s,") && csv[0].contains("consensus.slow"), csv[0]);
    assertTrue(csv[2].startsWith("0.500,"), csv[2]);
  }

  @Test
  void when_chirperRunsOnM2paxosWithACelebrity_then_itsInvariantsHold() {
    judged(run(Chirper.of(100).withShares(0.3, 0.05).withCelebrityAt(1_000_000), 2), Chirper.NAME);
  }

  @Test
  void when_tpccTouchesMoreKeysThanAMinuteOfFinalReadsCovers_then_epaxosStillFinishesThem() {
    SimSpec spec = SimSpec.defaults().withTopology(3, 1).withNetwork(NetworkModel.uniform(3, 50)).withTrace(false)
        .withDuration(3_000_000).withWorkload(Workload.defaults().withSessionsPerDc(4)
            .withTxn(Workload.Txns.of(1.0, TxnWorkload.of(Tpcc.of(2)))));
    SeedReport r = SimRunner.run(spec, Protocols.byName("epaxos"), 1, List.of(WorkloadChecker.NAME));
    long finalReads = r.result().history().operations().stream().filter(op -> op.type() == Operation.Type.GET).count();
    long lastRead = r.result().history().operations().stream().mapToLong(Operation::completeMicros).max().orElse(0);
    assertTrue(lastRead > 6_000_000 + 60_000_000, "the reads of " + finalReads + " keys in 3 datacenters take more than"
        + " a minute of virtual time at 50 ms RTT: " + lastRead + " µs");
    judged(r, Tpcc.NAME);
  }

  @Test
  void when_simWritesATimeline_then_theCsvAndItsChartAreThere_andTheWorkloadCheckIsAdded() throws Exception {
    Path csv = dir.resolve("tpcc.csv");
    Run r = InProcessCli.run("sim", "--protocol", "m2paxos", "--seeds", "3", "--duration", "2s", "--rtt", "10ms",
        "--txn-workload", "tpcc", "--warehouses", "3", "--timeline", csv.toString(), "--jobs", "1");
    assertEquals(Main.OK, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("checks: workload"), "the default check with a family: " + r.out());
    assertTrue(Files.readString(csv).startsWith("seconds,ok,completed,ok_per_s"), Files.readString(csv));
    assertTrue(Files.size(dir.resolve("tpcc.png")) > 1000, "the chart");
  }

  @Test
  void when_familyOptionsAreWrong_then_simRefusesThemWithTheFix() {
    Run zero = InProcessCli.run("sim", "--protocol", "m2paxos", "--seeds", "1", "--txn-workload", "tpcc",
        "--warehouses", "0");
    assertEquals(Main.USAGE, zero.code());
    assertTrue(zero.err().contains("--warehouses") && zero.err().contains("from 1 to 1,000"), zero.err());
    Run shares = InProcessCli.run("sim", "--protocol", "m2paxos", "--seeds", "1", "--txn-workload", "chirper",
        "--post-share", "0.9", "--follow-share", "0.5");
    assertEquals(Main.USAGE, shares.code());
    assertTrue(shares.err().contains("add up to more than 1") && shares.err().contains("Fix:"), shares.err());
    Run stray = InProcessCli.run("sim", "--protocol", "m2paxos", "--seeds", "1", "--txn-workload", "tpcc",
        "--users", "50");
    assertEquals(Main.USAGE, stray.code());
    assertTrue(stray.err().contains("--users applies to --txn-workload chirper") && stray.err().contains("Fix:"),
        stray.err());
    Run seeds = InProcessCli.run("sim", "--protocol", "m2paxos", "--seeds", "1..2", "--txn-workload", "chirper",
        "--timeline", dir.resolve("x.csv").toString());
    assertEquals(Main.USAGE, seeds.code());
    assertTrue(seeds.err().contains("--timeline") && seeds.err().contains("Fix:"), seeds.err());
  }
}
