package org.kvlab.protocols.epaxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.ParameterException;
import org.kvlab.api.Params;
import org.kvlab.api.Topology;
import org.kvlab.api.TopologyException;

/** EPaxos's parameters and the cluster shapes it refuses, each with the fix. */
class EPaxosParametersTest {
  private final EPaxos epaxos = new EPaxos();

  @Test
  void when_parametersAreListed_then_eachHasItsFormDefaultAndMeaning() {
    assertEquals(Set.of("thrifty", "recoveryTimeout", "gossip"), epaxos.parameters().keySet());
    epaxos.parameters().values().forEach(d -> assertTrue(d.contains("default"), d));
    assertEquals(new Topology(3, 1), epaxos.defaultTopology());
  }

  @Test
  void when_theClusterHasSeveralPartitionsOrReplicas_then_itIsRefusedWithTheFix() {
    TopologyException p = assertThrows(TopologyException.class,
        () -> epaxos.checkParameters(Params.empty(), new Topology(3, 2)));
    assertEquals("partitions", p.key());
    assertTrue(p.fix().contains("partitions: 1"), p.fix());
    TopologyException r = assertThrows(TopologyException.class,
        () -> epaxos.checkParameters(Params.empty(), new Topology(3, 1, 3)));
    assertEquals("replicas", r.key());
  }

  @Test
  void when_aDurationIsNotPositive_then_itIsRefused() {
    ParameterException e = assertThrows(ParameterException.class,
        () -> epaxos.checkParameters(new Params(Map.of("recoveryTimeout", "0s")), new Topology(3, 1)));
    assertEquals("recoveryTimeout", e.parameter());
    epaxos.checkParameters(new Params(Map.of("recoveryTimeout", "200ms", "gossip", "50ms", "thrifty", "true")),
        new Topology(5, 1));
  }
}
