package org.kvlab.cluster.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;

class SshSectionTest {
  private static final String HEAD = "name: lab\nprotocol: eventual\ndatacenters: 1\npartitions: 1\n"
      + "servers:\n  - { id: 0_0, host: 10.0.0.5, port: 7100 }\n";

  @Test
  void reads_every_key_and_the_cluster_loader_accepts_the_section() throws Exception {
    String yaml = HEAD + "ssh:\n  user: alice\n  keyFile: /keys/id\n  knownHosts: /keys/kh\n  port: 2222\n"
        + "  dir: kvlab/{host}\n  java: /opt/jdk/bin/java\n  jvmOptions: -Xmx1g\n  connectTimeout: 3s\n"
        + "  addresses: { 10.0.0.5: 203.0.113.7 }\n";
    SshSettings s = SshSection.parse(yaml, "lab.yaml");
    assertEquals("alice", s.user());
    assertEquals(Path.of("/keys/id"), s.keyFile());
    assertFalse(s.agent());
    assertEquals(Path.of("/keys/kh"), s.knownHosts());
    assertEquals(2222, s.port());
    assertEquals("kvlab/10.0.0.5", s.remoteDirFor("10.0.0.5"));
    assertEquals("/opt/jdk/bin/java", s.java());
    assertEquals("-Xmx1g", s.jvmOptions());
    assertEquals(Duration.ofSeconds(3), s.connectTimeout());
    assertEquals("203.0.113.7", s.sshAddress("10.0.0.5"));
    assertEquals(SshSettings.HostKeyPolicy.STRICT, s.hostKeys());
    assertEquals("lab", ClusterConfig.parse(yaml, "lab.yaml").name());
  }

  @Test
  void agent_instead_of_a_key_file() throws Exception {
    SshSettings s = SshSection.parse(HEAD + "ssh: { user: alice, agent: true }\n", "lab.yaml");
    assertTrue(s.agent());
    assertEquals(null, s.keyFile());
    assertEquals(22, s.port());
    assertEquals("kvlab", s.remoteDir());
  }

  private static void fails(String ssh, String where, String... parts) {
    ConfigException e = assertThrows(ConfigException.class, () -> SshSection.parse(HEAD + ssh, "lab.yaml"));
    assertTrue(e.getMessage().startsWith("lab.yaml:" + where + ": "), e.getMessage());
    for (String p : parts) {
      assertTrue(e.getMessage().contains(p), e.getMessage());
    }
  }

  @Test
  void errors_name_the_line_column_and_fix() {
    fails("ssh:\n  user: alice\n  password: hunter2\n", "9:3", "passwords are not accepted", "Fix:", "agent: true");
    fails("ssh:\n  user: alice\n", "8:3", "neither 'keyFile' nor 'agent: true'", "Fix:");
    fails("ssh:\n  user: alice\n  keyFile: k\n  prot: 22\n", "10:3", "unknown key 'prot'", "did you mean 'port'?");
    fails("ssh:\n  user: alice\n  keyFile: k\n  port: 70000\n", "10:9", "out of range", "1 to 65535");
    fails("ssh:\n  keyFile: k\n", "8:3", "missing required key 'user'");
    fails("ssh:\n  user: alice\n  keyFile: k\n  agent: true\n", "9:3", "both 'keyFile' and 'agent: true'");
    fails("ssh:\n  user: alice\n  keyFile: k\n  connectTimeout: soon\n", "10:19", "not a duration");
  }

  @Test
  void a_file_without_ssh_section_says_how_to_add_one() {
    ConfigException e = assertThrows(ConfigException.class, () -> SshSection.parse(HEAD, "lab.yaml"));
    assertTrue(e.getMessage().contains("no ssh section"), e.getMessage());
    assertTrue(e.getMessage().contains("Fix: add one"), e.getMessage());
  }
}
