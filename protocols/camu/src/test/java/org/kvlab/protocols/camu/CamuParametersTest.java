package org.kvlab.protocols.camu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvlab.api.ParameterException;
import org.kvlab.api.Params;
import org.kvlab.api.Topology;
import org.kvlab.api.TopologyException;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimSpec;

/**
 * Goal: each rule on CaMu's parameters and cluster shape is written once ({@link Camu#checkParameters}): the cluster
 * file's loader, bench and sim refuse with it before anything starts (ProtocolParametersTest in cluster-manager), and
 * a server started without them (a simulation, a cluster built in code) refuses with the same words; the links and
 * switches the servers use are the ones the check read.
 */
class CamuParametersTest {
  private static final Camu CAMU = new Camu();

  private static Params params(String... kv) {
    Map<String, String> m = new java.util.HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return new Params(m);
  }

  @Test
  void when_theClusterHasMoreThanOneDatacenterOrReplica_then_theCheckNamesTheKeyCauseAndFix() {
    TopologyException dcs = assertThrows(TopologyException.class,
        () -> CAMU.checkParameters(params(), new Topology(2, 4)));
    assertEquals("datacenters", dcs.key());
    assertEquals("2 datacenters, but camu runs one replica per partition, in 1 datacenter", dcs.problem());
    assertEquals("set datacenters: 1 (CaMu's replication is not implemented, see docs/protocols.md#camu-replication)",
        dcs.fix());
    TopologyException replicas = assertThrows(TopologyException.class,
        () -> CAMU.checkParameters(params(), new Topology(1, 4, 3)));
    assertEquals("replicas", replicas.key());
    assertEquals("3 replicas per partition, but camu runs 1", replicas.problem());
    assertTrue(replicas.getMessage().startsWith("replicas: 3 replicas per partition, but camu runs 1. Fix: remove"
        + " replicas"), replicas.getMessage());
    CAMU.checkParameters(params("mode", "tom"), new Topology(1, 4));
  }

  @Test
  void when_aServerStartsWithARefusedShapeOrValue_then_itRefusesWithTheCheck_sWords() {
    assertServersRefuse(CamuCheckedSimTest.spec("camu", "zipf", 2, "").withTopology(2, 3), TopologyException.class);
    String link = assertServersRefuse(CamuCheckedSimTest.spec("camu", "zipf", 2, "pbLinks=0-1;3-9"),
        ParameterException.class);
    assertTrue(link.contains("cannot read the link '3-9'"), link);
  }

  /** Every server of a simulation of {@code spec} fails to start with the check's refusal; that refusal. */
  private static String assertServersRefuse(SimSpec spec, Class<? extends IllegalArgumentException> type) {
    String expected = assertThrows(type, () -> CAMU.checkParameters(spec.params(), spec.topology())).getMessage();
    List<String> failures = SimRunner.run(spec.withFaultKinds(java.util.Set.of()), CAMU, 1, List.of()).result()
        .failures();
    assertEquals(spec.topology().size(), failures.size(), failures.toString());
    assertTrue(failures.stream().allMatch(f -> f.contains(": start threw " + type.getName() + ": " + expected)),
        failures.toString());
    return expected;
  }

  @Test
  void when_linksAndSwitchesAreGiven_then_theServersReadWhatTheCheckRead() {
    assertNull(Camu.pbLinks(params(), 4), "not given: pbPartners decides");
    List<int[]> links = Camu.pbLinks(params("pbLinks", " 1-2; 3-0 "), 4);
    assertEquals(List.of("1-2", "3-0"), links.stream().map(l -> l[0] + "-" + l[1]).toList());
    assertEquals(List.of(new Camu.Switch(20, 0, 3, true), new Camu.Switch(60, 3, 0, false)),
        Camu.switches(params("switches", "20:0-3:pb; 60:3-0:tom"), 4));
    for (String bad : List.of("20:0-4:pb", "20:1-1:pb", "x:0-1:pb", "-1:0-1:pb", "20:0-1:fast", "20:0-1")) {
      ParameterException e = assertThrows(ParameterException.class,
          () -> Camu.switches(params("switches", bad), 4), bad);
      assertEquals("switches", e.parameter());
      assertEquals("cannot read the switch '" + bad + "'", e.problem());
    }
  }
}
