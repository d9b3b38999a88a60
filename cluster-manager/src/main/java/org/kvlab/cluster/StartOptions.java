package org.kvlab.cluster;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * How {@link ClusterBackend#start} runs the servers.
 *
 * @param waitLimit how long the cluster may take until every server answers and is connected
 * @param singleJvm all servers of a host in one JVM (local backend; remote backends run one JVM per server)
 * @param jvmOptions the server JVMs' options on one line, or null for the backend's default
 * @param cancelled polled while waiting: true ends the wait (the servers started are stopped)
 */
public record StartOptions(Duration waitLimit, boolean singleJvm, String jvmOptions, BooleanSupplier cancelled) {
  public StartOptions {
    cancelled = cancelled == null ? () -> false : cancelled;
  }

  public static StartOptions waiting(Duration wait) {
    return new StartOptions(wait, false, null, () -> false);
  }
}
