package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.runtime.LoopbackPorts;

/**
 * Goal: {@code kvlab local up} and {@code down} leave nothing behind and lose no logs (issue 11, item 5):
 * a failed up stops the servers it started; SIGINT to the up process alone, while it waits for the cluster, stops
 * them too (exit 130); a
 * down sent while the servers are still starting reaches every one of them (retried until they listen);
 * earlier server logs are kept (rotated); a protocol parameter the protocol does not declare is refused.
 * Method: {@code kvlab local up|down} as child JVMs working in a temporary directory (their state in its
 * .kvlab/local), on a 2-datacenter x 1-partition Eventual cluster on free loopback ports; the server
 * processes are found by their pid files and must all have exited.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class LocalLifecycleTest {
  @TempDir Path dir;
  private final List<Process> commands = new ArrayList<>();
  private final List<ProcessHandle> servers = new ArrayList<>();

  @AfterEach
  void stopAll() {
    commands.forEach(Process::destroyForcibly);
    servers.forEach(ProcessHandle::destroyForcibly);
  }

  private Path clusterFile(String name, String storage) throws Exception {
    int base = LoopbackPorts.freeBlock(2);
    Path file = dir.resolve(name + ".yaml");
    Files.writeString(file, "name: " + name + "\nprotocol: eventual\ndatacenters: 2\npartitions: 1\n"
        + "local: { basePort: " + base + " }\nstorage: " + storage + "\n");
    return file;
  }

  private Process kvlab(String log, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx128m",
        "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), "org.kvlab.cli.Main"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(ServerProcesses.withDefaultSigint(cmd)).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(dir.resolve(log).toFile()).start();
    commands.add(p);
    return p;
  }

  private int finish(Process p, String log) throws Exception {
    assertTrue(p.waitFor(90, TimeUnit.SECONDS), "did not finish: " + Files.readString(dir.resolve(log)));
    return p.exitValue();
  }

  /** The server processes named in the cluster's pid files, once both exist. */
  private List<ProcessHandle> awaitPids(String name) throws Exception {
    Path state = dir.resolve(".kvlab/local/" + name);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      List<ProcessHandle> found = new ArrayList<>();
      for (String id : List.of("0_0", "1_0")) {
        Path pid = state.resolve(id + ".pid");
        if (Files.exists(pid)) {
          String text = Files.readString(pid).trim();
          if (!text.isEmpty()) {
            ProcessHandle.of(Long.parseLong(text)).ifPresent(found::add);
          }
        }
      }
      if (found.size() == 2) {
        servers.addAll(found);
        return found;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the pid files never appeared in " + state);
  }

  private static void assertAllExit(List<ProcessHandle> handles, String why) throws Exception {
    for (ProcessHandle h : handles) {
      try {
        h.onExit().get(30, TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        // reported below
      }
      assertFalse(h.isAlive(), why + ": server process " + h.pid() + " is still running");
    }
  }

  @Test
  void when_oneServerCannotOpenItsStorage_then_upFailsAndStopsTheServersItStarted() throws Exception {
    Path data = dir.resolve("data");
    Path file = clusterFile("lc-fail", "{ engine: je, dir: " + data + " }");
    // server 1_0's data directory is a file: it fails at start; 0_0 starts fine
    Files.createDirectories(data.resolve("lc-fail"));
    Files.writeString(data.resolve("lc-fail/1_0"), "not a directory");

    Process up = kvlab("up1.log", "local", "up", file.toString(), "--wait", "60s");
    List<ProcessHandle> started = awaitPids("lc-fail");
    int code = finish(up, "up1.log");
    String out = Files.readString(dir.resolve("up1.log"));
    assertEquals(Main.FAILED, code, out);
    assertTrue(out.contains("server process 1_0 exited"), out);
    assertTrue(out.contains("the servers it started were stopped"), out);
    assertAllExit(started, "after a failed local up");

    // a second attempt keeps the first attempt's logs
    Process again = kvlab("up2.log", "local", "up", file.toString(), "--wait", "60s");
    started = awaitPids("lc-fail");
    assertEquals(Main.FAILED, finish(again, "up2.log"));
    assertAllExit(started, "after the second failed local up");
    Path state = dir.resolve(".kvlab/local/lc-fail");
    assertTrue(Files.readString(state.resolve("1_0.log.1")).contains("1_0"), "the previous log of 1_0 is kept");
    assertTrue(Files.exists(state.resolve("0_0.log.1")));
    assertTrue(Files.exists(state.resolve("0_0.log")));
  }

  /**
   * The servers' JVMs are held at their start (HotSpot's {@code -XX:+PauseAtStartup}: each waits, before running any
   * Java code, until the test deletes its {@code vm.paused.<pid>} file), so the cluster cannot come up before the
   * signal, however fast or slow the machine: {@code local up} is certainly still waiting when SIGINT arrives. The
   * servers are let go once {@code local up} says it is stopping them, so they start and get its shutdown request
   * (or, if they are slower than its grace period, are killed: either way none is left).
   */
  @Test
  void when_upGetsSigintBeforeTheClusterIsUp_then_itStopsEveryServerAndExits130() throws Exception {
    Path file = clusterFile("lc-int", "{ engine: memory }");
    Process up = kvlab("up.log", "local", "up", file.toString(), "--wait", "120s", "--jvm-options",
        org.kvlab.cluster.local.LocalClusterProcesses.DEFAULT_JVM_OPTIONS
            + " -XX:+UnlockDiagnosticVMOptions -XX:+PauseAtStartup");
    List<ProcessHandle> started = awaitPids("lc-int");
    List<Path> pauses = started.stream().map(h -> dir.resolve("vm.paused." + h.pid())).toList();
    awaitFiles(pauses, up, "up.log"); // every server JVM is held: the cluster cannot be up
    assertTrue(up.isAlive(), "local up is waiting for the held servers: " + Files.readString(dir.resolve("up.log")));
    // to this process alone, as a parent script or an IDE does (not to its process group as a terminal does)
    Process kill = new ProcessBuilder("kill", "-INT", Long.toString(up.pid())).start();
    assertTrue(kill.waitFor(10, TimeUnit.SECONDS));
    awaitOutput(up, "up.log", "interrupted: stopping the servers");
    for (Path pause : pauses) {
      Files.deleteIfExists(pause); // let the servers start: they meet the shutdown request local up keeps sending
    }
    int code = finish(up, "up.log");
    String out = Files.readString(dir.resolve("up.log"));
    assertFalse(out.contains("is up;"), "the cluster came up although its servers were held: " + out);
    assertEquals(LocalCommand.INTERRUPTED, code, out);
    assertTrue(out.contains("interrupted: stopping the servers"), out);
    assertAllExit(started, "after SIGINT to local up");
  }

  /** Waits until every file exists (bounded), failing with the command's output if it exits first. */
  private void awaitFiles(List<Path> files, Process command, String log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!files.stream().allMatch(Files::exists)) {
      if (System.nanoTime() > deadline || !command.isAlive()) {
        throw new AssertionError("the servers never held at their start (" + files + "); output: "
            + Files.readString(dir.resolve(log)));
      }
      Thread.sleep(20);
    }
  }

  /** Waits until the command's output has {@code text}; fails if it exits first or after a generous bound. */
  private void awaitOutput(Process command, String log, String text) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.readString(dir.resolve(log)).contains(text)) {
      if (!command.isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("no '" + text + "' from local up after SIGINT (" + (command.isAlive() ? "still running"
            : "exited with " + command.exitValue()) + "): " + Files.readString(dir.resolve(log)));
      }
      Thread.sleep(20);
    }
  }

  @Test
  void when_downIsSentWhileServersAreStarting_then_everyServerGetsTheShutdown() throws Exception {
    Path file = clusterFile("lc-down", "{ engine: memory }");
    // the servers alone, as local up starts them (pid files included), so that down is the only one to stop
    // them (a local up would stop the second server itself once the first exits)
    Path state = Files.createDirectories(dir.resolve(".kvlab/local/lc-down"));
    org.kvlab.config.ClusterSecret.loadOrCreate(state.resolve("secret")); // as local up makes it
    List<ProcessHandle> started = new ArrayList<>();
    for (String id : List.of("0_0", "1_0")) {
      Process server = kvlab(id + ".log", "server", "--config", file.toString(), "--node", id);
      Files.writeString(state.resolve(id + ".pid"), Long.toString(server.pid()));
      started.add(server.toHandle());
    }
    Files.writeString(state.resolve("config"), file.toString());
    Process down = kvlab("down.log", "local", "down", file.toString());
    assertEquals(Main.OK, finish(down, "down.log"));
    String out = Files.readString(dir.resolve("down.log"));
    // each server answered (asked again until it listened) rather than being killed after the grace period
    assertTrue(out.contains("(2 of 2 servers were answering)"), out + Files.readString(dir.resolve("0_0.log")));
    assertFalse(out.contains("killing it"), out);
    assertAllExit(started, "after local down");
    for (String id : List.of("0_0", "1_0")) {
      assertTrue(Files.readString(dir.resolve(id + ".log")).contains("shutdown requested"), "a graceful shutdown");
    }
  }

  @Test
  void when_paramsAreUnknownToTheProtocol_then_upIsRefusedWithTheKnownOnes() throws Exception {
    Path file = dir.resolve("gr.yaml");
    Files.writeString(file, "name: lc-params\nprotocol: gentlerain\nparams:\n  hearbeat: 10ms\ndatacenters: 1\n"
        + "partitions: 1\nlocal: { basePort: 7100 }\n");
    Process up = kvlab("up.log", "local", "up", file.toString());
    assertEquals(Main.USAGE, finish(up, "up.log"));
    String out = Files.readString(dir.resolve("up.log"));
    assertTrue(out.contains(file + ":4:3: params: 'hearbeat' is not a parameter of protocol gentlerain. Fix: did you"
        + " mean 'heartbeat'? Protocol gentlerain reads: gstInterval (duration, default 5ms"), out);
    assertTrue(out.contains("pruneLag (") && out.contains("recoveryMargin ("), out);
    assertFalse(Files.exists(dir.resolve(".kvlab/local/lc-params")), "nothing was started");
  }
}
