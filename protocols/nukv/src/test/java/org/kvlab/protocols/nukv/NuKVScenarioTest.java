package org.kvlab.protocols.nukv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.api.Protocol;
import org.kvlab.check.Result;
import org.kvlab.check.SessionChecker;
import org.kvlab.check.Violation;
import org.kvlab.sim.Fault;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;

/**
 * The write guarantees, staged: datacenter 1's clocks run 1 s behind and datacenter 0's forwarder is slow
 * (1.5 s), so datacenter 1 learns a write of datacenter 0 late. Session B touches x in datacenter 0 (reads
 * A's write for WFR, writes it itself for MW), moves to datacenter 1 and writes x there; session C in
 * datacenter 1 reads B's write and, 2.5 s later, x again. With dt (HLC) B's write wins everywhere;
 * a client that drops dtr (WFR) or dtw (MW) lets the older write win once it arrives, and C goes back.
 */
class NuKVScenarioTest {

  static SimResult run(Protocol protocol, boolean monotonicWrites) {
    List<Fault> faults = new ArrayList<>();
    for (int r = 0; r < 3; r++) {
      faults.add(new Fault.Skew(NodeId.of(1, 0, r), -1_000_000, 0));
    }
    faults.add(new Fault.Slow(NodeId.of(0, 0, NuKVServer.FORWARDER), 1_500_000, 0, 3_000_000));
    SimSpec spec = SimSpec.defaults().withTopology(2, 1, 3).withFaults(faults).withDuration(1_000_000)
        .withSettle(3_000_000).withParams(new Params(Map.of("readLevel", "mr+ryw", "writeLevel", "mw+wfr")));
    String x = "x";
    List<Script> scripts = new ArrayList<>();
    long start = 2_500_000; // leaders elected (MicroRaft's election takes a couple of seconds at start)
    if (monotonicWrites) {
      scripts.add(Script.at(1).startingAt(start).moveTo(0).put(x, "b1").moveTo(1).put(x, "b2"));
    } else {
      scripts.add(Script.at(0).startingAt(start).put(x, "a1"));
      scripts.add(Script.at(1).startingAt(start + 10_000).moveTo(0).awaitValue(x, "a1").moveTo(1).put(x, "b2"));
    }
    scripts.add(Script.at(1).startingAt(start).awaitValue(x, "b2", 3_000_000).pause(2_500_000).get(x));
    return new Simulation(spec, protocol, 1, scripts).run();
  }

  @ParameterizedTest(name = "{0}: NuKV keeps it, the client without {1} breaks it")
  @CsvSource({"writes-follow-reads, DTR, false", "monotonic-writes, DTW, true"})
  void when_aSessionWritesAgainInALaggingDatacenter_then_dtKeepsItsWriteNewest(String kind, NuKVClient.Drop drop,
      boolean monotonicWrites) {
    SimResult good = run(new NuKV(), monotonicWrites);
    assertTrue(good.failures().isEmpty(), good.failures().toString());
    Result ok = new SessionChecker().check(good.history());
    assertTrue(ok.valid(), ok.toString());
    assertEquals("b2", lastRead(good), "B's write must stay the newest: " + good.history().operations());

    SimResult bad = run(Mutants.dropping(drop), monotonicWrites);
    Result caught = new SessionChecker().check(bad.history());
    assertTrue(caught.violations().stream().map(Violation::kind).anyMatch(kind::equals),
        "the mutant should break " + kind + ": " + caught + " " + bad.history().operations());
  }

  private static String lastRead(SimResult r) {
    var ops = r.history().operations();
    for (int i = ops.size() - 1; i >= 0; i--) {
      var o = ops.get(i);
      if (o.type() == org.kvlab.history.Operation.Type.GET && o.key().equals("x") && o.ok() && o.invokeMicros() < 7_000_000) {
        return o.readValue().map(v -> v.toStringUtf8()).orElse("<none>");
      }
    }
    return "<no read>";
  }
}
