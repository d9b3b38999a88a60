package org.kvlab.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.kvlab.history.History;
import org.kvlab.history.Operation;

/**
 * A run's time series ({@code kvlab sim --timeline}): per bucket of virtual time, the operations completed in it, the
 * median and 99th percentile of their latency, and how much each server counter ({@link org.kvlab.api.Metrics})
 * grew in it, summed over servers (e.g. {@code dynastar.multiPartition} or {@code consensus.slow}) and per server
 * (a partition's load). It covers the workload and the settle time, up to the final reads (which are not counted).
 *
 * @param bucketMicros the width of a bucket
 * @param buckets the buckets from time 0, in order
 */
public record Timeline(long bucketMicros, List<Bucket> buckets) {
  /**
   * One bucket.
   *
   * @param startMicros where it begins
   * @param ok operations completed in it that ended OK
   * @param completed operations completed in it (OK, FAIL or INFO)
   * @param p50Micros the median latency (invocation to completion) of the OK operations completed in it; 0 if none
   * @param p99Micros their 99th percentile (nearest rank); 0 if none
   * @param counters counter name → how much it grew in the bucket, summed over servers (only counters that grew)
   * @param nodes server (its {@link org.kvlab.api.NodeId}, e.g. {@code 0_2}) → counter name → how much it grew
   *     there in the bucket (only servers and counters that grew)
   */
  public record Bucket(long startMicros, long ok, long completed, long p50Micros, long p99Micros,
      Map<String, Long> counters, Map<String, Map<String, Long>> nodes) {
    /** Counter {@code name}'s growth in this bucket (0 if it did not grow). */
    public long counter(String name) {
      return counters.getOrDefault(name, 0L);
    }

    /** Counter {@code name}'s growth at server {@code node} in this bucket (0 if it did not grow there). */
    public long counter(String node, String name) {
      return nodes.getOrDefault(node, Map.of()).getOrDefault(name, 0L);
    }
  }

  /**
   * The series of a run that lasted until {@code endMicros} (exclusive: the final reads begin there), from its history
   * and the counters' growth per bucket index.
   */
  static Timeline of(long bucketMicros, long endMicros, History history, Recorder recorded) {
    int n = (int) Math.max(1, (endMicros + bucketMicros - 1) / bucketMicros);
    long[] ok = new long[n];
    long[] completed = new long[n];
    List<List<Long>> latencies = new ArrayList<>();
    for (int b = 0; b < n; b++) {
      latencies.add(new ArrayList<>());
    }
    for (Operation op : history.operations()) {
      long t = op.completeMicros();
      if (t < endMicros && t >= 0 && op.invokeMicros() < endMicros) {
        int b = (int) (t / bucketMicros);
        completed[b]++;
        if (op.ok()) {
          ok[b]++;
          latencies.get(b).add(t - op.invokeMicros());
        }
      }
    }
    List<Bucket> out = new ArrayList<>();
    for (int b = 0; b < n; b++) {
      List<Long> l = latencies.get(b);
      l.sort(null);
      Map<String, Map<String, Long>> nodes = new TreeMap<>();
      recorded.nodes.getOrDefault((long) b, Map.of()).forEach((node, c) -> nodes.put(node, Map.copyOf(c)));
      out.add(new Bucket(b * bucketMicros, ok[b], completed[b], percentile(l, 50), percentile(l, 99),
          Map.copyOf(recorded.counters.getOrDefault((long) b, Map.of())), java.util.Collections.unmodifiableMap(nodes)));
    }
    return new Timeline(bucketMicros, List.copyOf(out));
  }

  /** The {@code p}th percentile (nearest rank) of sorted {@code values}; 0 if there are none. */
  static long percentile(List<Long> sorted, int p) {
    return sorted.isEmpty() ? 0 : sorted.get(Math.max(0, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
  }

  /** Every server that counted something in some bucket, sorted. */
  public List<String> nodeNames() {
    TreeSet<String> names = new TreeSet<>();
    buckets.forEach(b -> names.addAll(b.nodes().keySet()));
    return new ArrayList<>(names);
  }

  /** Every counter that grew in some bucket, sorted. */
  public List<String> counterNames() {
    TreeSet<String> names = new TreeSet<>();
    buckets.forEach(b -> names.addAll(b.counters().keySet()));
    return new ArrayList<>(names);
  }

  /** OK operations over all buckets. */
  public long totalOk() {
    return buckets.stream().mapToLong(Bucket::ok).sum();
  }

  /**
   * The series as CSV: {@code seconds} (the bucket's start), {@code ok}, {@code completed}, {@code ok_per_s}, then one
   * column per counter (its growth in the bucket, summed over servers), {@code p50_ms} and {@code p99_ms} (latency of
   * the bucket's OK operations), and one column {@code <counter>@<server>} per server and counter that grew there.
   */
  public String csv() {
    List<String> names = counterNames();
    List<String> nodeNames = nodeNames();
    StringBuilder out = new StringBuilder("seconds,ok,completed,ok_per_s");
    names.forEach(n -> out.append(',').append(n));
    out.append(",p50_ms,p99_ms");
    for (String node : nodeNames) {
      names.forEach(n -> out.append(',').append(n).append('@').append(node));
    }
    out.append('\n');
    double width = bucketMicros / 1e6;
    for (Bucket b : buckets) {
      out.append(fmt(b.startMicros() / 1e6)).append(',').append(b.ok()).append(',').append(b.completed()).append(',')
          .append(fmt(b.ok() / width));
      names.forEach(n -> out.append(',').append(b.counter(n)));
      out.append(',').append(fmt(b.p50Micros() / 1e3)).append(',').append(fmt(b.p99Micros() / 1e3));
      for (String node : nodeNames) {
        names.forEach(n -> out.append(',').append(b.counter(node, n)));
      }
      out.append('\n');
    }
    return out.toString();
  }

  private static String fmt(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : String.format(java.util.Locale.ROOT, "%.3f", v);
  }

  /** Counter growth per bucket, in all and per server, filled while the run goes (only when a series is asked for). */
  static final class Recorder {
    private final long bucketMicros;
    final Map<Long, Map<String, Long>> counters = new TreeMap<>();
    final Map<Long, Map<String, Map<String, Long>>> nodes = new TreeMap<>();

    Recorder(long bucketMicros) {
      this.bucketMicros = bucketMicros;
    }

    void add(long nowMicros, String node, String name, long delta) {
      long b = nowMicros / bucketMicros;
      counters.computeIfAbsent(b, x -> new TreeMap<>()).merge(name, delta, Long::sum);
      nodes.computeIfAbsent(b, x -> new TreeMap<>()).computeIfAbsent(node, x -> new TreeMap<>()).merge(name, delta,
          Long::sum);
    }
  }
}
