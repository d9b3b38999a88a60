package org.kvlab.experiment;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;
import org.kvlab.cluster.NodeState;
import org.kvlab.wire.Status;

/**
 * The servers' own metrics of a run ({@link Results.ServerMetric}): each server's status (its control endpoint's
 * answer, as {@code kvlab local status} shows it) carries the counters and histograms its protocol recorded since it
 * started; bench samples every server before and after the run phase and keeps the difference, summed (counters) or
 * merged (histograms) over the servers. Generic: whatever a protocol passes to {@code Metrics.count} and
 * {@code Metrics.record} shows up, under its own name.
 */
final class ServerMetrics {
  private ServerMetrics() {}

  /** One server's counters and histograms at one moment. */
  record Sample(Map<String, Long> counters, Map<String, Histogram> histograms) {}

  /** What each answering server reports, by server name; servers that do not answer are left out. */
  static Map<String, Sample> sample(List<NodeState> nodes) {
    Map<String, Sample> out = new TreeMap<>();
    for (NodeState n : nodes) {
      n.status().ifPresent(s -> out.put(n.server().id().toString(), of(s)));
    }
    return out;
  }

  static Sample of(Status s) {
    Map<String, Histogram> histograms = new TreeMap<>();
    s.getHistogramsMap().forEach((name, bytes) -> {
      try {
        histograms.put(name, Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes.toByteArray()), 0));
      } catch (java.util.zip.DataFormatException | RuntimeException e) {
        // a histogram this version cannot read is left out, not the run
      }
    });
    return new Sample(new TreeMap<>(s.getOperationsMap()), histograms);
  }

  /**
   * What the servers added between {@code before} and {@code after}, in name order: counters summed over the servers,
   * histograms merged; a metric that did not change is left out. A server that restarted in between (a counter or
   * histogram below its earlier value) counts with everything it reports after.
   */
  static List<Results.ServerMetric> delta(Map<String, Sample> before, Map<String, Sample> after) {
    Map<String, Long> counters = new TreeMap<>();
    Map<String, Histogram> histograms = new TreeMap<>();
    for (Map.Entry<String, Sample> server : after.entrySet()) {
      Sample was = before.getOrDefault(server.getKey(), new Sample(Map.of(), Map.of()));
      server.getValue().counters().forEach((name, now) -> {
        long then = was.counters().getOrDefault(name, 0L);
        counters.merge(name, now >= then ? now - then : now, Long::sum);
      });
      server.getValue().histograms().forEach((name, now) -> {
        Histogram added = now.copy();
        Histogram then = was.histograms().get(name);
        if (then != null && then.getTotalCount() <= now.getTotalCount()) {
          try {
            added.subtract(then);
          } catch (RuntimeException e) {
            added = now.copy(); // not an earlier state of this one (the server restarted): all of it
          }
        }
        histograms.computeIfAbsent(name, k -> new Histogram(3)).add(added);
      });
    }
    List<Results.ServerMetric> out = new ArrayList<>();
    Map<String, Results.ServerMetric> byName = new TreeMap<>();
    counters.forEach((name, n) -> {
      if (n > 0) {
        byName.put(name, new Results.ServerMetric(name, "counter", n, null, null, null, null));
      }
    });
    histograms.forEach((name, h) -> {
      if (h.getTotalCount() > 0) {
        byName.put(name, new Results.ServerMetric(name, "histogram", h.getTotalCount(), h.getMean(),
            h.getValueAtPercentile(50), h.getValueAtPercentile(99), h.getMaxValue()));
      }
    });
    out.addAll(byName.values());
    return out;
  }

  /** A protocol's own metric (a dotted name such as {@code nukv.get.waitMicros}), not a handled-message count. */
  static boolean isProtocolMetric(Results.ServerMetric m) {
    return m.name().contains(".");
  }

  /** One line of the summary: the metric and its value(s). */
  static String describe(Results.ServerMetric m) {
    if (m.kind().equals("counter")) {
      return String.format(java.util.Locale.ROOT, "%s %,d", m.name(), m.count());
    }
    return String.format(java.util.Locale.ROOT, "%s n=%,d mean %,.1f p50 %,d p99 %,d max %,d", m.name(), m.count(),
        m.mean(), m.p50(), m.p99(), m.max());
  }
}
