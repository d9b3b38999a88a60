package org.kvlab.protocols.nukv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.check.ConvergenceChecker;
import org.kvlab.check.Result;
import org.kvlab.check.SessionChecker;
import org.kvlab.history.Operation;
import org.kvlab.sim.Fault;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;

/**
 * Issue 15, a forwarder's catch-up with three datacenters (A = 0, B = 1, C = 2; one partition, 3 replicas each,
 * a snapshot every 10 commits). B is cut off from C for the first 16 s, so C's writes reach A but not B. A's
 * forwarder (replica 0) is slow while the groups elect their first leaders (so it is not A's leader) and is down
 * from 4.5 s to 10 s. Meanwhile session S writes k = a1 in A, session R reads a1 in A, C writes k = c1 (newer: it
 * supersedes a1 in A), and 50 other keys are written in A, so A's leader snapshots past all of it and compacts its
 * log. When A's forwarder comes back it must install the leader's snapshot (k = c1, a1 gone) and ship B one
 * catch-up for the log entries it no longer has; then S and R move to B and read k with MR+RYW. B's sv[A] covers
 * a1 (their hwv/hrv), so B serves them at once, and must hold a1 or something newer.
 *
 * <p>Before the fix the catch-up held only the snapshot's versions written in A (k's newest is C's, so k was not in
 * it): B's sv[A] passed a1 while B had no version of k, and in all 10 seeds S read nothing there (read-your-writes
 * violated; R too, monotonic reads, in 8 of them; in the other 2 its read in B did not succeed). Now the catch-up
 * carries, for every key A wrote, the snapshot's newest version of the key whatever its origin, and B answers c1.
 * {@code -Dnukv.catchUpSeeds=200} runs more seeds: the session checker failed in all 200 before the fix, in none now.
 */
class NuKVThirdDatacenterCatchUpTest {
  static final int SEEDS = Integer.getInteger("nukv.catchUpSeeds", 10);

  static SimResult run(long seed) {
    List<Fault> faults = List.of(
        new Fault.Partition(1, 2, 0, 16_000_000),
        new Fault.Slow(NodeId.of(0, 0, NuKVServer.FORWARDER), 2_000_000, 0, 2_500_000),
        new Fault.Crash(NodeId.of(0, 0, NuKVServer.FORWARDER), 4_500_000, 10_000_000));
    SimSpec spec = SimSpec.defaults().withTopology(3, 1, 3).withFaults(faults).withDuration(17_000_000)
        .withSettle(5_000_000)
        .withParams(new Params(Map.of("readLevel", "mr+ryw", "writeLevel", "mw+wfr", "snapshotEvery", "10")));
    List<Script> scripts = new ArrayList<>();
    // Each writing session writes once before replica 0 of its group goes down, so it has found its leader (from
    // replica 0's hint) by then; C's forwarder likewise has found A's leader.
    scripts.add(Script.at(2).startingAt(3_000_000).put("warm", "w").pause(2_500_000).put("k", "c1"));
    scripts.add(Script.at(0).startingAt(3_000_000).put("s", "s0").pause(2_000_000).put("k", "a1")
        .pause(8_000_000).moveTo(1).get("k"));
    scripts.add(Script.at(0).startingAt(5_200_000).get("k").pause(7_000_000).moveTo(1).get("k"));
    Script filler = Script.at(0).startingAt(3_200_000).put("f0", "v0").pause(2_800_000);
    for (int i = 1; i <= 50; i++) {
      filler = filler.put("f" + i, "v" + i).pause(20_000);
    }
    scripts.add(filler);
    return new Simulation(spec, new NuKV(), seed, scripts).run();
  }

  @Test
  void when_aThirdDatacentersWriteSupersededTheForwardersOwn_then_theCatchUpStillCoversIt() {
    List<String> bad = new ArrayList<>();
    for (long seed = 1; seed <= SEEDS; seed++) {
      SimResult run = run(seed);
      assertTrue(run.failures().isEmpty(), "seed " + seed + ": " + run.failures());
      // The scenario did what it is for: A's forwarder installed a snapshot and B applied its catch-up.
      assertTrue(run.counter("nukv.snapshot.installed") >= 1, "seed " + seed + ": " + run.counters());
      assertTrue(run.counter("nukv.forward.catchUpApplied") >= 1, "seed " + seed + ": " + run.counters());
      List<Operation> ops = run.history().operations();
      Operation put = ops.stream().filter(o -> o.type() == Operation.Type.PUT && o.key().equals("k")
          && o.dc() == 0).findFirst().orElseThrow();
      assertTrue(put.ok(), "seed " + seed + ": S's write of a1 in A was not acknowledged: " + put);
      assertTrue(ops.stream().anyMatch(o -> o.type() == Operation.Type.PUT && o.key().equals("k") && o.dc() == 2
          && o.ok()), "seed " + seed + ": C's write of c1 was not acknowledged");
      // S and R's reads of k in B (sessions 1 and 2, before B hears from C): a1 or the newer c1, never nothing.
      List<Operation> inB = ops.stream().filter(o -> o.type() == Operation.Type.GET && o.key().equals("k")
          && o.dc() == 1 && (o.session() == 1 || o.session() == 2) && o.ok()).toList();
      for (Operation r : inB) {
        String v = r.readValue().map(b -> b.toStringUtf8()).orElse("<none>");
        if (!Set.of("a1", "c1").contains(v)) {
          bad.add("seed " + seed + ": " + r.describe() + " read " + v);
        }
      }
      Result session = new SessionChecker().check(run.history());
      if (!session.valid()) {
        bad.add("seed " + seed + ": " + session);
      }
      Result convergence = new ConvergenceChecker().check(run.history());
      assertTrue(convergence.valid(), "seed " + seed + ": " + convergence);
    }
    assertEquals(List.of(), bad);
  }
}
