package org.kvlab.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Invalid cluster files: each problem is reported with its line, what is wrong and a fix. */
class ClusterConfigValidationTest {

  /** Lines 1 to 9; tests append sections from line 10 on or replace lines. */
  private static final String MINIMAL = ClusterConfigLoadTest.MINIMAL;

  private static String replaceLine(String yaml, int line, String replacement) {
    String[] lines = yaml.split("\n", -1);
    lines[line - 1] = replacement;
    return String.join("\n", lines);
  }

  /** Asserts that {@code yaml} fails at {@code line} with a readable message containing each fragment. */
  private static ConfigException fails(String yaml, int line, String... fragments) {
    ConfigException e = assertThrows(ConfigException.class, () -> ClusterConfig.parse(yaml, "c.yaml"));
    assertReadable(e, "c.yaml", line, fragments);
    return e;
  }

  private static void assertReadable(ConfigException e, String file, int line, String... fragments) {
    String m = e.getMessage();
    assertEquals(line, e.line(), m);
    assertEquals(file, e.file(), m);
    assertTrue(m.startsWith(line > 0 ? file + ":" + line + ":" : file + ": "), m);
    assertTrue(m.contains(". Fix: "), m);
    assertFalse(m.contains("Exception"), m);
    assertFalse(m.contains("at org."), m);
    assertFalse(m.contains("\n"), m);
    for (String f : fragments) {
      assertTrue(m.contains(f), "expected '" + f + "' in: " + m);
    }
  }

  // --- file kinds and sizes (issue 11): refused before reading, so nothing hangs or runs out of memory

  @Test
  void when_path_is_a_device_then_it_is_refused_without_reading() {
    Path zero = Path.of("/dev/zero");
    ConfigException e = assertThrows(ConfigException.class, () -> ClusterConfig.load(zero));
    assertReadable(e, zero.toString(), 0, "not a regular file", "write it to a file first");
  }

  @Test
  @org.junit.jupiter.api.Timeout(20)
  void when_path_is_a_fifo_then_it_is_refused_without_blocking() throws Exception {
    Path fifo = Files.createTempDirectory("kvlab-config").resolve("fifo.yaml");
    Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assertTrue(mk.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) && mk.exitValue() == 0, "mkfifo");
    ConfigException e = assertThrows(ConfigException.class, () -> ClusterConfig.load(fifo));
    assertReadable(e, fifo.toString(), 0, "not a regular file");
  }

  @Test
  void when_file_is_too_large_then_it_is_refused_without_reading() throws Exception {
    Path big = Files.createTempDirectory("kvlab-config").resolve("big.yaml");
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(big.toFile(), "rw")) {
      f.setLength(YamlReader.FILE_BYTES_MAX + 1); // sparse: no disk used
    }
    ConfigException e = assertThrows(ConfigException.class, () -> ClusterConfig.load(big));
    assertReadable(e, big.toString(), 0, "larger than 16 MiB");
    Files.delete(big);
  }

  // --- numbers YAML 1.1 reads in other bases, and tags

  @Test
  void when_a_number_is_hex_binary_octal_or_has_underscores_then_it_is_refused_with_its_line() {
    fails(MINIMAL.replace("port: 7100", "port: 0x1dc4"), 6, "servers[0].port: '0x1dc4' is not a whole number in"
        + " decimal digits (no hex, octal or binary)", "Fix: write a whole number from 1 to 65535 in decimal digits");
    fails(MINIMAL.replace("port: 7101", "port: 7_101"), 7, "'7_101' is not a whole number in decimal digits"
        + " (no '_' separators)");
    fails(MINIMAL.replace("port: 7102", "port: 0b1"), 8, "'0b1' is not a whole number");
    fails(MINIMAL.replace("port: 7103", "port: 07103"), 9, "'07103' has a leading zero", "without leading zeros");
    fails(replaceLine(MINIMAL, 3, "datacenters: 0x2"), 3, "datacenters: '0x2' is not a whole number");
    fails(MINIMAL + "limits:\n  frameBytesMax: 1_048_576\n", 11, "limits.frameBytesMax: '1_048_576'");
  }

  @Test
  void when_a_value_has_a_yaml_tag_then_it_is_refused_with_its_column() {
    ConfigException e = fails(MINIMAL.replace("port: 7100", "port: !!str 7100"), 6,
        "servers[0].port: YAML tags (!!str) are not supported", "Fix: remove the tag");
    assertTrue(e.getMessage().matches("c\\.yaml:6:\\d+: .*"), "line and column: " + e.getMessage());
    fails(replaceLine(MINIMAL, 1, "name: !custom t"), 1, "name: YAML tags (!custom) are not supported");
    fails(MINIMAL + "storage: !!map { engine: memory }\n", 10, "storage: YAML tags (!!map)");
  }

  // --- protocol parameters

  @Test
  void when_params_are_not_declared_by_the_protocol_then_they_are_refused_with_the_known_list() {
    String yaml = MINIMAL.replace("protocol: eventual", "protocol: testkit") + "params:\n  heartbeat: 10ms\n";
    ConfigException e = fails(yaml, 11, "params: 'heartbeat' is not a parameter of protocol testkit",
        "Fix: remove it. Protocol testkit reads no parameters.");
    assertTrue(e.getMessage().startsWith("c.yaml:11:3: "), "line and column of the key: " + e.getMessage());
  }

  // --- file level

  @Test
  void when_file_does_not_exist_then_no_such_file_and_check_the_path() {
    Path missing = Path.of("no-such-dir", "missing.yaml");
    ConfigException e = assertThrows(ConfigException.class, () -> ClusterConfig.load(missing));
    assertReadable(e, missing.toString(), 0,
        "cannot read cluster file " + missing + ": no such file. Fix: check the path");
  }

  @Test
  void when_path_is_a_directory_then_it_says_so() throws Exception {
    Path dir = Files.createTempDirectory("kvlab-config");
    ConfigException e = assertThrows(ConfigException.class, () -> ClusterConfig.load(dir));
    assertReadable(e, dir.toString(), 0, "it is a directory");
  }

  @Test
  void when_file_is_empty_then_it_says_empty() throws Exception {
    Path file = Files.createTempDirectory("kvlab-config").resolve("empty.yaml");
    Files.writeString(file, "");
    ConfigException e = assertThrows(ConfigException.class, () -> ClusterConfig.load(file));
    assertReadable(e, file.toString(), 0, "empty");
  }

  @Test
  void when_file_has_only_comments_then_it_says_empty() {
    fails("# nothing here\n\n# at all\n", 0, "empty");
  }

  @Test
  void when_file_is_not_utf8_then_it_says_so() throws Exception {
    Path file = Files.createTempDirectory("kvlab-config").resolve("latin1.yaml");
    Files.write(file, new byte[] {'n', 'a', 'm', 'e', ':', ' ', (byte) 0xe9, '\n'});
    ConfigException e = assertThrows(ConfigException.class, () -> ClusterConfig.load(file));
    assertReadable(e, file.toString(), 0, "not UTF-8");
  }

  @Test
  void when_top_level_is_a_list_then_it_must_be_a_mapping() {
    fails("- a\n- b\n", 1, "must be a mapping");
  }

  // --- YAML syntax

  @Test
  void when_yaml_syntax_is_broken_then_the_line_of_the_problem_is_given() {
    fails(replaceLine(MINIMAL, 3, "datacenters: 2: 3"), 3, "YAML syntax error", "mapping values are not allowed");
  }

  @Test
  void when_flow_list_is_not_closed_then_syntax_error_names_where_it_started() {
    fails(replaceLine(MINIMAL, 7, "  - { id: 0_1, host: 127.0.0.1, port: 7101"), 8, "YAML syntax error", "line 7");
  }

  @Test
  void when_indented_with_a_tab_then_it_says_use_spaces() {
    fails(MINIMAL + "storage:\n\tengine: je\n", 11, "tab", "spaces");
  }

  @Test
  void when_a_key_is_given_twice_then_both_lines_are_named() {
    fails(MINIMAL + "name: other\n", 10, "'name' is given twice (first on line 1)");
  }

  @Test
  void when_a_second_document_follows_then_it_is_rejected() {
    fails(MINIMAL + "---\nname: x\n", 11, "second YAML document");
  }

  @Test
  void when_an_alias_is_used_then_it_is_rejected() {
    fails(replaceLine(MINIMAL, 1, "name: &n t") + "storage: { dir: *n }\n", 10, "storage.dir", "aliases");
  }

  // --- keys

  @Test
  void when_top_level_key_has_a_typo_then_the_closest_key_is_suggested() {
    fails(replaceLine(MINIMAL, 4, "partiton: 2"), 4, "unknown top-level key 'partiton'",
        "did you mean 'partitions'?", "datacenters, partitions, servers");
  }

  @Test
  void when_top_level_key_is_unknown_and_far_from_any_then_the_known_keys_are_listed() {
    fails(MINIMAL + "colour: blue\n", 10, "unknown top-level key 'colour'",
        "remove it; the known top-level keys are name, protocol, params, datacenters, partitions, servers, local,"
            + " storage, emulation, limits");
  }

  @Test
  void when_section_key_has_a_typo_then_the_closest_key_is_suggested() {
    fails(MINIMAL + "storage:\n  engin: je\n", 11, "storage: unknown key 'engin'", "did you mean 'engine'?",
        "engine, durability, dir");
  }

  @Test
  void when_limits_key_has_a_typo_then_the_closest_key_is_suggested() {
    fails(MINIMAL + "limits:\n  frameByteMax: 1024\n", 11, "did you mean 'frameBytesMax'?");
  }

  @Test
  void when_server_entry_has_an_unknown_key_then_it_is_named() {
    fails(replaceLine(MINIMAL, 8, "  - { id: 1_0, host: 127.0.0.1, prot: 7102 }"), 8,
        "servers[2]: unknown key 'prot'", "did you mean 'port'?");
  }

  @Test
  void when_a_required_key_is_missing_then_it_is_named_with_an_example() {
    fails(MINIMAL.replace("protocol: eventual\n", ""), 1, "missing required key 'protocol'", "protocol: eventual");
  }

  @Test
  void when_a_required_key_has_no_value_then_it_is_named() {
    fails(replaceLine(MINIMAL, 1, "name:"), 1, "name: has no value");
  }

  @Test
  void when_server_entry_lacks_a_port_then_the_entry_is_named() {
    fails(replaceLine(MINIMAL, 9, "  - { id: 1_1, host: 127.0.0.1 }"), 9, "servers[3]: missing required key 'port'");
  }

  // --- types and ranges

  @Test
  void when_datacenters_is_a_word_then_it_is_not_a_whole_number() {
    fails(replaceLine(MINIMAL, 3, "datacenters: two"), 3, "datacenters: 'two' is not a whole number",
        "from 1 to 64");
  }

  @Test
  void when_partitions_is_a_decimal_then_it_is_not_a_whole_number() {
    fails(replaceLine(MINIMAL, 4, "partitions: 2.5"), 4, "partitions: '2.5' is not a whole number");
  }

  @Test
  void when_datacenters_is_above_64_then_out_of_range() {
    fails(replaceLine(MINIMAL, 3, "datacenters: 65"), 3, "datacenters: 65 is out of range", "from 1 to 64");
  }

  @Test
  void when_partitions_is_zero_then_out_of_range() {
    fails(replaceLine(MINIMAL, 4, "partitions: 0"), 4, "partitions: 0 is out of range", "from 1 to 1024");
  }

  @Test
  void when_partitions_is_above_1024_then_out_of_range() {
    fails(replaceLine(MINIMAL, 4, "partitions: 1025"), 4, "from 1 to 1024");
  }

  @Test
  void when_name_has_upper_case_and_spaces_then_it_is_not_a_valid_name() {
    fails(replaceLine(MINIMAL, 1, "name: My Cluster"), 1, "'My Cluster' is not a valid cluster name");
  }

  @Test
  void when_protocol_is_a_mapping_then_params_are_pointed_to() {
    fails(replaceLine(MINIMAL, 2, "protocol: { name: eventual }"), 2, "protocol: must be the protocol's name",
        "'params'");
  }

  @Test
  void when_a_param_is_a_nested_mapping_then_it_is_rejected() {
    fails(MINIMAL + "params:\n  heartbeat: 10ms\n  timing: { a: 1 }\n", 12,
        "params.timing: is a mapping", "single values");
  }

  @Test
  void when_a_param_is_a_list_then_it_is_rejected() {
    fails(MINIMAL + "params:\n  peers: [1, 2]\n", 11, "params.peers: is a list");
  }

  @Test
  void when_limit_is_not_a_number_then_wrong_type() {
    fails(MINIMAL + "limits:\n  peerQueueMessagesMax: lots\n", 11,
        "limits.peerQueueMessagesMax: 'lots' is not a whole number");
  }

  @Test
  void when_limit_is_zero_then_out_of_range() {
    fails(MINIMAL + "limits:\n  clientRequestsInFlightMax: 0\n", 11,
        "limits.clientRequestsInFlightMax: 0 is out of range");
  }

  @Test
  void when_frame_limit_is_above_1gib_then_out_of_range() {
    fails(MINIMAL + "limits: { frameBytesMax: 4294967296 }\n", 10, "limits.frameBytesMax: 4294967296 is out of range");
  }

  @Test
  void when_a_section_is_a_scalar_then_it_must_be_a_mapping() {
    fails(MINIMAL + "storage: je\n", 10, "storage: must be a mapping");
  }

  // --- servers

  @Test
  void when_server_id_is_malformed_then_the_form_is_explained() {
    fails(replaceLine(MINIMAL, 7, "  - { id: 0-1, host: 127.0.0.1, port: 7101 }"), 7,
        "servers[1].id: '0-1' is not a server id", "<datacenter>_<partition>");
  }

  @Test
  void when_server_id_is_outside_the_topology_then_the_valid_range_is_given() {
    fails(replaceLine(MINIMAL, 9, "  - { id: 2_0, host: 127.0.0.1, port: 7103 }"), 9,
        "server 2_0 is outside the topology (datacenters: 2, partitions: 2)", "0_0 to 1_1");
  }

  @Test
  void when_server_id_is_listed_twice_then_both_lines_are_named() {
    fails(replaceLine(MINIMAL, 9, "  - { id: 0_1, host: 127.0.0.1, port: 7103 }"), 9,
        "server 0_1 is listed twice (first on line 7)");
  }

  @Test
  void when_servers_are_missing_then_each_missing_id_is_named() {
    String yaml = MINIMAL.replace("  - { id: 0_1, host: 127.0.0.1, port: 7101 }\n", "")
        .replace("  - { id: 1_1, host: 127.0.0.1, port: 7103 }\n", "");
    fails(yaml, 5, "servers: no entry for 0_1 and 1_1");
  }

  @Test
  void when_servers_is_an_empty_list_then_all_servers_are_named_missing() {
    fails("name: t\nprotocol: eventual\ndatacenters: 1\npartitions: 3\nservers: []\n", 5,
        "no entry for 0_0, 0_1 and 0_2");
  }

  @Test
  void when_two_servers_share_host_and_port_then_the_other_server_is_named() {
    fails(replaceLine(MINIMAL, 8, "  - { id: 1_0, host: 127.0.0.1, port: 7100 }"), 8,
        "127.0.0.1:7100 is already used by server 0_0 (line 6)");
  }

  @Test
  void when_same_port_on_different_hosts_then_it_is_fine() throws Exception {
    ClusterConfig.parse(replaceLine(MINIMAL, 8, "  - { id: 1_0, host: 127.0.0.2, port: 7100 }"), "c.yaml");
  }

  @Test
  void when_port_is_above_65535_then_it_is_not_a_port() {
    fails(replaceLine(MINIMAL, 8, "  - { id: 1_0, host: 127.0.0.1, port: 70000 }"), 8,
        "servers[2].port: 70000 is not a port. Fix: use a number from 1 to 65535.");
  }

  @Test
  void when_port_is_zero_then_it_is_not_a_port() {
    fails(replaceLine(MINIMAL, 6, "  - id: 0_0\n    host: 127.0.0.1\n    port: 0"), 8,
        "servers[0].port: 0 is not a port");
  }

  @Test
  void when_host_has_a_space_then_it_is_rejected() {
    fails(replaceLine(MINIMAL, 6, "  - { id: 0_0, host: local host, port: 7100 }"), 6, "servers[0].host");
  }

  @Test
  void when_servers_is_a_mapping_then_it_must_be_a_list() {
    fails(replaceLine(MINIMAL, 5, "servers: { id: 0_0 }").replaceAll("(?m)^  - .*\\n", ""), 5,
        "servers: must be a list");
  }

  @Test
  void when_both_servers_and_local_are_given_then_keep_one() {
    fails(MINIMAL + "local: { basePort: 7100 }\n", 10, "'servers' (line 5) and 'local' are both given", "keep one");
  }

  @Test
  void when_neither_servers_nor_local_is_given_then_both_are_offered() {
    fails("name: t\nprotocol: eventual\ndatacenters: 1\npartitions: 1\n", 1,
        "missing required key 'servers' (or 'local')", "basePort");
  }

  @Test
  void when_local_ports_would_pass_65535_then_the_largest_base_port_is_given() {
    fails("name: t\nprotocol: eventual\ndatacenters: 2\npartitions: 3\nlocal:\n  basePort: 65531\n", 6,
        "local.basePort", "beyond 65535", "use a basePort from 1 to 65530");
  }

  @Test
  void when_local_lacks_base_port_then_it_is_named() {
    fails("name: t\nprotocol: eventual\ndatacenters: 1\npartitions: 1\nlocal: { host: 127.0.0.1 }\n", 5,
        "local: missing required key 'basePort'");
  }

  // --- storage

  @Test
  void when_memory_engine_with_sync_durability_then_it_is_impossible() {
    fails(MINIMAL + "storage:\n  engine: memory\n  durability: sync\n", 12,
        "storage.engine memory cannot give durability sync. Fix: use engine je, or durability none.");
  }

  @Test
  void when_engine_is_unknown_then_the_engines_are_listed() {
    fails(MINIMAL + "storage:\n  engine: rocksdb\n", 11, "'rocksdb' is not a storage engine", "je", "memory");
  }

  @Test
  void when_durability_is_unknown_then_the_choices_are_listed() {
    fails(MINIMAL + "storage: { durability: fsync }\n", 10, "'fsync' is not a durability", "none", "sync");
  }

  // --- emulation

  @Test
  void when_rtt_has_the_wrong_number_of_rows_then_the_size_is_given() {
    fails(MINIMAL + "emulation:\n  rtt:\n    - [0, 1ms]\n", 12, "emulation.rtt: has 1 row but the cluster has 2",
        "2 x 2");
  }

  @Test
  void when_rtt_row_has_the_wrong_length_then_the_row_is_named() {
    fails(MINIMAL + "emulation:\n  rtt:\n    - [0, 1ms]\n    - [1ms, 0, 5ms]\n", 13,
        "emulation.rtt[1]: has 3 entries");
  }

  @Test
  void when_rtt_diagonal_is_nonzero_then_zero_is_required() {
    fails(MINIMAL + "emulation:\n  rtt:\n    - [0, 1ms]\n    - [1ms, 2ms]\n", 13, "emulation.rtt[1][1]",
        "diagonal", "write 0 on the diagonal");
  }

  @Test
  void when_rtt_is_asymmetric_then_both_entries_are_named() {
    fails(MINIMAL + "emulation:\n  rtt:\n    - [0, 100ms]\n    - [90ms, 0]\n", 13,
        "emulation.rtt[1][0]: 90ms differs from emulation.rtt[0][1] = 100ms (line 12)", "symmetric");
  }

  @Test
  void when_rtt_is_negative_then_it_is_rejected() {
    fails(MINIMAL + "emulation:\n  rtt: [[0, -5ms], [-5ms, 0]]\n", 11, "emulation.rtt[0][1]", "negative");
  }

  @Test
  void when_rtt_entry_is_not_a_duration_then_examples_are_given() {
    fails(MINIMAL + "emulation:\n  rtt: [[0, far], [far, 0]]\n", 11, "'far' is not a duration", "100ms");
  }

  @Test
  void when_rtt_entry_is_below_a_millisecond_then_it_is_rejected() {
    fails(MINIMAL + "emulation:\n  rtt: [[0, 500us], [500us, 0]]\n", 11, "not a whole number of milliseconds");
  }

  @Test
  void when_skew_names_an_unknown_server_then_it_is_rejected() {
    fails(MINIMAL + "emulation:\n  skew:\n    0_1: 5ms\n    3_0: 1ms\n", 13,
        "emulation.skew.3_0: skew is given for server 3_0, which is not in the cluster", "0_0 to 1_1");
  }

  @Test
  void when_skew_key_is_not_a_server_id_then_the_form_is_explained() {
    fails(MINIMAL + "emulation:\n  skew: { dc1: 5ms }\n", 11, "'dc1' is not a server id");
  }

  @Test
  void when_skew_is_longer_than_an_hour_then_it_is_rejected() {
    fails(MINIMAL + "emulation:\n  skew: { 0_0: 2h }\n", 11, "longer than 1 hour");
  }

  @Test
  void when_closest_key_is_computed_then_small_typos_match_and_unrelated_words_do_not() {
    var keys = java.util.List.of("datacenters", "partitions", "servers");
    assertEquals("partitions", ConfigLoader.closest("partiton", keys));
    assertEquals("partitions", ConfigLoader.closest("Partitions", keys));
    assertEquals("servers", ConfigLoader.closest("server", keys));
    assertEquals(null, ConfigLoader.closest("colour", keys));
  }
}
