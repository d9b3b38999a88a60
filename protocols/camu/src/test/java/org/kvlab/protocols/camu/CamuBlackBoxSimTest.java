package org.kvlab.protocols.camu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.check.Result;
import org.kvlab.check.txn.BankChecker;
import org.kvlab.check.txn.SerializabilityChecker;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.TxnWorkload;
import org.kvlab.sim.Workload;

/**
 * CaMu judged by what its clients saw, without its own ordering metadata: the list-append, rw-register and bank
 * workloads under the same faults as {@link CamuCheckedSimTest}, each seed checked by the black-box
 * {@code serializable} checker (and {@code bank}); and the mutant that executes before the MEC gate, which it must
 * catch from the history alone.
 */
class CamuBlackBoxSimTest {
  private static SimSpec spec(String mode, String partner, int parts, String extra, TxnWorkload w) {
    SimSpec s = CamuCheckedSimTest.spec(mode, partner, parts, extra);
    return s.withWorkload(s.workload().withTxn(Workload.Txns.of(1.0, w)));
  }

  private static final TxnWorkload APPEND = TxnWorkload.of("list-append").withLength(1, 4).withLocality(0.5);

  /** Runs seeds 1..count; each must pass {@code checks}; returns how many checked at least one transaction. */
  private static int seeds(SimSpec spec, int count, List<String> checks) {
    int judged = 0;
    for (long seed = 1; seed <= count; seed++) {
      SeedReport r = SimRunner.run(spec, new Camu(), seed, checks);
      assertTrue(r.ok(), () -> "seed " + r.seed() + ": " + r.checks() + " " + r.result().failures());
      judged += r.checks().stream().allMatch(c -> !c.vacuous()) ? 1 : 0;
    }
    return judged;
  }

  private static void mostJudged(int judged, int count) {
    assertTrue(judged * 20 >= count * 19, "only " + judged + " of " + count + " seeds checked a transaction");
  }

  @Test
  void when_everyLinkIsPb_then_200FaultySeedsOfListAppendAreSerializable() {
    mostJudged(seeds(spec("pb", "uniform", 2, "", APPEND), 200, List.of(SerializabilityChecker.SERIALIZABLE)), 200);
  }

  @Test
  void when_everyLinkIsTom_then_200FaultySeedsOfListAppendAreSerializable() {
    mostJudged(seeds(spec("tom", "uniform", 2, "", APPEND), 200, List.of(SerializabilityChecker.SERIALIZABLE)), 200);
  }

  @Test
  void when_camuIsHybridWithZipfPartners_then_200FaultySeedsOfListAppendAreSerializable() {
    mostJudged(seeds(spec("camu", "zipf", 3, "", APPEND), 200, List.of(SerializabilityChecker.SERIALIZABLE)), 200);
  }

  @Test
  void when_linksSwitchOrTheAdaptiveRuleRuns_then_100FaultySeedsEachOfListAppendAreSerializable() {
    mostJudged(seeds(spec("camu", "uniform", 3, "switches=20:0-2:pb;25:0-1:tom;40:1-3:pb;50:1-2:tom;90:0-2:tom",
        APPEND), 100, List.of(SerializabilityChecker.SERIALIZABLE)), 100);
    mostJudged(seeds(spec("camu", "zipf", 2, "adaptive=true,adaptiveWindow=10,adaptiveHigh=30,adaptiveLow=5",
        APPEND), 100, List.of(SerializabilityChecker.SERIALIZABLE)), 100);
  }

  @Test
  void when_camuIsHybrid_then_100FaultySeedsOfListAppendAreAlsoStrictlySerializable() {
    mostJudged(seeds(spec("camu", "zipf", 3, "", APPEND), 100, List.of(SerializabilityChecker.STRICT)), 100);
  }

  @Test
  void when_rwRegisterBankAndTheOriginalWorkloadsRun_then_serializableAndTheBankTotalHolds() {
    mostJudged(seeds(spec("camu", "zipf", 3, "", TxnWorkload.of("rw-register").withDistribution("zipfian")), 50,
        List.of(SerializabilityChecker.SERIALIZABLE)), 50);
    mostJudged(seeds(spec("camu", "zipf", 3, "", TxnWorkload.of("bank").withReadShare(0.3)), 50,
        List.of(BankChecker.NAME)), 50);
    // CamuCheckedSimTest's own workload: reads and unique writes of the same keys, a fifth add(1) procedures (left
    // out by the black-box checker, their keys opaque)
    mostJudged(seeds(CamuCheckedSimTest.spec("camu", "zipf", 3, ""), 50, List.of(SerializabilityChecker.SERIALIZABLE,
        SerializabilityChecker.STRICT)), 50);
  }

  @Test
  void when_aPartitionExecutesBeforeTheMecGate_then_theBlackBoxCheckerCatchesIt() {
    SimSpec mutant = spec("camu", "uniform", 2, "mutant=execute-before-mec-gate", APPEND);
    Result caught = null;
    for (long seed = 1; seed <= 20 && caught == null; seed++) {
      Result c = SimRunner.run(mutant, new Camu(), seed, List.of(SerializabilityChecker.SERIALIZABLE)).checks()
          .get(0);
      caught = c.valid() ? null : c;
    }
    assertTrue(caught != null, "executing before the MEC gate must produce an anomaly within 20 seeds");
    assertTrue(caught.violations().stream().anyMatch(v -> v.kind().equals(SerializabilityChecker.LOST_UPDATE)),
        caught.violations().toString());
  }
}
