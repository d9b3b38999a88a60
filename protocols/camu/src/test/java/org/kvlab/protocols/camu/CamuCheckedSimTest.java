package org.kvlab.protocols.camu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Params;
import org.kvlab.check.Result;
import org.kvlab.check.TxnChecker;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Workload;

/**
 * CaMu's three modes, and the hybrid across scripted link switches and the adaptive rule, under the simulator's
 * faults (crashes with restart, slow nodes, clock skew; durability sync), each seed checked by the txn checker. A
 * crashed partition restarts from the ordering state it saved in its slot (docs/protocols.md#camu-crash-recovery). Plus the mutant that executes before the MEC gate, which the checker must catch.
 */
class CamuCheckedSimTest {
  static SimSpec spec(String mode, String partner, int parts, String extra) {
    return spec(mode, partner, parts, extra, 6);
  }

  static SimSpec spec(String mode, String partner, int parts, String extra, int sessions) {
    Map<String, String> p = new java.util.HashMap<>(Map.of("mode", mode, "round", "2ms", "pbPartners", "1"));
    if (!extra.isEmpty()) {
      for (String kv : extra.split(",")) {
        String[] a = kv.split("=", 2);
        p.put(a[0], a[1]);
      }
    }
    Workload w = Workload.defaults().withKeys(40).withSessionsPerDc(sessions).withThinkMicros(1_000)
        .withTxn(new Workload.Txns(1.0, parts, partner, 2, 1, 0.2));
    return SimSpec.defaults().withTopology(1, 5).withNetwork(NetworkModel.uniform(1, 1)).withParams(new Params(p))
        .withWorkload(w).withFaultKinds(Set.of("slow", "skew", "crash")).withDuration(400_000).withSettle(1_000_000)
        .withTrace(false);
  }

  /**
   * Runs the seeds and asserts each passes the txn checker. Returns, per seed, {links switched to PB, to TOM,
   * partition restarts recovered from the saved state, 1 if no transaction completed OK, results that reached a
   * restarted coordinator}. A seed may end with no transaction OK only when a crash lost every session's request
   * (a lost request is answered by the client's 2 s timeout, after the 0.4 s run): at most 5% of the seeds, and
   * never without a crash.
   */
  static List<long[]> seeds(SimSpec spec, int count) {
    List<long[]> out = new java.util.ArrayList<>();
    for (long seed = 1; seed <= count; seed++) {
      SeedReport r = SimRunner.run(spec, new Camu(), seed, List.of(TxnChecker.NAME));
      assertTrue(r.ok(), () -> "seed " + r.seed() + ": " + r.checks() + " " + r.result().failures());
      Result c = r.checks().get(0);
      boolean crashed = r.result().faults().stream().anyMatch(f -> f instanceof org.kvlab.sim.Fault.Crash);
      long seedNo = seed;
      assertTrue(!c.vacuous() || crashed, () -> "seed " + seedNo + ": no transaction completed: " + c.note());
      out.add(new long[] {r.result().counter("camu.switched.toPb"), r.result().counter("camu.switched.toTom"),
          r.result().counter("camu.recovered"), c.vacuous() ? 1 : 0,
          r.result().counter("camu.resultsOfCrashedCoordinator")});
    }
    assertEquals(count, out.size());
    long vacuous = out.stream().filter(s -> s[3] == 1).count();
    assertTrue(vacuous * 20 <= count, vacuous + " of " + count + " seeds completed no transaction");
    long recovered = out.stream().filter(s -> s[2] > 0).count();
    assertTrue(recovered * 2 >= count, "only " + recovered + " of " + count + " seeds restarted a crashed partition");
    assertTrue(out.stream().anyMatch(s -> s[4] > 0), "no seed had a transaction outlive its crashed coordinator");
    return out;
  }

  @Test
  void when_everyLinkIsPb_then_200FaultySeedsPassTheTxnChecker() {
    assertTrue(seeds(spec("pb", "uniform", 2, ""), 200).stream().allMatch(s -> s[0] == 0 && s[1] == 0),
        "no switch without a script or the adaptive rule");
  }

  @Test
  void when_everyLinkIsTom_then_200FaultySeedsPassTheTxnChecker() {
    seeds(spec("tom", "uniform", 2, ""), 200);
  }

  @Test
  void when_camuIsHybridWithZipfPartners_then_200FaultySeedsPassTheTxnChecker() {
    seeds(spec("camu", "zipf", 3, ""), 200);
  }

  @Test
  void when_linksSwitchBothWaysDuringTheRun_then_200FaultySeedsPassTheTxnChecker() {
    // 0-2 and 1-3 start TOM and go PB; 0-1 and 1-2 start PB and go TOM; then 0-2 goes back to TOM
    List<long[]> sw = seeds(spec("camu", "uniform", 3,
        "switches=20:0-2:pb;25:0-1:tom;40:1-3:pb;50:1-2:tom;90:0-2:tom"), 200);
    for (int i = 0; i < sw.size(); i++) {
      long[] s = sw.get(i);
      assertEquals(2, s[0], "seed " + (i + 1) + ": links that completed TOM->PB (0-2 and 1-3)");
      assertEquals(3, s[1], "seed " + (i + 1) + ": links that completed PB->TOM (0-1, 1-2, then 0-2 back)");
    }
  }

  @Test
  void when_theAdaptiveRuleRuns_then_200FaultySeedsPassTheTxnChecker() {
    // enough load, and thresholds low enough, that TOM links get touched often enough to go PB (and back)
    List<long[]> sw = seeds(spec("camu", "zipf", 2,
        "adaptive=true,adaptiveWindow=10,adaptiveHigh=30,adaptiveLow=5", 20), 200);
    long toPb = sw.stream().mapToLong(s -> s[0]).sum();
    long toTom = sw.stream().mapToLong(s -> s[1]).sum();
    long seedsThatSwitched = sw.stream().filter(s -> s[0] + s[1] > 0).count();
    assertTrue(toPb > 0 && toTom > 0, "the adaptive rule must switch links both ways: " + toPb + " to PB, " + toTom
        + " to TOM");
    assertTrue(seedsThatSwitched >= 150, "the adaptive rule switched in only " + seedsThatSwitched + " of 200 seeds");
  }

  @Test
  void when_aPartitionExecutesBeforeTheMecGate_then_theTxnCheckerCatchesIt() {
    SimSpec mutant = spec("camu", "uniform", 2, "mutant=execute-before-mec-gate");
    boolean caught = false;
    for (long seed = 1; seed <= 20 && !caught; seed++) {
      SeedReport r = SimRunner.run(mutant, new Camu(), seed, List.of(TxnChecker.NAME));
      caught = r.checks().get(0).violations().stream().anyMatch(v -> v.kind().equals(TxnChecker.ORDER));
    }
    assertTrue(caught, "executing before the MEC gate must break the per-partition (ts, tid) order within 20 seeds");
  }
}
