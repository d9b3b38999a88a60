package org.kvlab.cluster.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.api.Topology;
import org.kvlab.cluster.BackendException;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;

/** The hosts file of {@code bench --backend ssh}: parsing, defaults, errors with fixes, and placement of servers. */
class SshHostsTest {
  static final String SSH = "ssh: { user: alice, keyFile: /tmp/k, knownHosts: /tmp/kh }\n";

  @Test
  void parses_datacenters_with_client_hosts_defaulting_to_the_server_hosts() throws Exception {
    SshHosts h = SshHosts.parse(SSH + "basePort: 7400\ndatacenters:\n"
        + "  - { servers: [a, b], clients: [c] }\n  - { servers: d }\n", "hosts.yaml");
    assertEquals(7400, h.basePort());
    assertEquals(List.of("a", "b"), h.datacenters().get(0).servers());
    assertEquals(List.of("c"), h.datacenters().get(0).clients());
    assertEquals(List.of("d"), h.datacenters().get(1).clients());
    assertEquals(List.of("a", "b", "d", "c"), h.allHosts());
    assertEquals("alice", h.settings().user());
  }

  @Test
  void errors_name_the_place_and_the_fix() {
    ConfigException missing = assertThrows(ConfigException.class, () -> SshHosts.parse(SSH, "hosts.yaml"));
    assertTrue(missing.getMessage().contains("datacenters"), missing.getMessage());
    ConfigException typo = assertThrows(ConfigException.class,
        () -> SshHosts.parse(SSH + "datacenter:\n  - { servers: [a] }\n", "hosts.yaml"));
    assertTrue(typo.getMessage().contains("datacenters"), typo.getMessage());
    ConfigException noSsh = assertThrows(ConfigException.class,
        () -> SshHosts.parse("datacenters:\n  - { servers: [a] }\n", "hosts.yaml"));
    assertTrue(noSsh.getMessage().contains("ssh"), noSsh.getMessage());
    ConfigException password = assertThrows(ConfigException.class, () -> SshHosts.parse(
        "ssh: { user: a, password: x }\ndatacenters:\n  - { servers: [a] }\n", "hosts.yaml"));
    assertTrue(password.getMessage().contains("passwords are not accepted"), password.getMessage());
  }

  @Test
  void place_puts_partitions_round_robin_on_the_datacenter_hosts_and_refuses_missing_datacenters() throws Exception {
    SshHosts h = SshHosts.parse(SSH + "basePort: 7400\ndatacenters:\n  - { servers: [a, b] }\n  - { servers: [c] }\n",
        "hosts.yaml");
    SshBackend b = new SshBackend(h, null, null);
    Topology t = new Topology(2, 3);
    List<ClusterConfig.ServerSpec> loop = new java.util.ArrayList<>();
    int i = 0;
    for (NodeId id : t.allNodes()) {
      loop.add(new ClusterConfig.ServerSpec(id, "127.0.0.1", 9000 + i++));
    }
    ClusterConfig planned = new ClusterConfig("x", "bench-x", "eventual", Params.empty(), t, loop,
        new ClusterConfig.StorageSpec(ClusterConfig.StorageSpec.Engine.MEMORY, org.kvlab.store.Durability.NONE, Path.of("/tmp/d")),
        new ClusterConfig.EmulationSpec(null, java.util.Map.of()), ClusterConfig.Limits.defaults());
    ClusterConfig placed = b.place(planned, Path.of("/tmp/d"));
    assertEquals(List.of("a", "b", "a", "c", "c", "c"), placed.servers().stream().map(ClusterConfig.ServerSpec::host).toList());
    assertEquals(List.of(7400, 7401, 7402, 7403, 7404, 7405), placed.servers().stream().map(ClusterConfig.ServerSpec::port).toList());
    assertEquals(Path.of(SshBackend.DATA_DIR), placed.storage().dir());

    SshBackend one = new SshBackend(SshHosts.parse(SSH + "datacenters:\n  - { servers: [a] }\n", "h.yaml"), null, null);
    BackendException e = assertThrows(BackendException.class, () -> one.place(planned, Path.of("/tmp/d")));
    assertTrue(e.getMessage().contains("Fix: add a 'datacenters:' entry"), e.getMessage());
  }
}
