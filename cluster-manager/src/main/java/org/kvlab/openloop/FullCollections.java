package org.kvlab.openloop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.kvlab.cluster.local.LocalClusterProcesses;

/**
 * A full collection of the server JVMs and of this one (the load generator) before a rate is offered, as JMH
 * collects between iterations: each rate then starts with an empty young generation and what is live in the
 * old one, instead of inheriting whatever the previous rate left. Without it, the first young collections of a
 * sweep fell in measured windows and copied what each JVM had allocated since its start (the store, the loaded
 * records, start-up objects: 37–65 ms pauses, and a knee ending at 80,000/s in one round of 2026-11-28).
 * The servers' collection is asked for with {@code jcmd <pid> GC.run} (the JDK's tool beside this JVM's java,
 * local attach, same user), this JVM's with {@link System#gc()}. This JVM is the load generator
 * ({@link OpenLoopClient}); it collects the servers only when they run on its machine (the local backend).
 */
final class FullCollections {
  private FullCollections() {}

  /**
   * Collects every process of {@code serverPids} (on this machine) and this JVM; returns a description of what
   * failed (empty if nothing did). A failure does not stop the sweep: the rate is then measured as without
   * collections.
   */
  static List<String> collect(List<Long> serverPids, Duration timeout) throws InterruptedException {
    List<String> failures = new ArrayList<>();
    Path jcmd = jcmd();
    for (long pid : serverPids) {
      ProcessHandle p = ProcessHandle.of(pid).orElse(null);
      if (p == null || !p.isAlive()) {
        continue;
      }
      if (jcmd == null) {
        failures.add("no jcmd beside " + LocalClusterProcesses.javaCommand() + " (a JRE without the JDK's tools): "
            + "servers not collected before the rate; fix: run bench on a JDK");
        break;
      }
      try {
        Process c = new ProcessBuilder(jcmd.toString(), Long.toString(p.pid()), "GC.run")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!c.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          c.destroyForcibly();
          failures.add("jcmd " + p.pid() + " GC.run did not finish in " + timeout.toSeconds() + " s");
        } else if (c.exitValue() != 0) {
          failures.add("jcmd " + p.pid() + " GC.run exited with " + c.exitValue()
              + " (is the server's attach mechanism disabled, or is it another user's process?)");
        }
      } catch (IOException e) {
        failures.add("jcmd " + p.pid() + " GC.run could not start: " + e.getMessage());
      }
    }
    System.gc();
    return failures;
  }

  /** The jcmd executable beside this JVM's java, or null if there is none. */
  static Path jcmd() {
    Path java = Path.of(LocalClusterProcesses.javaCommand());
    Path dir = java.getParent();
    if (dir == null) {
      return null;
    }
    Path jcmd = dir.resolve("jcmd");
    return Files.isExecutable(jcmd) ? jcmd : null;
  }
}
