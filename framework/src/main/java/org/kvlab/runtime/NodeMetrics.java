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
    counter(name).increment();
  }

  public void add(String name, long delta) {
    counter(name).add(delta);
  }

  /** Counter {@code name} itself, for a caller on a hot path to keep and increment without a lookup each time. */
  LongAdder counter(String name) {
    return counters.computeIfAbsent(name, n -> new LongAdder());
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

  /** A sorted snapshot of the histograms (copies). */
  public Map<String, Histogram> histograms() {
    Map<String, Histogram> out = new TreeMap<>();
    histograms.forEach((k, v) -> out.put(k, v.copy()));
    return out;
  }

  /** {@link #histograms()}, each in HdrHistogram's compressed encoding ({@code Histogram.decodeFromCompressedByteBuffer}). */
  public Map<String, byte[]> encodedHistograms() {
    Map<String, byte[]> out = new TreeMap<>();
    histograms().forEach((k, h) -> {
      java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(h.getNeededByteBufferCapacity());
      int n = h.encodeIntoCompressedByteBuffer(buf);
      out.put(k, java.util.Arrays.copyOf(buf.array(), n));
    });
    return out;
  }

  public Histogram histogram(String name) {
    Histogram h = histograms.get(name);
    return h == null ? null : h.copy();
  }
}
