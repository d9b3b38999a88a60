package org.kvlab.cluster.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.NodeId;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.protocols.eventual.Eventual;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.runtime.LoopbackPorts;

/**
 * {@code local status} and {@code local down} act only on the cluster of the file they are given: a
 * file of another cluster (or of a cluster of the same name started from another directory) that
 * names the same ports is refused with the cause and the fix, and the running servers keep running.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS) // stops a hang only
class LocalClusterIdentityTest {

  @Test
  void when_downIsGivenAnotherClustersFileOnTheSamePorts_then_nothingStopsAndTheCauseIsNamed(@TempDir Path dir)
      throws Exception {
    int base = LoopbackPorts.freeBlock(2);
    ClusterConfig running = ClusterConfig.load(write(dir, "a.yaml", "idtest-a", base, dir.resolve("a.secret")));
    try (LocalCluster cluster = LocalCluster.start(running, new Eventual())) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(60)));
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("a.secret"))));

      // Another cluster's file naming the same ports.
      ClusterConfig other = ClusterConfig.load(write(dir, "b.yaml", "idtest-b", base, dir.resolve("b.secret")));
      List<String> refused = new ArrayList<>();
      assertEquals(0, LocalClusterProcesses.stop(other, Duration.ofSeconds(1), refused::add));
      assertEquals(2, refused.size(), refused.toString());
      assertTrue(refused.get(0).contains("belongs to cluster 'idtest-a', not 'idtest-b'"), refused.get(0));
      assertTrue(refused.get(0).contains("Fix:"), refused.get(0));

      // The same cluster name started elsewhere: this directory has no secret, or another one.
      ClusterConfig noSecret = ClusterConfig.load(write(dir, "a2.yaml", "idtest-a", base, dir.resolve("none.secret")));
      List<LocalClusterProcesses.Probe> probes = LocalClusterProcesses.probes(noSecret);
      assertTrue(probes.stream().allMatch(p -> p.status().isEmpty() && p.refusal().contains("no cluster secret at")),
          probes.toString());
      org.kvlab.config.ClusterSecret.loadOrCreate(dir.resolve("other.secret"));
      ClusterConfig otherSecret = ClusterConfig.load(write(dir, "a3.yaml", "idtest-a", base, dir.resolve("other.secret")));
      refused.clear();
      assertEquals(0, LocalClusterProcesses.stop(otherSecret, Duration.ofSeconds(1), refused::add));
      assertEquals(2, refused.size(), refused.toString());
      assertTrue(refused.get(0).contains("does not know the secret"), refused.get(0));

      // The cluster still runs, and its own file still reaches it.
      List<Optional<org.kvlab.wire.Status>> statuses = LocalClusterProcesses.statuses(running);
      assertTrue(LocalClusterProcesses.allConnected(statuses), statuses.toString());
    }
  }

  @Test
  void when_aProcessCommandLineCannotBeRead_then_itIsNotTakenForKvlab() {
    assertFalse(LocalClusterProcesses.isKvlab(new Unreadable()));
  }

  @Test
  void when_aHostDoesNotResolveOrIsNotOfThisMachineOrItsPortIsTaken_then_theFixIsForThatCause() throws Exception {
    Path file = Path.of("c.yaml");
    ServerSpec unresolvable =
        new ServerSpec(NodeId.parse("0_0"), "no-such-host.invalid", 7100);
    LocalClusterProcesses.LaunchException e = assertThrows(
        LocalClusterProcesses.LaunchException.class, () -> LocalClusterProcesses.checkPortFree(unresolvable, file));
    assertEquals("server 0_0 cannot listen on no-such-host.invalid:7100: host 'no-such-host.invalid' does not resolve"
        + " to an address. Fix: correct the host in c.yaml (a local cluster runs on this machine: e.g. 127.0.0.1)",
        e.getMessage());
    // TEST-NET-1 (RFC 5737): an address, but of no interface here
    ServerSpec foreign =
        new ServerSpec(NodeId.parse("0_0"), "192.0.2.1", 7100);
    e = assertThrows(LocalClusterProcesses.LaunchException.class,
        () -> LocalClusterProcesses.checkPortFree(foreign, file));
    assertTrue(e.getMessage().contains("Fix: use a host that is an address of this machine"), e.getMessage());
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      ServerSpec busy = new ServerSpec(
          NodeId.parse("0_0"), "127.0.0.1", taken.getLocalPort());
      e = assertThrows(LocalClusterProcesses.LaunchException.class,
          () -> LocalClusterProcesses.checkPortFree(busy, file));
      assertTrue(e.getMessage().contains("Fix: free the port"), e.getMessage());
    }
  }

  private static Path write(Path dir, String file, String name, int base, Path secret) throws Exception {
    return Files.writeString(dir.resolve(file), """
        name: %s
        protocol: eventual
        datacenters: 2
        partitions: 1
        servers:
          - { id: 0_0, host: 127.0.0.1, port: %d }
          - { id: 1_0, host: 127.0.0.1, port: %d }
        storage:
          engine: memory
        security:
          secretFile: %s
        """.formatted(name, base, base + 1, secret));
  }

  /** A process whose command line the platform does not show (another user's, or hidepid). */
  private static final class Unreadable implements ProcessHandle {
    @Override public long pid() { return Long.MAX_VALUE; } // no /proc entry: only ProcessHandle.Info is asked
    @Override public Optional<ProcessHandle> parent() { return Optional.empty(); }
    @Override public Stream<ProcessHandle> children() { return Stream.empty(); }
    @Override public Stream<ProcessHandle> descendants() { return Stream.empty(); }
    @Override public Info info() {
      return new Info() {
        @Override public Optional<String> command() { return Optional.empty(); }
        @Override public Optional<String> commandLine() { return Optional.empty(); }
        @Override public Optional<String[]> arguments() { return Optional.empty(); }
        @Override public Optional<Instant> startInstant() { return Optional.empty(); }
        @Override public Optional<Duration> totalCpuDuration() { return Optional.empty(); }
        @Override public Optional<String> user() { return Optional.empty(); }
      };
    }
    @Override public CompletableFuture<ProcessHandle> onExit() { return new CompletableFuture<>(); }
    @Override public boolean supportsNormalTermination() { return true; }
    @Override public boolean destroy() { return false; }
    @Override public boolean destroyForcibly() { return false; }
    @Override public boolean isAlive() { return true; }
    @Override public int compareTo(ProcessHandle other) { return Long.compare(pid(), other.pid()); }
  }
}
