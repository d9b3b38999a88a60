package org.kvlab.runtime;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.kvlab.api.Metrics;

/** Counters and histograms of one node or client process; readable from any thread. */
public final class NodeMetrics implements Metrics {
  private final ConcurrentHashMap<String, LongAdder> counters = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Histogram> histograms = new ConcurrentHashMap<>();

  @Override
  public void count(String name) {
    counters.computeIfAbsent(name, n -> new LongAdder()).increment();
  }

  public void add(String name, long delta) {
    counters.computeIfAbsent(name, n -> new LongAdder()).add(delta);
  }

  @Override
  public void record(String name, long value) {
    histograms.computeIfAbsent(name, n -> new ConcurrentHistogram(3)).recordValue(Math.max(0, value));
  }

  /** A sorted snapshot of the counters. */
  public Map<String, Long> counters() {
    Map<String, Long> out = new TreeMap<>();
    counters.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  public Histogram histogram(String name) {
    Histogram h = histograms.get(name);
    return h == null ? null : h.copy();
  }
}
