package org.kvlab.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.kvlab.history.History;
import org.kvlab.history.Operation;

/**
 * A run's time series ({@code kvlab sim --timeline}): per bucket of virtual time, the operations completed in it and
 * how much each server counter ({@link org.kvlab.api.Metrics}, summed over servers) grew in it, e.g.
 * {@code dynastar.multiPartition} or {@code consensus.slow}. It covers the workload and the settle time, up to the
 * final reads (which are not counted).
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
   * @param counters counter name → how much it grew in the bucket (only counters that grew)
   */
  public record Bucket(long startMicros, long ok, long completed, Map<String, Long> counters) {
    /** Counter {@code name}'s growth in this bucket (0 if it did not grow). */
    public long counter(String name) {
      return counters.getOrDefault(name, 0L);
    }
  }

  /**
   * The series of a run that lasted until {@code endMicros} (exclusive: the final reads begin there), from its history
   * and the counters' growth per bucket index.
   */
  static Timeline of(long bucketMicros, long endMicros, History history, Map<Long, Map<String, Long>> counters) {
    int n = (int) Math.max(1, (endMicros + bucketMicros - 1) / bucketMicros);
    long[] ok = new long[n];
    long[] completed = new long[n];
    for (Operation op : history.operations()) {
      long t = op.completeMicros();
      if (t < endMicros && t >= 0 && op.invokeMicros() < endMicros) {
        int b = (int) (t / bucketMicros);
        completed[b]++;
        ok[b] += op.ok() ? 1 : 0;
      }
    }
    List<Bucket> out = new ArrayList<>();
    for (int b = 0; b < n; b++) {
      out.add(new Bucket(b * bucketMicros, ok[b], completed[b], Map.copyOf(counters.getOrDefault((long) b,
          Map.of()))));
    }
    return new Timeline(bucketMicros, List.copyOf(out));
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
   * column per counter (its growth in the bucket).
   */
  public String csv() {
    List<String> names = counterNames();
    StringBuilder out = new StringBuilder("seconds,ok,completed,ok_per_s");
    names.forEach(n -> out.append(',').append(n));
    out.append('\n');
    double width = bucketMicros / 1e6;
    for (Bucket b : buckets) {
      out.append(fmt(b.startMicros() / 1e6)).append(',').append(b.ok()).append(',').append(b.completed()).append(',')
          .append(fmt(b.ok() / width));
      names.forEach(n -> out.append(',').append(b.counter(n)));
      out.append('\n');
    }
    return out.toString();
  }

  private static String fmt(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : String.format(java.util.Locale.ROOT, "%.3f", v);
  }

  /** Counter growth per bucket, filled while the run goes (only when a time series is asked for). */
  static final class Recorder {
    private final long bucketMicros;
    final Map<Long, Map<String, Long>> counters = new TreeMap<>();

    Recorder(long bucketMicros) {
      this.bucketMicros = bucketMicros;
    }

    void add(long nowMicros, String name, long delta) {
      counters.computeIfAbsent(nowMicros / bucketMicros, b -> new TreeMap<>()).merge(name, delta, Long::sum);
    }
  }
}
