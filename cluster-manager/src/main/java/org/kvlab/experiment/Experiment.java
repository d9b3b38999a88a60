package org.kvlab.experiment;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.StorageSpec;
import org.kvlab.store.Durability;

/**
 * A benchmark experiment: a cluster shape, the protocols to compare, a base YCSB workload, the
 * variations swept over, the clients, how long to run and how often. Loaded from YAML by
 * {@link ExperimentLoader} (format: {@code docs/bench.md}) or built in code (the demo does), and run by
 * {@link ExperimentRunner}. Immutable.
 *
 * @param name experiment name, used in result paths and as the cluster name
 * @param source the file it was read from, or a pseudo-name
 * @param cluster the cluster every run starts (its protocol replaced per run)
 * @param protocols protocols compared, in order
 * @param workload base YCSB properties, in file order
 * @param sweeps the variables swept over; runs cover their cross product, the first is the x axis
 * @param clients client JVMs per datacenter, threads per client JVM, options of client JVMs
 * @param recordCount records inserted by the load phase (split between all client JVMs)
 * @param operationCount operations of the run phase over all clients, or 0 when {@code duration} bounds it
 * @param duration measured time of the run phase (after the warm-up), or null when {@code operationCount} bounds it
 * @param warmup time at the start of the run phase whose measurements are left out
 * @param repeats how many times each (protocol, variation) is run
 * @param load whether to run YCSB's load phase before each run phase
 * @param db the YCSB {@code site.ycsb.DB} class the clients use
 * @param workloadClass the YCSB workload class
 * @param timeout longest a phase may take before its clients are killed and the run marked failed
 */
public record Experiment(
    String name,
    String source,
    ClusterSpec cluster,
    List<String> protocols,
    Map<String, String> workload,
    List<Sweep> sweeps,
    Clients clients,
    long recordCount,
    long operationCount,
    Duration duration,
    Duration warmup,
    int repeats,
    boolean load,
    String db,
    String workloadClass,
    Duration timeout) {

  public static final String KVLAB_DB = "org.kvlab.ycsb.KvlabDB";
  public static final String KVLAB_WORKLOAD = "org.kvlab.ycsb.KvlabWorkload";

  public Experiment {
    protocols = List.copyOf(protocols);
    workload = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(workload));
    sweeps = List.copyOf(sweeps);
  }

  /**
   * The cluster of each run.
   *
   * @param template a cluster file used as a template (its protocol, ports, storage directory and
   *     emulation are set per run; the loader has already put {@code cluster.wan}, if given, in place of its
   *     round-trip times), or null for a generated local topology
   * @param datacenters datacenters of a generated cluster (the template's otherwise)
   * @param partitions partitions per datacenter of a generated cluster (the template's otherwise)
   * @param engine storage engine
   * @param durability storage durability
   * @param wanRttMillis round-trip time between datacenters when the emulated WAN is on (sweep value
   *     {@code on}); 0 for none. With a template: {@code cluster.wan} if given, else the largest of the
   *     template's own {@code emulation.rtt}.
   * @param serverJvmOptions options of each server JVM
   * @param singleJvm all servers in one JVM (one JIT for all; less CPU on few cores) instead of one JVM each
   */
  public record ClusterSpec(ClusterConfig template, int datacenters, int partitions, StorageSpec.Engine engine,
      Durability durability, long wanRttMillis, String serverJvmOptions, boolean singleJvm) {

    /** Every server in its own JVM. */
    public ClusterSpec(ClusterConfig template, int datacenters, int partitions, StorageSpec.Engine engine,
        Durability durability, long wanRttMillis, String serverJvmOptions) {
      this(template, datacenters, partitions, engine, durability, wanRttMillis, serverJvmOptions, false);
    }
  }

  /**
   * @param perDatacenter client JVMs per datacenter
   * @param threads YCSB threads per client JVM
   * @param jvmOptions options of each client JVM
   * @param datacenters the datacenters that get client JVMs, ascending; empty means every datacenter
   */
  public record Clients(int perDatacenter, int threads, String jvmOptions, List<Integer> datacenters) {
    public Clients {
      datacenters = List.copyOf(datacenters);
    }

    /** Clients in every datacenter. */
    public Clients(int perDatacenter, int threads, String jvmOptions) {
      this(perDatacenter, threads, jvmOptions, List.of());
    }
  }

  /** A swept variable and its values as written ({@code readproportion: [0.05, 0.5, 0.95]}). */
  public record Sweep(String name, List<String> values) {
    public Sweep {
      values = List.copyOf(values);
    }
  }

  /** One point of the sweep: a value for every swept variable, in sweep order. */
  public record Variation(Map<String, String> values) {
    public Variation {
      values = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /** {@code readproportion=0.5 wan=on}, or {@code base} when nothing is swept. */
    public String label() {
      if (values.isEmpty()) {
        return "base";
      }
      List<String> parts = new ArrayList<>();
      values.forEach((k, v) -> parts.add(k + "=" + v));
      return String.join(" ", parts);
    }
  }

  /** One run: a protocol, a variation and a repeat (1-based), numbered from 1 in running order. */
  public record Run(int index, String protocol, Variation variation, int repeat) {
    /** A name usable as a directory: {@code 003-gentlerain-readproportion=0.5-1}. */
    public String id() {
      String v = variation.values().isEmpty() ? "" : "-" + variation.label().replace(' ', '-');
      return String.format("%03d-%s%s-%d", index, protocol, v, repeat).replaceAll("[^A-Za-z0-9._=-]", "_");
    }
  }

  /** Every variation: the cross product of the sweeps, the first sweep varying slowest. */
  public List<Variation> variations() {
    return crossProduct(sweeps).stream().map(Variation::new).toList();
  }

  /** The cross product of {@code sweeps}' values, name to value, the first sweep varying slowest. */
  static List<Map<String, String>> crossProduct(List<Sweep> sweeps) {
    List<Map<String, String>> points = new ArrayList<>();
    points.add(new LinkedHashMap<>());
    for (Sweep s : sweeps) {
      List<Map<String, String>> next = new ArrayList<>();
      for (Map<String, String> p : points) {
        for (String v : s.values()) {
          Map<String, String> q = new LinkedHashMap<>(p);
          q.put(s.name(), v);
          next.add(q);
        }
      }
      points = next;
    }
    return points;
  }

  /**
   * Every run in running order: for each repeat, for each variation, each protocol in turn (so an
   * interrupted experiment has compared the protocols on the variations it reached).
   */
  public List<Run> runs() {
    List<Run> runs = new ArrayList<>();
    for (int r = 1; r <= repeats; r++) {
      for (Variation v : variations()) {
        for (String p : protocols) {
          runs.add(new Run(runs.size() + 1, p, v, r));
        }
      }
    }
    return runs;
  }

  /** The name of the x axis of charts: the first swept variable, or null when nothing is swept. */
  public String xAxis() {
    return sweeps.isEmpty() ? null : sweeps.get(0).name();
  }

  /** A copy with other protocols (the runner uses the running cluster's protocol with --use-running). */
  public Experiment withProtocols(List<String> protocols) {
    return new Experiment(name, source, cluster, protocols, workload, sweeps, clients, recordCount, operationCount,
        duration, warmup, repeats, load, db, workloadClass, timeout);
  }

  /** A copy whose clients use another YCSB DB class (tests use {@code site.ycsb.BasicDB}). */
  public Experiment withDb(String db, String workloadClass) {
    return new Experiment(name, source, cluster, protocols, workload, sweeps, clients, recordCount, operationCount,
        duration, warmup, repeats, load, db, workloadClass, timeout);
  }

  /** Whether the run phase is bounded by time (else by {@link #operationCount}). */
  public boolean timed() {
    return duration != null;
  }
}
