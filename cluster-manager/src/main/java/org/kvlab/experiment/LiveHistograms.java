package org.kvlab.experiment;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.HdrHistogram.Histogram;
import org.kvlab.cluster.BackendException;
import org.kvlab.cluster.ClientHandle;
import org.kvlab.cluster.FileTail;

/**
 * Follows the HdrHistogram interval logs ({@code hdr/<OP>.hdr}) that YCSB clients write while they run (one
 * line per operation per status interval, written unbuffered), for {@link ExperimentListener.Interval}'s
 * live latencies: {@link #poll} returns the intervals written since the previous poll, merged per operation
 * over clients. The logs are read through each client's {@link ClientHandle#readNew} (on this machine or over
 * the backend's connection to the client's host), so local and remote clients are parsed by this one class. Only
 * complete lines are taken; a log that cannot be read now is read at a later poll (the final results read the
 * logs again, whole, once collected).
 */
final class LiveHistograms {
  /** The directory of a client's working directory that holds its logs. */
  static final String DIR = "hdr";
  /** Most bytes of one log read per poll (a second of one operation's histogram is a few hundred). */
  static final int MAX_BYTES = 4 << 20;

  /** Where one client's logs are read from: {@link ClientHandle#readNew} of {@link #DIR}. */
  interface Source {
    Map<String, byte[]> readNew(Map<String, Long> offsets, int maxBytes) throws BackendException;
  }

  private final List<Source> sources;
  private final List<Map<String, Long>> offsets;

  LiveHistograms(List<Source> sources) {
    this.sources = List.copyOf(sources);
    this.offsets = sources.stream().map(s -> (Map<String, Long>) new HashMap<String, Long>()).toList();
  }

  /** The logs of these clients, through their backend. */
  static LiveHistograms of(List<ClientHandle> clients) {
    return new LiveHistograms(clients.stream().map(c -> (Source) (off, max) -> c.readNew(DIR, off, max)).toList());
  }

  /** The logs in these directories of this machine. */
  static LiveHistograms ofDirs(List<Path> hdrDirs) {
    return new LiveHistograms(hdrDirs.stream().map(d -> (Source) (off, max) -> FileTail.readNew(d, off, max)).toList());
  }

  /** Per operation (and {@link ExperimentListener.Interval#ALL}), the histogram of the new intervals. */
  Map<String, Histogram> poll() {
    Map<String, Histogram> merged = new TreeMap<>();
    List<Map<String, Long>> asked = offsets.stream().map(Map::copyOf).toList();
    // remote clients are read over a connection each: side by side, so many clients still fit in a second
    List<Map<String, byte[]>> read = IntStream.range(0, sources.size()).parallel()
        .mapToObj(i -> readNew(sources.get(i), asked.get(i))).toList();
    for (int i = 0; i < sources.size(); i++) {
      Map<String, Long> at = offsets.get(i);
      for (Map.Entry<String, byte[]> log : new TreeMap<>(read.get(i)).entrySet()) {
        String file = log.getKey();
        byte[] bytes = log.getValue();
        String op = file.replaceFirst("\\.hdr$", "");
        if (op.equals(file) || Aggregation.NOT_OPERATIONS.contains(op)) {
          at.merge(file, (long) bytes.length, Long::sum); // not a latency log: skipped, not read again
          continue;
        }
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] != '\n') {
          end--;
        }
        at.merge(file, (long) end, Long::sum);
        for (String line : new String(bytes, 0, end, StandardCharsets.US_ASCII).lines().toList()) {
          Histogram h = parse(line);
          if (h != null) {
            merged.computeIfAbsent(op, k -> new Histogram(3)).add(h);
            if (!Aggregation.isSecondView(op)) {
              merged.computeIfAbsent(ExperimentListener.Interval.ALL, k -> new Histogram(3)).add(h);
            }
          }
        }
      }
    }
    return merged;
  }

  private static Map<String, byte[]> readNew(Source source, Map<String, Long> from) {
    try {
      return source.readNew(from, MAX_BYTES);
    } catch (BackendException e) {
      return Map.of(); // not reachable now: its lines are read at a later poll
    }
  }

  /** One data line of a histogram log ({@code [Tag=T,]start,length,max,base64}); null for headers and comments. */
  static Histogram parse(String line) {
    if (line.isEmpty() || line.startsWith("#") || line.startsWith("\"")) {
      return null;
    }
    String[] f = line.split(",");
    if (f.length < 4) {
      return null;
    }
    try {
      return Aggregation.decode(f[f.length - 1].strip());
    } catch (RuntimeException e) { // a damaged line: left out of the live view
      return null;
    }
  }
}
