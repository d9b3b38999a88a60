package org.kvlab.experiment;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * Follows the HdrHistogram interval logs ({@code hdr/<OP>.hdr}) that YCSB clients write while they run (one
 * line per operation per status interval, written unbuffered), for {@link ExperimentListener.Interval}'s
 * live latencies: {@link #poll} returns the intervals written since the previous poll, merged per operation
 * over clients. Only complete lines are read; a log that cannot be read is skipped (the final results read
 * the logs again, whole).
 */
final class LiveHistograms {
  private final List<Path> hdrDirs;
  private final Map<Path, Long> offsets = new HashMap<>();

  LiveHistograms(List<Path> hdrDirs) {
    this.hdrDirs = List.copyOf(hdrDirs);
  }

  /** Per operation (and {@link ExperimentListener.Interval#ALL}), the histogram of the new intervals. */
  Map<String, Histogram> poll() {
    Map<String, Histogram> merged = new TreeMap<>();
    for (Path dir : hdrDirs) {
      if (!Files.isDirectory(dir)) {
        continue;
      }
      List<Path> logs;
      try (Stream<Path> files = Files.list(dir)) {
        logs = files.filter(p -> p.getFileName().toString().endsWith(".hdr")).sorted().toList();
      } catch (IOException e) {
        continue;
      }
      for (Path log : logs) {
        String op = log.getFileName().toString().replaceFirst("\\.hdr$", "");
        if (Aggregation.NOT_OPERATIONS.contains(op)) {
          continue;
        }
        for (String line : newLines(log)) {
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

  private List<String> newLines(Path log) {
    long from = offsets.getOrDefault(log, 0L);
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
      long length = f.length();
      if (length <= from) {
        return List.of();
      }
      byte[] bytes = new byte[(int) Math.min(length - from, 16 << 20)];
      f.seek(from);
      f.readFully(bytes);
      int end = bytes.length;
      while (end > 0 && bytes[end - 1] != '\n') {
        end--;
      }
      offsets.put(log, from + end);
      return new String(bytes, 0, end, StandardCharsets.US_ASCII).lines().toList();
    } catch (IOException e) {
      return List.of();
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
