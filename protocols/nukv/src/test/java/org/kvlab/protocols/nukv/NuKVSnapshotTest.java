package org.kvlab.protocols.nukv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
import org.kvlab.store.Durability;

/**
 * Raft snapshots (issue 15): with a snapshot every 50 commits, a session writes 451 keys in datacenter 0 for 24 s
 * (about 600 commits, a dozen snapshot points) while replica 2 of datacenter 0's group is down for 8 s (it comes
 * back behind the leader's snapshot: the leader's log no longer holds what it missed, so it must install the
 * leader's snapshot) and later the forwarder, replica 0, is down for 8 s (it restarts from its own snapshot and
 * must still ship to datacenter 1 the writes committed while it was down). Every acknowledged write survives in
 * both datacenters, the session guarantees hold, and the counters show snapshots taken, restored and installed.
 */
class NuKVSnapshotTest {

  @Test
  void when_aGroupRunsPastManySnapshotPointsWithRestarts_then_laggingReplicasInstallSnapshotsAndNothingIsLost() {
    List<Fault> faults = List.of(new Fault.Crash(NodeId.of(0, 0, 2), 4_000_000, 12_000_000),
        new Fault.Crash(NodeId.of(0, 0, 0), 18_000_000, 26_000_000));
    SimResult run = runChecked(faults, Map.of(), 7);

    assertTrue(run.counter("nukv.snapshot.taken") >= 30, "the six replicas snapshot every 50 commits (a replica that"
        + " was down took fewer, having installed one instead): " + run.counters());
    assertTrue(run.counter("nukv.snapshot.installed") >= 1, "replica 2 came back behind the leader's snapshot: "
        + run.counters());
    assertTrue(run.counter("nukv.snapshot.restored") >= 1, "replica 0 restarted from its own snapshot: "
        + run.counters());
    assertTrue(run.counter("nukv.forward.catchUpApplied") >= 1, "replica 0 shipped its snapshot's writes that"
        + " datacenter 1 lacked as a catch-up: " + run.counters());
  }

  /**
   * A replica's own snapshot is written to its journal after it is taken, a chunk per turn here (one key a chunk, so
   * a snapshot of n keys takes n turns, a millisecond apart): a follower, the other datacenter's forwarder and the
   * leader crash while their replicas write snapshots (times found by running it: in each seed at least one crash cuts
   * a snapshot's write), restart from the snapshot before and the whole log, void the partial one, and nothing
   * acknowledged is lost; the session guarantees hold.
   */
  @Test
  void when_replicasCrashWhileWritingTheirSnapshots_then_theyRestartFromThePreviousOneAndNothingIsLost() {
    long partial = 0;
    for (long seed = 1; seed <= 4; seed++) {
      List<Fault> faults = List.of(new Fault.Crash(NodeId.of(0, 0, 2), 8_550_000 + seed * 20_000, 10_000_000),
          new Fault.Crash(NodeId.of(1, 0, 0), 12_700_000 + seed * 20_000, 14_000_000),
          new Fault.Crash(NodeId.of(0, 0, 1), 16_700_000 + seed * 20_000, 19_000_000));
      SimResult run = runChecked(faults, Map.of("snapshotChunkKeys", "1", "snapshotWriteBytes", "1"), seed);
      assertTrue(run.counter("nukv.snapshot.writeTurns") > 10 * run.counter("nukv.snapshot.taken"),
          "a turn per chunk: " + run.counters());
      assertTrue(run.counter("nukv.snapshot.partialDropped") >= 1, "seed " + seed + ": a crash cut a snapshot being"
          + " written: " + run.counters());
      partial += run.counter("nukv.snapshot.partialDropped");
    }
    assertTrue(partial >= 6, "crashes cut snapshots being written in " + partial + " restarts");
  }

  /**
   * A session writes 451 keys in datacenter 0 for 24 s (about 600 commits, a dozen snapshot points at a snapshot every
   * 50 commits) under {@code faults}; every acknowledged write survives in both datacenters, the session guarantees
   * hold and the replicas converge.
   */
  private static SimResult runChecked(List<Fault> faults, Map<String, String> params, long seed) {
    Map<String, String> all =
        new HashMap<>(Map.of("readLevel", "mr+ryw", "writeLevel", "mw+wfr", "snapshotEvery", "50"));
    all.putAll(params);
    SimSpec spec = SimSpec.defaults().withTopology(2, 1, 3).withFaults(faults).withDurability(Durability.SYNC)
        .withDuration(34_000_000).withSettle(6_000_000).withParams(new Params(all));
    Script writer = Script.at(0).startingAt(2_500_000);
    Script reader = Script.at(1).startingAt(2_500_000);
    for (int i = 1; i <= 600; i++) {
      // Mostly keys written once (a write the forwarder misses stays missing) and a hot key written every 4th time.
      String key = i % 4 == 0 ? "hot" : "k" + i;
      writer = writer.put(key, "v" + i).pause(40_000);
      reader = reader.get(i % 4 == 1 ? "hot" : "k" + (i - 1)).pause(40_000);
    }
    SimResult run = new Simulation(spec, new NuKV(), seed, List.of(writer, reader)).run();
    assertTrue(run.failures().isEmpty(), "seed " + seed + ": " + run.failures());
    // Nothing acknowledged is lost: each key's final reads (one per datacenter) hold its last acknowledged write or
    // a later attempt whose outcome is unknown.
    List<Operation> puts = run.history().operations().stream()
        .filter(o -> o.type() == Operation.Type.PUT && o.session() == 0).toList();
    assertTrue(puts.stream().filter(Operation::ok).count() >= 500, "seed " + seed + ": most writes are acknowledged");
    Map<String, List<String>> allowed = new HashMap<>();
    Map<String, Long> lastOk = new HashMap<>();
    for (Operation o : puts) {
      if (o.ok()) {
        lastOk.put(o.key(), o.id());
      }
    }
    for (Operation o : puts) {
      Long last = lastOk.get(o.key());
      List<String> values = allowed.computeIfAbsent(o.key(), k -> new ArrayList<>(last == null ? List.of("<none>")
          : List.of())); // no write of the key acknowledged: maybe none was made
      if ((last == null || o.id() >= last) && o.outcome() != Operation.Outcome.FAIL) {
        values.add(o.value().toStringUtf8());
      }
    }
    List<Operation> finals = run.history().operations().stream()
        .filter(o -> o.type() == Operation.Type.GET && o.session() >= 2 && o.ok()).toList();
    assertEquals(2 * (450 + 1), finals.size(), "one final read per key per datacenter: " + finals.size());
    for (Operation f : finals) {
      String v = f.readValue().map(b -> b.toStringUtf8()).orElse("<none>");
      assertTrue(allowed.get(f.key()).contains(v), "seed " + seed + ": final read " + f.describe() + " lost "
          + allowed.get(f.key()));
    }
    Result session = new SessionChecker().check(run.history());
    assertTrue(session.valid(), session.toString());
    Result convergence = new ConvergenceChecker().check(run.history());
    assertTrue(convergence.valid(), convergence.toString());
    return run;
  }
}
