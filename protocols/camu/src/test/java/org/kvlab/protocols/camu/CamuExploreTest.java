package org.kvlab.protocols.camu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Params;
import org.kvlab.api.TxnRequest;
import org.kvlab.check.TxnChecker;
import org.kvlab.sim.Scenarios;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.explore.Exploration;
import org.kvlab.sim.explore.Explorer;

/**
 * {@code kvlab explore} on CaMu (issue 35), with sessions that run transactions: two sessions each write both
 * partitions of 1 x 2 in one transaction; rounds of 1 ms, a 3 ms horizon. Correct CaMu has no violation of the
 * per-partition (ts, tid) order in any schedule. The mutant that executes before the MEC gate is not found here either
 * (the same space, 17,298 states, explored to the end): docs/benchmarks/explore.md says why.
 */
class CamuExploreTest {
  static final long HORIZON_MICROS = 3_000;

  static SimSpec spec(String mutant) {
    return SimSpec.defaults().withTopology(1, 2).withParams(new Params(Map.of("mode", "pb", "round", "1ms",
        "mutant", mutant)));
  }

  static List<Script> sessions(SimSpec spec) {
    String x = Scenarios.keyOn(spec.topology(), "x", 0);
    String y = Scenarios.keyOn(spec.topology(), "y", 1);
    return List.of(Script.at(0).txn(write(x, y, "a")), Script.at(0).txn(write(x, y, "b")));
  }

  private static TxnRequest write(String x, String y, String v) {
    return TxnRequest.of(List.of(), Map.of(x, ByteString.copyFromUtf8(v), y, ByteString.copyFromUtf8(v)));
  }

  static Exploration exploration(String mutant) {
    SimSpec spec = spec(mutant);
    return new Exploration(spec, new Camu(), sessions(spec), 0, HORIZON_MICROS, List.of(TxnChecker.NAME), 1);
  }

  @Test
  void bfs_ofCorrectCamu_findsNothing() {
    Explorer.Result r = new Explorer(exploration("none"), new Explorer.Bounds("bfs", 40, 50_000, 0, 1, false)).run();
    assertNull(r.found(), () -> r.found().choices() + " " + r.found().verdict());
    assertTrue(r.completed() > 0, r.toString());
    assertTrue(r.exhausted(), r.stop());
    // 14,946 since the fingerprint hashes the sessions' completed operations in session order, as it defines them
    // (not in the order the sessions first completed one: 14,961 then; checked by restoring that order)
    assertEquals(14_946, r.states(), "the state count of this configuration changed");
  }
}
