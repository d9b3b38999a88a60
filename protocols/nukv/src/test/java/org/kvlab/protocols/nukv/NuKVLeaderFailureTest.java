package org.kvlab.protocols.nukv;

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
import org.kvlab.store.Durability;

/**
 * Raft leader crashes in the simulator: each replica of datacenter 0's group is crashed in turn (so whichever is
 * leader is crashed at some point, and leadership moves), while a session writes one key in datacenter 0 and a
 * session of datacenter 1 reads it. The writer finds each new leader by the replicas' hints and retries; no
 * acknowledged write is lost (every replica ends with the last acknowledged value or a later attempt), and the
 * guarantees hold throughout.
 */
class NuKVLeaderFailureTest {

  @Test
  void when_eachReplicaOfAGroupCrashesInTurn_then_writesGoOnAndNothingAcknowledgedIsLost() {
    List<Fault> faults = new ArrayList<>();
    for (int r = 0; r < 3; r++) {
      long start = 3_000_000 + r * 7_000_000L;
      faults.add(new Fault.Crash(NodeId.of(0, 0, r), start, start + 5_000_000));
    }
    SimSpec spec = SimSpec.defaults().withTopology(2, 1, 3).withFaults(faults).withDurability(Durability.SYNC)
        .withDuration(24_000_000).withSettle(5_000_000)
        .withParams(new Params(Map.of("readLevel", "mr+ryw", "writeLevel", "mw+wfr")));
    Script writer = Script.at(0).startingAt(2_500_000);
    Script reader = Script.at(1).startingAt(2_500_000);
    for (int i = 1; i <= 450; i++) {
      writer = writer.put("x", "v" + i).pause(40_000);
      reader = reader.get("x").pause(40_000);
    }
    SimResult run = new Simulation(spec, new NuKV(), 3, List.of(writer, reader)).run();
    assertTrue(run.failures().isEmpty(), run.failures().toString());

    List<Operation> puts = run.history().operations().stream()
        .filter(o -> o.type() == Operation.Type.PUT && o.session() == 0).toList();
    for (Fault f : faults) {
      long start = ((Fault.Crash) f).startMicros();
      long end = ((Fault.Crash) f).endMicros();
      // MicroRaft notices a dead leader after its heartbeat timeout (2 s at least), the client after its own 2 s
      assertTrue(puts.stream().anyMatch(o -> o.ok() && o.invokeMicros() > start && o.completeMicros() < end),
          "writes must go on while " + f + " is down: " + puts.stream().filter(o -> !o.ok()).toList());
    }
    Operation lastOk = puts.stream().filter(Operation::ok).reduce((a, b) -> b).orElseThrow();
    Set<String> allowed = new java.util.HashSet<>();
    puts.stream().filter(o -> o.id() >= lastOk.id() && o.outcome() != Operation.Outcome.FAIL)
        .forEach(o -> allowed.add(o.value().toStringUtf8()));
    List<Operation> finals = run.history().operations().stream()
        .filter(o -> o.type() == Operation.Type.GET && o.session() >= 2 && o.ok()).toList();
    assertTrue(finals.size() == 2, "one final read per datacenter: " + finals);
    for (Operation f : finals) {
      String v = f.readValue().map(b -> b.toStringUtf8()).orElse("<none>");
      assertTrue(allowed.contains(v), "final read " + f + " lost the acknowledged " + lastOk.value().toStringUtf8());
    }
    Result session = new SessionChecker().check(run.history());
    assertTrue(session.valid(), session.toString());
    Result convergence = new ConvergenceChecker().check(run.history());
    assertTrue(convergence.valid(), convergence.toString());
  }
}
