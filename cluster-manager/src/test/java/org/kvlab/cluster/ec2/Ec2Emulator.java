package org.kvlab.cluster.ec2;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.kvlab.runtime.LoopbackPorts;

/**
 * moto in server mode on a free loopback port: the EC2 API emulator of the EC2 tests. Installed (if missing) by
 * {@code scripts/test-env/ec2-emulator}, started here, stopped by PID in {@link #close}. Its instances are metadata only, with
 * fake addresses that the tests never dial.
 */
public final class Ec2Emulator implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  final int port;
  public final URI endpoint;
  private final Process process;
  private final Path log;

  private Ec2Emulator(int port, Process process, Path log) {
    this.port = port;
    this.endpoint = URI.create("http://127.0.0.1:" + port);
    this.process = process;
    this.log = log;
  }

  public static Ec2Emulator start() throws IOException, InterruptedException {
    Path script = repoRoot().resolve("scripts/test-env/ec2-emulator");
    Process which = new ProcessBuilder(script.toString(), "python").redirectErrorStream(false)
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(which.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (!which.waitFor(10, TimeUnit.MINUTES) || which.exitValue() != 0 || out.isEmpty()) {
      throw new IllegalStateException(script + " python failed (exit " + (which.isAlive() ? "timeout" : which.exitValue())
          + "). Fix: run 'scripts/test-env/ec2-emulator install' and read its error");
    }
    String python = out.lines().reduce((a, b) -> b).orElseThrow();
    int port = LoopbackPorts.freeBlock(1);
    Path log = Files.createTempFile("moto-server-", ".log");
    Process p = new ProcessBuilder(List.of(python, "-m", "moto.server", "-H", "127.0.0.1", "-p", Integer.toString(port)))
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    Ec2Emulator emulator = new Ec2Emulator(port, p, log);
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (true) {
      if (!p.isAlive()) {
        String text = Files.readString(log);
        throw new IllegalStateException("moto server exited with " + p.exitValue() + ": " + text);
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 500);
        return emulator;
      } catch (IOException notYet) {
        if (System.nanoTime() - deadline > 0) {
          emulator.close();
          throw new IllegalStateException("moto server did not listen on port " + port + " within " + START_TIMEOUT);
        }
        Thread.sleep(200);
      }
    }
  }

  /** Forgets every resource (moto's reset API), so each test starts from an empty account. */
  public void reset() throws IOException, InterruptedException {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(endpoint.resolve("/moto-api/reset"))
        .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("moto reset answered " + r.statusCode());
    }
  }

  public long pid() {
    return process.pid();
  }

  static Path repoRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("scripts/test-env/ec2-emulator"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("scripts/test-env/ec2-emulator not found above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }

  @Override
  public void close() throws InterruptedException {
    ProcessHandle.of(process.pid()).ifPresent(ProcessHandle::destroy);
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
    try {
      Files.deleteIfExists(log);
    } catch (IOException ignored) {
      // a temp file
    }
  }
}
