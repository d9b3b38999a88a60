package org.kvlab.partitioning;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * METIS's k-way partitioning through its command-line program {@code gpmetis} (Debian's {@code metis} package;
 * {@code scripts/test-env/metis install}), spoken to in its graph file format: a header {@code n m 011} (vertex and
 * edge weights), then per vertex its weight and its (1-based neighbour, edge weight) pairs; the answer is the file
 * {@code <graph>.part.<k>}, one partition per line. The imbalance is METIS's {@code -ufactor} (load at most
 * {@code 1 + ufactor/1000} times the mean: 1.2 = 200). Weights are clamped to METIS's 32-bit integers.
 */
public final class MetisPartitioner implements Partitioner {
  private static final long MAX_WEIGHT = Integer.MAX_VALUE / 64; // METIS sums weights in 32 bits (Debian's build)
  private final String program;
  private final Duration timeout;

  /** {@code gpmetis} from the PATH, at most 5 minutes per run. */
  public MetisPartitioner() {
    this("gpmetis", Duration.ofMinutes(5));
  }

  public MetisPartitioner(String program, Duration timeout) {
    this.program = program;
    this.timeout = timeout;
  }

  @Override
  public String name() {
    return "metis";
  }

  /** Whether {@code program} runs here (it prints its usage when run without arguments). */
  public boolean available() {
    try {
      Process p = new ProcessBuilder(program).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(30, TimeUnit.SECONDS);
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public Placement partition(WorkloadGraph g, int parts, double imbalance, long seed) {
    if (parts < 1) {
      throw new IllegalArgumentException("parts must be at least 1, got " + parts);
    }
    if (parts == 1 || g.vertices() <= 1) {
      return new Placement(parts, new int[g.vertices()]);
    }
    Path dir = null;
    try {
      dir = Files.createTempDirectory("kvlab-metis");
      Path file = dir.resolve("graph");
      write(g, file);
      int ufactor = (int) Math.max(1, Math.round((imbalance - 1) * 1000));
      List<String> cmd = List.of(program, "-ufactor=" + ufactor, "-seed=" + (seed & 0x7fffffff), "-ptype=kway",
          file.toString(), Integer.toString(parts));
      Process p;
      try {
        p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
      } catch (IOException e) {
        throw new IllegalStateException("cannot run " + program + " (" + e.getMessage() + "). Fix: install METIS "
            + "(apt-get install metis, or scripts/test-env/metis install), or use the pure-Java partitioner"
            + " (Partitioners.greedy())", e);
      }
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(program + " did not finish within " + timeout + " on a graph of "
            + g.vertices() + " vertices. Fix: give it more time or sample the trace");
      }
      Path answer = dir.resolve("graph.part." + parts);
      if (p.exitValue() != 0 || !Files.exists(answer)) {
        throw new IllegalStateException(program + " failed (exit " + p.exitValue() + "): "
            + new String(out, StandardCharsets.UTF_8).strip());
      }
      return read(answer, g.vertices(), parts);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while " + program + " ran", e);
    } finally {
      deleteQuietly(dir);
    }
  }

  /** Writes {@code g} in METIS's graph format (fmt 011). Vertex weights of 0 are written as 1: METIS wants them. */
  static void write(WorkloadGraph g, Path file) throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
      w.write(g.vertices() + " " + g.edges() + " 011\n");
      StringBuilder line = new StringBuilder();
      for (int v = 0; v < g.vertices(); v++) {
        line.setLength(0);
        line.append(Math.max(1, Math.min(MAX_WEIGHT, g.weight(v))));
        for (Map.Entry<Integer, Long> e : g.neighbours(v).entrySet()) {
          line.append(' ').append(e.getKey() + 1).append(' ').append(Math.max(1, Math.min(MAX_WEIGHT, e.getValue())));
        }
        w.write(line.append('\n').toString());
      }
    }
  }

  /** Reads METIS's answer: one partition number per vertex, each in 0..parts-1. */
  static Placement read(Path answer, int vertices, int parts) throws IOException {
    List<String> lines = new ArrayList<>(Files.readAllLines(answer, StandardCharsets.US_ASCII));
    lines.removeIf(String::isBlank);
    if (lines.size() != vertices) {
      throw new IllegalStateException("METIS answered " + lines.size() + " lines for " + vertices + " vertices");
    }
    int[] part = new int[vertices];
    for (int v = 0; v < vertices; v++) {
      part[v] = Integer.parseInt(lines.get(v).trim());
    }
    return new Placement(parts, part);
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null) {
      return;
    }
    try (var files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.deleteIfExists(f);
      }
      Files.deleteIfExists(dir);
    } catch (IOException e) {
      // a temporary directory left behind is harmless
    }
  }
}
