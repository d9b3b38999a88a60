package org.kvlab.experiment;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.List;
import java.util.Map;

/** What an experiment measured; written as {@code results.json} (one entry per run). */
public final class Results {
  private Results() {}

  public static final String OK = "ok";
  public static final String FAILED = "failed";
  public static final String INTERRUPTED = "interrupted";

  /**
   * One operation of one run (or of several repeats merged). Latencies in microseconds, from the
   * histogram merged over every client; throughput in operations per second, summed over clients.
   *
   * @param returns YCSB return codes over the whole phase (warm-up included), e.g. {@code {OK: 9800, NOT_FOUND: 200}}
   * @param histogram the merged histogram, compressed, base64 (HdrHistogram encoding)
   */
  public record OpStats(String op, long count, double throughput, double mean, long p50, long p95, long p99, long p999,
      long max, Map<String, Long> returns, String histogram) {}

  /**
   * What the servers counted or recorded over a run's run phase (the load phase left out): a protocol's
   * {@code Metrics.count} counters and {@code Metrics.record} histograms (e.g. NuKV's {@code nukv.get.waitMicros}, how
   * long a replica held a GET until its stable vector covered the session's), and the number of each message type the
   * servers handled (named after it, e.g. {@code GetReq}). Counters are summed over every server and histograms merged.
   *
   * @param kind {@code counter} or {@code histogram}
   * @param count the counter's value, or the number of values recorded
   * @param mean for a histogram, in the unit the protocol recorded (its name says which); null for a counter
   */
  public record ServerMetric(String name, String kind, long count, Double mean, Long p50, Long p99, Long max) {}

  /**
   * One run.
   *
   * @param index 1-based position in running order
   * @param id the run's directory name under {@code runs/}
   * @param status {@link #OK}, {@link #FAILED} or {@link #INTERRUPTED}
   * @param reason why it failed or was interrupted; null if ok
   * @param variation the swept variables' values
   * @param clients client JVMs (all datacenters)
   * @param threads YCSB threads per client JVM
   * @param seconds wall time of the run, cluster start to stop
   * @param measuredSeconds the measured window, averaged over clients
   * @param throughput operations per second, summed over clients
   * @param operations operations in the measured windows
   * @param ops per operation, in name order
   * @param properties the YCSB properties every client had (besides counts and bench's own)
   * @param opsPerSecond operations per second in each second of the measured phase, warm-up included, summed over
   *     clients (element 0 is the first second of the earliest client); empty if not measured, null in results
   *     written before it was recorded
   * @param serverMetrics the servers' counters and histograms over the run phase (see {@link ServerMetric}), in name
   *     order; empty if no server answered, null in results written before they were collected
   */
  public record RunResult(int index, String id, String protocol, Map<String, String> variation, int repeat,
      String status, String reason, String startedAt, int clients, int threads, double seconds,
      double measuredSeconds, double throughput, long operations, List<OpStats> ops, Map<String, String> properties,
      List<Double> opsPerSecond, List<ServerMetric> serverMetrics) {

    @JsonIgnore
    public boolean ok() {
      return OK.equals(status);
    }

    /** The statistics of {@code op}, or null. */
    public OpStats op(String op) {
      return ops.stream().filter(o -> o.op().equals(op)).findFirst().orElse(null);
    }

    /** The server metric {@code name} of this run, or null. */
    public ServerMetric serverMetric(String name) {
      return serverMetrics == null ? null
          : serverMetrics.stream().filter(m -> m.name().equals(name)).findFirst().orElse(null);
    }
  }

  /**
   * Where and how the experiment ran: this machine (the bench's JVM, OS, cores, memory) and where its clusters and
   * clients ran.
   *
   * @param backend {@code local}, {@code ssh} or {@code ec2} (null in results written before it was recorded)
   * @param hosts per datacenter, the hosts its servers and its clients ran on, over all runs so far
   * @param hostDetails per host, what the backend knows of it beyond its name (EC2: instance type, region, id)
   */
  public record Environment(String command, String workingDirectory, String java, String jvmVendor, String os,
      int cores, long memoryMb, String gitCommit, String kvlabVersion, String backend, List<DatacenterHosts> hosts,
      Map<String, String> hostDetails) {
    public Environment(String command, String workingDirectory, String java, String jvmVendor, String os, int cores,
        long memoryMb, String gitCommit, String kvlabVersion) {
      this(command, workingDirectory, java, jvmVendor, os, cores, memoryMb, gitCommit, kvlabVersion, null, List.of(),
          Map.of());
    }

    public Environment {
      hosts = hosts == null ? List.of() : List.copyOf(hosts);
      hostDetails = hostDetails == null ? Map.of() : new java.util.TreeMap<>(hostDetails);
    }

    /** This environment with the backend and where it ran. */
    public Environment with(String backendName, List<DatacenterHosts> where, Map<String, String> details) {
      return new Environment(command, workingDirectory, java, jvmVendor, os, cores, memoryMb, gitCommit,
          kvlabVersion, backendName, where, details);
    }
  }

  /** The hosts datacenter {@code datacenter}'s servers and clients ran on (in the order first used). */
  public record DatacenterHosts(int datacenter, List<String> servers, List<String> clients) {
    public DatacenterHosts {
      servers = List.copyOf(servers);
      clients = List.copyOf(clients);
    }
  }

  /**
   * The whole experiment.
   *
   * @param status {@link #OK} when every run was, {@link #FAILED} when some failed, {@link #INTERRUPTED} when stopped
   * @param runsPlanned runs the experiment has; {@code runs} holds those started
   */
  public record ExperimentResult(String name, String experimentFile, String status, String startedAt,
      String finishedAt, String outputDirectory, String xAxis, List<String> protocols, int runsPlanned,
      Environment environment, Map<String, Object> settings, List<RunResult> runs) {}
}
