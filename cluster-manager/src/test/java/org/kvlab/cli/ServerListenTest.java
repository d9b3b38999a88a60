package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.config.ClusterSecret;
import org.kvlab.runtime.LoopbackPorts;

/**
 * {@code kvlab server --listen ADDRESS}: the server listens there instead of on its host in the cluster file (what
 * the EC2 backend needs, where an instance's public address is on none of its interfaces). Loopback only: the
 * cluster file names 127.0.0.2, the server is told to listen on 127.0.0.3.
 */
class ServerListenTest {
  @TempDir Path dir;
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void stop() {
    started.forEach(Process::destroyForcibly);
  }

  private Process server(String log, String... extra) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx128m",
        "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        "org.kvlab.cli.Main", "server", "--config", dir.resolve("c.yaml").toString()));
    cmd.addAll(List.of(extra));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(dir.resolve(log).toFile()).start();
    started.add(p);
    return p;
  }

  private static boolean accepts(String host, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void when_listenIsGiven_then_theServerListensThereAndNotOnTheClusterFilesHost() throws Exception {
    int port = LoopbackPorts.freeBlock(1);
    Files.writeString(dir.resolve("c.yaml"), "name: listen-test\nprotocol: eventual\ndatacenters: 1\npartitions: 1\n"
        + "servers:\n  - { id: 0_0, host: 127.0.0.2, port: " + port + " }\nstorage: { engine: memory }\n");
    ClusterSecret.loadOrCreate(dir.resolve(".kvlab/local/listen-test/secret"));
    Process p = server("server.log", "--listen", "127.0.0.3");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!accepts("127.0.0.3", port) && System.nanoTime() < deadline && p.isAlive()) {
      Thread.sleep(100);
    }
    assertTrue(accepts("127.0.0.3", port), "not listening on 127.0.0.3: " + Files.readString(dir.resolve("server.log")));
    assertThrows(ConnectException.class, () -> {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.2", port), 1000);
      }
    }, "the cluster file's address is not bound");
  }

  @Test
  void when_listenIsAName_then_refusedWithTheFix() throws Exception {
    Files.writeString(dir.resolve("c.yaml"), "name: listen-test\nprotocol: eventual\ndatacenters: 1\npartitions: 1\n"
        + "servers:\n  - { id: 0_0, host: 127.0.0.1, port: 7999 }\nstorage: { engine: memory }\n");
    ClusterSecret.loadOrCreate(dir.resolve(".kvlab/local/listen-test/secret"));
    Process p = server("bad.log", "--listen", "example.org");
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(Main.USAGE, p.exitValue());
    String out = Files.readString(dir.resolve("bad.log"));
    assertTrue(out.contains("--listen example.org: give an IP address"), out);
  }
}
