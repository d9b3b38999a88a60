package org.kvlab.config;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.api.Topology;
import org.kvlab.config.ClusterConfig.Limits;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.config.ClusterConfig.StorageSpec;
import org.kvlab.store.Durability;

/** Valid cluster files: what they load into. */
class ClusterConfigLoadTest {

  static final String MINIMAL = """
      name: t
      protocol: eventual
      datacenters: 2
      partitions: 2
      servers:
        - { id: 0_0, host: 127.0.0.1, port: 7100 }
        - { id: 0_1, host: 127.0.0.1, port: 7101 }
        - { id: 1_0, host: 127.0.0.1, port: 7102 }
        - { id: 1_1, host: 127.0.0.1, port: 7103 }
      """;

  private static Path cwd() {
    return Path.of("").toAbsolutePath();
  }

  /** The repository's examples/ directory (tests run in framework/, but walk up to be safe). */
  static Path examples() {
    for (Path dir = cwd(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("examples")) && Files.exists(dir.resolve("pom.xml"))
          && Files.isDirectory(dir.resolve("framework"))) {
        return dir.resolve("examples");
      }
    }
    throw new IllegalStateException("no examples/ directory above " + cwd());
  }

  @Test
  void when_full_file_then_every_section_is_loaded_and_servers_are_sorted() throws Exception {
    String yaml = """
        name: full.cluster_1
        protocol: eventual
        params:
          heartbeat: 10ms
          batch: 64
          verbose: true
          label: "a b"
        datacenters: 2
        partitions: 2
        servers:
          - { id: 1_1, host: h4.example, port: 7203 }
          - id: 0_1
            host: h2.example
            port: 7201
          - { id: 1_0, host: h3.example, port: 7202 }
          - { id: 0_0, host: h1.example, port: 7200 }
        storage:
          engine: memory
          durability: none
          dir: /var/tmp/kvlab-test
        emulation:
          rtt:
            - [0, 100ms]
            - [0.1s, 0]
          skew: { 0_1: 5ms, 1_0: -3ms, 1_1: 2 }
        limits:
          frameBytesMax: 1048576
          peerQueueMessagesMax: 500
          clientRequestsInFlightMax: 7
        """;
    ClusterConfig c = ClusterConfig.parse(yaml, "full.yaml");

    assertEquals("full.yaml", c.source());
    assertEquals("full.cluster_1", c.name());
    assertEquals("eventual", c.protocol());
    assertEquals(Map.of("heartbeat", "10ms", "batch", "64", "verbose", "true", "label", "a b"), c.params().asMap());
    assertEquals(10, c.params().duration("heartbeat", null).toMillis());
    assertEquals(new Topology(2, 2), c.topology());
    assertEquals(List.of(
        new ServerSpec(NodeId.of(0, 0), "h1.example", 7200),
        new ServerSpec(NodeId.of(0, 1), "h2.example", 7201),
        new ServerSpec(NodeId.of(1, 0), "h3.example", 7202),
        new ServerSpec(NodeId.of(1, 1), "h4.example", 7203)), c.servers());
    assertEquals(new StorageSpec(StorageSpec.Engine.MEMORY, Durability.NONE, Path.of("/var/tmp/kvlab-test")),
        c.storage());
    assertArrayEquals(new long[][] {{0, 100}, {100, 0}}, c.emulation().rttMillis());
    assertEquals(50, c.emulation().oneWayDelayMillis(0, 1));
    assertEquals(Map.of(NodeId.of(0, 1), 5L, NodeId.of(1, 0), -3L, NodeId.of(1, 1), 2L), c.emulation().skewMillis());
    assertEquals(0, c.emulation().skewMillisOf(NodeId.of(0, 0)));
    assertEquals(new Limits(1048576, 500, 7), c.limits());
  }

  @Test
  void when_optional_sections_are_absent_then_defaults_apply() throws Exception {
    ClusterConfig c = ClusterConfig.parse(MINIMAL, "min.yaml");

    assertTrue(c.params().asMap().isEmpty());
    assertEquals(new StorageSpec(StorageSpec.Engine.JE, Durability.NONE, cwd().resolve(".kvlab/data")),
        c.storage());
    assertNull(c.emulation().rttMillis());
    assertTrue(c.emulation().skewMillis().isEmpty());
    assertEquals(Limits.defaults(), c.limits());
    assertEquals(4, c.servers().size());
  }

  @Test
  void when_sections_are_present_but_empty_then_defaults_apply() throws Exception {
    ClusterConfig c = ClusterConfig.parse(MINIMAL + "params:\nstorage:\nemulation:\nlimits:\n", "empty-sections.yaml");

    assertTrue(c.params().asMap().isEmpty());
    assertEquals(StorageSpec.Engine.JE, c.storage().engine());
    assertNull(c.emulation().rttMillis());
    assertEquals(Limits.defaults(), c.limits());
  }

  @Test
  void when_limits_are_partly_given_then_the_others_keep_their_defaults() throws Exception {
    ClusterConfig c = ClusterConfig.parse(MINIMAL + "limits: { peerQueueMessagesMax: 1000 }\n", "l.yaml");

    assertEquals(new Limits(Limits.FRAME_BYTES_MAX_DEFAULT, 1000, Limits.CLIENT_REQUESTS_IN_FLIGHT_MAX_DEFAULT),
        c.limits());
  }

  @Test
  void when_peerFlushMicros_is_given_then_it_paces_peer_writes_and_out_of_range_names_the_range() throws Exception {
    assertEquals(0, ClusterConfig.parse(MINIMAL + "limits: { peerFlushMicros: 0 }\n", "p.yaml").limits().peerFlushMicros());
    assertEquals(250, ClusterConfig.parse(MINIMAL + "limits: { peerFlushMicros: 250 }\n", "p.yaml").limits()
        .peerFlushMicros());
    assertEquals(Limits.PEER_FLUSH_MICROS_DEFAULT, ClusterConfig.parse(MINIMAL, "p.yaml").limits().peerFlushMicros());
    ConfigException e = assertThrows(ConfigException.class,
        () -> ClusterConfig.parse(MINIMAL + "limits: { peerFlushMicros: -1 }\n", "p.yaml"));
    assertTrue(e.getMessage().contains("peerFlushMicros"), e.getMessage());
    assertTrue(e.getMessage().contains(String.valueOf(Limits.PEER_FLUSH_MICROS_MAX)), e.getMessage());
  }

  @Test
  void when_dir_is_relative_then_it_resolves_against_the_working_directory_not_the_file() throws Exception {
    Path tmp = Files.createTempDirectory("kvlab-config");
    Path file = tmp.resolve("c.yaml");
    Files.writeString(file, MINIMAL + "storage: { dir: data/../state }\n");

    ClusterConfig c = ClusterConfig.load(file);

    assertEquals(cwd().resolve("state"), c.storage().dir());
    assertTrue(c.storage().dir().isAbsolute());
    assertEquals(cwd().resolve("state").resolve("t").resolve("1_0"), c.storage().dirOf("t", NodeId.of(1, 0)));
  }

  @Test
  void when_dir_starts_with_tilde_then_it_is_under_the_home_directory() throws Exception {
    ClusterConfig c = ClusterConfig.parse(MINIMAL + "storage: { dir: ~/kv }\n", "t.yaml");

    assertEquals(Path.of(System.getProperty("user.home"), "kv").toAbsolutePath().normalize(), c.storage().dir());
  }

  @Test
  void when_storage_values_are_upper_case_then_they_are_accepted() throws Exception {
    ClusterConfig c = ClusterConfig.parse(MINIMAL + "storage: { engine: JE, durability: Sync }\n", "t.yaml");

    assertEquals(StorageSpec.Engine.JE, c.storage().engine());
    assertEquals(Durability.SYNC, c.storage().durability());
  }

  @Test
  void when_local_generator_then_server_d_p_gets_base_port_plus_d_times_partitions_plus_p() throws Exception {
    String yaml = """
        name: gen
        protocol: eventual
        datacenters: 2
        partitions: 3
        local: { host: 127.0.0.2, basePort: 9000 }
        """;
    ClusterConfig c = ClusterConfig.parse(yaml, "gen.yaml");

    assertEquals(List.of(
        new ServerSpec(NodeId.of(0, 0), "127.0.0.2", 9000),
        new ServerSpec(NodeId.of(0, 1), "127.0.0.2", 9001),
        new ServerSpec(NodeId.of(0, 2), "127.0.0.2", 9002),
        new ServerSpec(NodeId.of(1, 0), "127.0.0.2", 9003),
        new ServerSpec(NodeId.of(1, 1), "127.0.0.2", 9004),
        new ServerSpec(NodeId.of(1, 2), "127.0.0.2", 9005)), c.servers());
  }

  @Test
  void when_local_generator_has_no_host_then_loopback_is_used() throws Exception {
    String yaml = "name: gen\nprotocol: eventual\ndatacenters: 1\npartitions: 2\nlocal: { basePort: 65534 }\n";
    ClusterConfig c = ClusterConfig.parse(yaml, "gen.yaml");

    assertEquals(List.of(new ServerSpec(NodeId.of(0, 0), "127.0.0.1", 65534),
        new ServerSpec(NodeId.of(0, 1), "127.0.0.1", 65535)), c.servers());
  }

  @Test
  void when_server_ids_look_like_yaml_integers_then_they_are_read_as_written() throws Exception {
    // YAML 1.1 reads 1_0 as the integer 10 and 0_1 as octal 1; the loader must keep the text.
    ClusterConfig c = ClusterConfig.parse(MINIMAL, "t.yaml");

    assertEquals(List.of(NodeId.of(0, 0), NodeId.of(0, 1), NodeId.of(1, 0), NodeId.of(1, 1)),
        c.servers().stream().map(ServerSpec::id).toList());
  }

  @Test
  void when_file_has_a_byte_order_mark_and_comments_then_it_loads() throws Exception {
    Path file = Files.createTempDirectory("kvlab-config").resolve("bom.yaml");
    Files.writeString(file, "\uFEFF# a comment\n---\n" + MINIMAL);

    assertEquals("t", ClusterConfig.load(file).name());
  }

  @Test
  void when_loading_eventual_2dc_3p_example_then_it_has_six_loopback_servers_on_7100_to_7105() throws Exception {
    Path file = examples().resolve("eventual-2dc-3p.yaml");
    ClusterConfig c = ClusterConfig.load(file);

    assertEquals(file.toString(), c.source());
    assertEquals("eventual-2dc-3p", c.name());
    assertEquals("eventual", c.protocol());
    assertEquals(new Topology(2, 3), c.topology());
    assertEquals(List.of(7100, 7101, 7102, 7103, 7104, 7105), c.servers().stream().map(ServerSpec::port).toList());
    assertTrue(c.servers().stream().allMatch(s -> s.host().equals("127.0.0.1")));
    assertEquals(new StorageSpec(StorageSpec.Engine.JE, Durability.NONE, cwd().resolve(".kvlab/data")), c.storage());
    assertNull(c.emulation().rttMillis());
    assertTrue(c.emulation().skewMillis().isEmpty());
  }

  @Test
  void when_eventual_2dc_3p_example_has_its_emulation_uncommented_then_it_still_loads() throws Exception {
    String text = Files.readString(examples().resolve("eventual-2dc-3p.yaml"));
    String uncommented = text.replaceAll("(?m)^# emulation:", "emulation:").replaceAll("(?m)^#   ", "  ");

    ClusterConfig c = ClusterConfig.parse(uncommented, "uncommented.yaml");

    assertArrayEquals(new long[][] {{0, 100}, {100, 0}}, c.emulation().rttMillis());
    assertEquals(Map.of(NodeId.of(0, 1), 5L, NodeId.of(1, 0), -3L), c.emulation().skewMillis());
  }

  @Test
  void when_loading_wan_example_then_it_has_40ms_rtt_and_ports_from_7110() throws Exception {
    ClusterConfig c = ClusterConfig.load(examples().resolve("eventual-2dc-3p-wan.yaml"));

    assertEquals(new Topology(2, 3), c.topology());
    assertEquals(List.of(7110, 7111, 7112, 7113, 7114, 7115), c.servers().stream().map(ServerSpec::port).toList());
    assertArrayEquals(new long[][] {{0, 40}, {40, 0}}, c.emulation().rttMillis());
    assertEquals(20, c.emulation().oneWayDelayMillis(1, 0));
  }

  @Test
  void when_loading_single_server_example_then_it_has_one_server_on_7200() throws Exception {
    ClusterConfig c = ClusterConfig.load(examples().resolve("eventual-1.yaml"));

    assertEquals(new Topology(1, 1), c.topology());
    assertEquals(List.of(new ServerSpec(NodeId.of(0, 0), "127.0.0.1", 7200)), c.servers());
  }

  @Test
  void when_any_cluster_file_in_examples_is_loaded_then_it_is_valid() throws Exception {
    List<Path> clusterFiles = new java.util.ArrayList<>();
    try (var s = Files.list(examples())) {
      for (Path f : s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
        String text = Files.readString(f);
        // Cluster files (not experiment files or others that may sit beside them).
        if (text.matches("(?s)(.*\\n)?datacenters:.*") && text.matches("(?s)(.*\\n)?protocol:.*")) {
          clusterFiles.add(f);
        }
      }
    }
    assertTrue(clusterFiles.size() >= 3, "cluster files found: " + clusterFiles);
    for (Path f : clusterFiles) {
      assertEquals(f.toString(), ClusterConfig.load(f).source());
    }
  }

  @Test
  void when_the_full_example_of_the_format_reference_is_loaded_then_it_matches_the_text() throws Exception {
    String doc = Files.readString(examples().getParent().resolve("docs").resolve("cluster-file.md"));
    int section = doc.indexOf("## A full example");
    int start = doc.indexOf("```yaml\n", section) + "```yaml\n".length();
    String yaml = doc.substring(start, doc.indexOf("```", start));

    ClusterConfig c = ClusterConfig.parse(yaml, "docs/cluster-file.md");

    assertEquals("eventual-2dc-3p", c.name());
    assertEquals(Map.of("heartbeat", "10ms"), c.params().asMap());
    assertEquals(6, c.servers().size());
    assertArrayEquals(new long[][] {{0, 100}, {100, 0}}, c.emulation().rttMillis());
    assertEquals(Map.of(NodeId.of(0, 1), 5L, NodeId.of(1, 0), -3L), c.emulation().skewMillis());
    assertEquals(Limits.defaults(), c.limits());
  }
}
