package org.kvlab.protocols.m2paxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvlab.api.ParameterException;
import org.kvlab.api.Params;
import org.kvlab.api.Topology;
import org.kvlab.api.TopologyException;
import org.kvlab.history.Operation;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimSpec;

/** The parameters M²Paxos declares, what it refuses, and what the Multi-Paxos configuration does differently. */
class M2PaxosParametersTest {
  private static final Topology THREE = new Topology(3, 1);

  @Test
  void when_theDesignerAsks_then_everyParameterHasADescriptionWithItsDefault() {
    Map<String, String> p = new M2Paxos().parameters();
    assertEquals(List.of("initialOwner", "leader", "forwardTimeout", "backoff", "gossip"), List.copyOf(p.keySet()));
    p.values().forEach(d -> assertTrue(d.contains("default"), d));
    new M2Paxos().checkParameters(Params.empty(), THREE);
  }

  @Test
  void when_aValueOrShapeIsWrong_then_itIsRefusedWithTheFix() {
    ParameterException leader = assertThrows(ParameterException.class,
        () -> new M2Paxos().checkParameters(new Params(Map.of("leader", "3")), THREE));
    assertTrue(leader.fix().contains("leader: 0"), leader.getMessage());
    assertThrows(ParameterException.class,
        () -> new M2Paxos().checkParameters(new Params(Map.of("initialOwner", "random")), THREE));
    TopologyException parts = assertThrows(TopologyException.class,
        () -> new M2Paxos().checkParameters(Params.empty(), new Topology(3, 2)));
    assertEquals("partitions", parts.key());
  }

  /**
   * Multi-Paxos (leader=0): nobody acquires (no slow path), every command proposed elsewhere is forwarded to the
   * leader. M²Paxos with initialOwner=none: every key is acquired on its first access.
   */
  @Test
  void when_theLeaderOrTheInitialOwnerIsSet_then_thePathsTakenFollow() {
    SimSpec multi = M2PaxosCheckedSimTest.spec("0", false).withFaultKinds(java.util.Set.of());
    SimRunner.SeedReport r = SimRunner.run(multi, new M2Paxos(), 1, List.of("linearizable"));
    assertTrue(r.ok(), r.checks().toString());
    assertEquals(0, r.result().counter("consensus.slow"));
    assertTrue(r.result().counter("consensus.forwarded") > 0 && r.result().counter("consensus.fast") > 0);
    long ok = r.result().history().operations().stream().filter(Operation::ok).count();
    // every OK command is delivered at all 3 replicas, but for the last final reads, decided as the run stops
    assertTrue(r.result().counter("consensus.delivered") >= 3 * ok - 3, () -> ok + " OK, " + r.result().counters());

    SimSpec none = multi.withParams(new Params(Map.of("initialOwner", "none")));
    SimRunner.SeedReport n = SimRunner.run(none, new M2Paxos(), 1, List.of("linearizable"));
    assertTrue(n.ok(), n.checks().toString());
    assertTrue(n.result().counter("consensus.slow") >= 5, "each of the 5 keys acquired once at least: "
        + n.result().counters());
  }
}
