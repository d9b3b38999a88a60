package org.kvlab.cluster.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Authentication through a real ssh-agent (started here, stopped by PID) instead of a key file. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SshAgentTest {
  @TempDir Path tmp;

  @Test
  void connects_with_the_agents_key() throws Exception {
    try (SshTestHosts hosts = SshTestHosts.start(tmp.resolve("hosts"), 1, 0)) {
      Path socket = tmp.resolve("agent.sock");
      Process agent = new ProcessBuilder("ssh-agent", "-D", "-a", socket.toString())
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      try {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.exists(socket) && System.nanoTime() < until) {
          Thread.sleep(20);
        }
        SshSettings settings = hosts.settings().withAgent(socket);
        // The agent holds no key yet: refused with the fix.
        SshException empty = org.junit.jupiter.api.Assertions.assertThrows(SshException.class,
            () -> SshConnection.open(hosts.hosts.get(0).address(), settings,
                new KnownHostsFile(hosts.knownHosts, SshSettings.HostKeyPolicy.STRICT, null)));
        assertTrue(empty.getMessage().contains("holds no keys"), empty.getMessage());
        ProcessBuilder add = new ProcessBuilder("ssh-add", hosts.key.toString()).redirectErrorStream(true);
        add.environment().put("SSH_AUTH_SOCK", socket.toString());
        Process p = add.start();
        p.getInputStream().readAllBytes();
        assertEquals(0, p.waitFor());
        try (SshConnection c = SshConnection.open(hosts.hosts.get(0).address(), settings,
            new KnownHostsFile(hosts.knownHosts, SshSettings.HostKeyPolicy.STRICT, null))) {
          assertEquals("agent\n", c.exec("echo agent").stdout());
        }
      } finally {
        agent.destroy();
        if (!agent.waitFor(10, TimeUnit.SECONDS)) {
          agent.destroyForcibly();
        }
      }
    }
  }
}
