package org.kvlab.cluster.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.config.ClusterConfig;
import org.kvlab.runtime.LoopbackPorts;

/**
 * Issue 28 item 2: servers that start but refuse every handshake of the tools are still stopped by whoever started
 * them. {@code local up} failing stops them by PID (none is alive afterwards), and {@code local down} stops them
 * when the pid files' start records say they are the processes it started, but leaves a process whose start does
 * not match (a reused PID) alone.
 *
 * <p>Method: the servers run the cluster file {@code refuse-a}, the tools use a file of the same ports named
 * {@code refuse-b}, so every handshake is refused ("belongs to cluster 'refuse-a', not 'refuse-b'") as a wrong-case
 * protocol name once made them. Two server JVMs on free loopback ports; every PID checked with ProcessHandle.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS) // stops a hang only
class LocalRefusingClusterTest {
  private static final String JVM = "-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";
  @TempDir Path dir;
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void killLeftovers() {
    started.forEach(Process::destroyForcibly);
  }

  /** Starts the servers of refuse-a with the tools' view of refuse-b; returns the tools' handle. */
  private LocalClusterProcesses startRefusing() throws Exception {
    int base = LoopbackPorts.freeBlock(2);
    Path servers = write("a.yaml", "refuse-a", base);
    ClusterConfig tools = ClusterConfig.load(write("b.yaml", "refuse-b", base));
    LocalClusterProcesses c = LocalClusterProcesses.start(servers, tools, false, JVM);
    started.addAll(c.processes());
    return c;
  }

  private Path write(String file, String name, int base) throws Exception {
    return Files.writeString(dir.resolve(file), """
        name: %s
        protocol: eventual
        datacenters: 2
        partitions: 1
        local: { basePort: %d }
        storage: { engine: memory }
        security: { secretFile: %s }
        """.formatted(name, base, dir.resolve("secret")));
  }

  private static void assertGone(List<Long> pids) {
    for (long pid : pids) {
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " still runs");
    }
  }

  @Test
  void when_everyHandshakeIsRefused_then_upFailsAtOnceAndNoProcessItStartedIsAlive() throws Exception {
    LocalClusterProcesses c = startRefusing();
    List<Long> pids = c.processes().stream().map(Process::pid).toList();
    LocalClusterProcesses.LaunchException e = assertThrows(LocalClusterProcesses.LaunchException.class,
        () -> c.awaitConnected(Duration.ofSeconds(90)));
    assertFalse(e.timedOut(), e.getMessage());
    assertTrue(e.getMessage().contains("refuses this cluster's handshake")
        && e.getMessage().contains("belongs to cluster 'refuse-a', not 'refuse-b'"), e.getMessage());

    List<String> log = new CopyOnWriteArrayList<>();
    c.stopStarted(Duration.ofSeconds(10), log::add);
    assertGone(pids);
    assertEquals(List.of(), c.stillRunning());
    assertTrue(log.stream().anyMatch(l -> l.contains("refuses the handshake") && l.contains("by signal")), log.toString());
    assertFalse(Files.exists(c.dir().resolve("0_0.pid")), "the pid files of stopped processes are removed");
  }

  @Test
  void when_downMeetsRefusingServersItStarted_then_itStopsThemByPidButNeverAReusedPid() throws Exception {
    LocalClusterProcesses c = startRefusing();
    List<Long> pids = c.processes().stream().map(Process::pid).toList();
    assertThrows(LocalClusterProcesses.LaunchException.class, () -> c.awaitConnected(Duration.ofSeconds(90)));

    // the start records local up wrote are the processes' own start times
    List<String> records = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Path record = c.dir().resolve(List.of("0_0", "1_0").get(i) + LocalClusterProcesses.STARTED);
      records.add(Files.readString(record));
      assertEquals(ProcessHandle.of(pids.get(i)).orElseThrow().info().startInstant().orElseThrow().toString(),
          records.get(i));
      // as if the PID had been reused by another process: down must not touch it
      Files.writeString(record, "2001-01-01T00:00:00Z");
    }
    List<String> refused = new ArrayList<>();
    assertEquals(0, LocalClusterProcesses.stop(c.config(), Duration.ofSeconds(1), line -> { }, refused::add));
    assertEquals(2, refused.size(), refused.toString());
    for (long pid : pids) {
      assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " was left");
    }

    // the records of the processes it started: down stops them although they refuse
    for (int i = 0; i < 2; i++) {
      String id = List.of("0_0", "1_0").get(i);
      Files.writeString(c.dir().resolve(id + ".pid"), Long.toString(pids.get(i)));
      Files.writeString(c.dir().resolve(id + LocalClusterProcesses.STARTED), records.get(i));
    }
    refused.clear();
    List<String> log = new CopyOnWriteArrayList<>();
    LocalClusterProcesses.stop(c.config(), Duration.ofSeconds(10), log::add, refused::add);
    assertEquals(List.of(), refused);
    assertGone(pids);
    assertEquals(2, log.stream().filter(l -> l.contains("by signal")).count(), log.toString());
    assertFalse(Files.exists(c.dir().resolve("0_0.pid")));
  }
}
