package org.kvlab.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.kvlab.api.NodeId;
import org.kvlab.api.Topology;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.junit.jupiter.api.Test;

/** Cluster files with several replicas per partition per datacenter (replication groups, e.g. Raft). */
class ClusterReplicasTest {

  @Test
  void when_replicas_is_absent_then_each_partition_has_one_server_per_datacenter() throws Exception {
    ClusterConfig c = ClusterConfig.parse(ClusterConfigLoadTest.MINIMAL, "t.yaml");
    assertEquals(1, c.topology().replicas());
    assertEquals(4, c.topology().size());
  }

  @Test
  void when_replicas_with_local_generator_then_every_group_member_gets_a_port_in_group_order() throws Exception {
    String yaml = "name: g\nprotocol: nukv\ndatacenters: 2\npartitions: 2\nreplicas: 3\nlocal: { basePort: 9000 }\n";
    ClusterConfig c = ClusterConfig.parse(yaml, "g.yaml");
    assertEquals(new Topology(2, 2, 3), c.topology());
    assertEquals(12, c.servers().size());
    assertEquals(new ServerSpec(NodeId.of(0, 0, 0), "127.0.0.1", 9000), c.servers().get(0));
    assertEquals(new ServerSpec(NodeId.of(0, 0, 2), "127.0.0.1", 9002), c.servers().get(2));
    assertEquals(new ServerSpec(NodeId.of(1, 1, 2), "127.0.0.1", 9011), c.servers().get(11));
    assertEquals(List.of(NodeId.of(0, 1, 0), NodeId.of(0, 1, 1), NodeId.of(0, 1, 2)), c.topology().replicasOf(0, 1));
    assertEquals(List.of(NodeId.of(1, 1, 2)), c.topology().peersOf(NodeId.of(0, 1, 2)));
  }

  @Test
  void when_servers_are_listed_then_replica_zero_may_be_written_with_or_without_suffix() throws Exception {
    String yaml = """
        name: g
        protocol: nukv
        datacenters: 1
        partitions: 1
        replicas: 3
        servers:
          - { id: 0_0, host: 127.0.0.1, port: 7100 }
          - { id: 0_0_1, host: 127.0.0.1, port: 7101 }
          - { id: 0_0_2, host: 127.0.0.1, port: 7102 }
        emulation:
          skew: { 0_0_2: 5ms }
        """;
    ClusterConfig c = ClusterConfig.parse(yaml, "g.yaml");
    assertEquals(List.of(NodeId.of(0, 0), NodeId.of(0, 0, 1), NodeId.of(0, 0, 2)),
        c.servers().stream().map(ServerSpec::id).toList());
    assertEquals(5L, c.emulation().skewMillis().get(NodeId.of(0, 0, 2)));
    assertEquals(NodeId.of(0, 0, 0), NodeId.parse("0_0_0"));
    assertEquals("0_0", NodeId.of(0, 0, 0).toString());
    assertEquals("0_0_2", NodeId.parse("0_0_2").toString());
  }

  @Test
  void when_a_replica_is_missing_then_the_error_names_it_and_the_id_range() {
    String yaml = """
        name: g
        protocol: nukv
        datacenters: 1
        partitions: 1
        replicas: 3
        servers:
          - { id: 0_0_0, host: 127.0.0.1, port: 7100 }
          - { id: 0_0_1, host: 127.0.0.1, port: 7101 }
        """;
    ConfigException e = assertThrows(ConfigException.class, () -> ClusterConfig.parse(yaml, "g.yaml"));
    assertTrue(e.getMessage().startsWith("g.yaml:6:"), e.getMessage());
    assertTrue(e.getMessage().contains("no entry for 0_0_2"), e.getMessage());
    assertTrue(e.getMessage().contains("replicas: 3"), e.getMessage());
    assertTrue(e.getMessage().contains("0_0_0 to 0_0_2"), e.getMessage());
  }

  @Test
  void when_a_replica_is_outside_the_topology_then_the_error_points_at_it_with_a_fix() {
    String yaml = """
        name: g
        protocol: eventual
        datacenters: 1
        partitions: 1
        servers:
          - { id: 0_0_1, host: 127.0.0.1, port: 7100 }
        """;
    ConfigException e = assertThrows(ConfigException.class, () -> ClusterConfig.parse(yaml, "g.yaml"));
    assertEquals("g.yaml:6:11: servers[0].id: server 0_0_1 is outside the topology (datacenters: 1, partitions: 1). Fix: use ids"
        + " from 0_0 to 0_0, or change datacenters/partitions/replicas.", e.getMessage());
  }

  @Test
  void when_replicas_is_out_of_range_then_the_error_names_the_range() {
    String yaml = "name: g\nprotocol: nukv\ndatacenters: 1\npartitions: 1\nreplicas: 0\nlocal: { basePort: 9000 }\n";
    ConfigException e = assertThrows(ConfigException.class, () -> ClusterConfig.parse(yaml, "g.yaml"));
    assertTrue(e.getMessage().startsWith("g.yaml:5:11:"), e.getMessage());
    assertTrue(e.getMessage().contains("15"), e.getMessage());
  }
}
