package org.kvlab.cluster;

/**
 * The options kvlab starts a server JVM with when the user gives none ({@code kvlab local up --jvm-options},
 * {@code cluster: jvm:} in an experiment, {@code ssh: jvmOptions:} in a cluster file replace them).
 *
 * <p>Sized for a server, not a desktop: a JVM's default initial heap is 1/64 of the machine's memory (376 MB on a
 * 24 GB machine), and under load the serial collector's young generation, a third of that, is touched and stays
 * resident; six servers on one machine then held as much memory as DKVF's. A small initial heap lets the heap
 * grow only as far as the live data needs (the maximum stays well above a benchmark's working set; JE's cache is
 * a quarter of it). The serial collector has no concurrent or parallel GC threads competing with the event loop
 * on few cores. {@code -XX:-UsePerfData} drops the hsperfdata file and the JVM's 50 ms statistics sampling (an
 * idle cluster's wakeups; {@code jcmd PID} still works, {@code jps} no longer lists servers). Measured in
 * docs/benchmarks/idle-cost.md and docs/benchmarks/dkvf-anchor.md.
 */
public final class ServerJvm {
  public static final String DEFAULT_OPTIONS = "-XX:+UseSerialGC -Xms32m -Xmx256m -XX:-UsePerfData";

  private ServerJvm() {}
}
