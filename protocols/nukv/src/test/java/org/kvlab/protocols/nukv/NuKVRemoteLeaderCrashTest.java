package org.kvlab.protocols.nukv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
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

/**
 * Forwarding while the receiving group's leader is down (issue 15). Datacenter 1's replicas 1 and 2 are slow while
 * the groups elect their first leaders, so replica 0 often becomes datacenter 1's leader (the replica datacenter 0's
 * forwarder sends to, named by the hints; in 4 of the 8 seeds); it is down from 5 s to 17 s while a session writes x in datacenter 0
 * every 50 ms and a session of datacenter 1 reads it every 50 ms. Messages to a crashed server wait for its restart,
 * so a forwarder that kept sending to the crashed leader stalled until it came back: before the fix the worst write
 * reached datacenter 1's reader 12.1 to 12.2 s after it was acknowledged in seeds 4, 5, 7 and 8 (2.5 to 2.6 s now). Now the forwarder gives up on a replica that
 * has not answered for {@code retargetAfter} (1 s) and goes on with the next, which names the group's new leader once
 * it has one (MicroRaft: 2 s heartbeat timeout, then an election). Every acknowledged write reaches datacenter 1's
 * reader within {@link #BOUND_MICROS}: the election, the retarget, and up to one read sent to the crashed replica
 * (the client's 2 s timeout).
 */
class NuKVRemoteLeaderCrashTest {
  static final long BOUND_MICROS = 7_000_000;
  static final long END_MICROS = 22_000_000;

  static SimResult run(long seed) {
    List<Fault> faults = List.of(new Fault.Slow(NodeId.of(1, 0, 1), 1_000_000, 0, 3_000_000),
        new Fault.Slow(NodeId.of(1, 0, 2), 1_000_000, 0, 3_000_000),
        new Fault.Crash(NodeId.of(1, 0, 0), 5_000_000, 17_000_000));
    SimSpec spec = SimSpec.defaults().withTopology(2, 1, 3).withFaults(faults).withDuration(END_MICROS)
        .withSettle(6_000_000).withParams(new Params(Map.of("readLevel", "mr+ryw", "writeLevel", "mw+wfr")));
    Script writer = Script.at(0).startingAt(3_000_000);
    Script reader = Script.at(1).startingAt(3_000_000);
    int n = (int) ((END_MICROS - 3_000_000) / 50_000);
    for (int i = 1; i <= n; i++) {
      writer = writer.put("x", "v" + i).pause(50_000);
      reader = reader.get("x").pause(50_000);
    }
    return new Simulation(spec, new NuKV(), seed, List.of(writer, reader)).run();
  }

  @Test
  void when_theRemoteLeaderCrashes_then_theForwarderFindsTheNewLeaderAndWritesArriveInBoundedTime() {
    List<String> late = new ArrayList<>();
    int hit = 0;
    for (long seed = 1; seed <= 8; seed++) {
      SimResult run = run(seed);
      assertTrue(run.failures().isEmpty(), "seed " + seed + ": " + run.failures());
      List<Operation> ops = run.history().operations();
      ForwardingDelay delay = ForwardingDelay.of(ops, END_MICROS - BOUND_MICROS);
      assertTrue(delay.checked() >= 200, "seed " + seed + ": most writes are acknowledged: " + delay.checked());
      if (delay.worstMicros() > BOUND_MICROS) {
        late.add("seed " + seed + ": " + delay.describe(BOUND_MICROS) + "; counters " + run.counters());
      }
      hit += run.counter("nukv.forward.retarget") > 0 ? 1 : 0;
      // MicroRaft elects the new leader by itself here (the followers did not restart under the crashed leader): the
      // stall watchdog (RaftWatchdog.check, see NuKVRestartedFollowersTest) must not rebuild any RaftNode.
      assertEquals(0, run.counter("nukv.raft.rebuilt"), "seed " + seed + ": " + run.counters());
      Result session = new SessionChecker().check(run.history());
      assertTrue(session.valid(), "seed " + seed + ": " + session);
      Result convergence = new ConvergenceChecker().check(run.history());
      assertTrue(convergence.valid(), "seed " + seed + ": " + convergence);
    }
    assertEquals(List.of(), late);
    // The scenario did what it is for: in the seeds where replica 0 won datacenter 1's first election (4, 5, 7, 8),
    // the replica the forwarder sent to went silent and it moved on.
    assertTrue(hit >= 3, "the forwarder gave up on a silent replica in only " + hit + " of 8 seeds: the crashed"
        + " replica was mostly not the one it sent to");
  }
}
