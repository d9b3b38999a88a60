package org.kvlab.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.kvlab.api.NodeId;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.runtime.ControlClient;
import org.kvlab.wire.Status;

/** Real server processes for crash tests: one {@code kvlab server} JVM per node, and a wait until all are connected. */
final class ServerProcesses {
  private ServerProcesses() {}

  /**
   * {@code command} run with SIGINT at its default disposition, as the kvlab launcher runs kvlab: a test run as a
   * background job of a script (CI, {@code scripts/test &}) starts with SIGINT ignored, its children inherit that, and
   * a JVM cannot catch an ignored signal, so a test that sends SIGINT would see it ignored. Through
   * {@code env --default-signal=INT} (GNU coreutils 8.31+) when this machine has it.
   */
  static List<String> withDefaultSigint(List<String> command) {
    if (!DEFAULT_SIGINT_WORKS) {
      return command;
    }
    List<String> out = new java.util.ArrayList<>(List.of("env", "--default-signal=INT"));
    out.addAll(command);
    return out;
  }

  private static final boolean DEFAULT_SIGINT_WORKS = defaultSigintWorks();

  private static boolean defaultSigintWorks() {
    try {
      Process p = new ProcessBuilder("env", "--default-signal=INT", "true").redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      return p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Starts node {@code id} of {@code file} as a child JVM with this test's class path; output to {@code dir/<id>.log}. */
  static Process start(Path file, NodeId id, Path dir) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    return new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
        "org.kvlab.cli.Main", "server", "--config", file.toString(), "--node", id.toString())
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(id + ".log").toFile()))
        .start();
  }

  /** Waits until every server answers and has all its peers connected; fails after {@code timeout}. */
  static void awaitConnected(ClusterConfig config, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      boolean all = true;
      for (ServerSpec s : config.servers()) {
        try {
          Status st = ControlClient.status(config, s, Duration.ofSeconds(1));
          all &= st.getPeersConnected() == st.getPeersExpected();
        } catch (IOException e) {
          all = false;
        }
      }
      if (all) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("cluster did not come up within " + timeout);
  }
}
