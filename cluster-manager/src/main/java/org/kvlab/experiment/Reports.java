package org.kvlab.experiment;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.HdrHistogram.Histogram;

/**
 * The outputs of an experiment: {@code results.json}, {@code results.csv}, charts (SVG and PNG, see
 * {@link Charts}) and {@code report.html}, plus the summary table printed at the end.
 */
public final class Reports {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Reports() {}

  /** One point of a chart or table: the runs of one protocol and variation (all repeats), merged. */
  public record Point(String protocol, Map<String, String> variation, int runs, int okRuns, double throughput,
      Map<String, Histogram> histograms) {}

  public static void writeJson(Results.ExperimentResult r, Path dir) throws IOException {
    Path tmp = dir.resolve("results.json.tmp");
    JSON.writeValue(tmp.toFile(), r);
    Files.move(tmp, dir.resolve("results.json"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  public static Results.ExperimentResult readJson(Path file) throws IOException {
    return JSON.readValue(file.toFile(), Results.ExperimentResult.class);
  }

  /** Writes results.json, results.csv, the charts and report.html into {@code dir}. */
  public static void writeAll(Results.ExperimentResult r, Path dir) throws IOException {
    writeJson(r, dir);
    Files.writeString(dir.resolve("results.csv"), csv(r), StandardCharsets.UTF_8);
    List<String> chartNotes = new ArrayList<>();
    List<Path> charts;
    try {
      charts = Charts.write(r, points(r), dir);
    } catch (RuntimeException | IOException | LinkageError e) {
      charts = List.of();
      chartNotes.add("charts could not be drawn: " + e);
    }
    Files.writeString(dir.resolve("report.html"), Html.report(r, points(r), charts, chartNotes), StandardCharsets.UTF_8);
  }

  /** The runs of {@code r} grouped by protocol and variation, in running order; repeats merged. */
  public static List<Point> points(Results.ExperimentResult r) {
    Map<String, List<Results.RunResult>> groups = new LinkedHashMap<>();
    for (Results.RunResult run : r.runs()) {
      groups.computeIfAbsent(run.protocol() + "\u0000" + run.variation(), k -> new ArrayList<>()).add(run);
    }
    List<Point> out = new ArrayList<>();
    for (List<Results.RunResult> runs : groups.values()) {
      List<Results.RunResult> ok = runs.stream().filter(Results.RunResult::ok).toList();
      Map<String, Histogram> merged = new LinkedHashMap<>();
      for (Results.RunResult run : ok) {
        for (Results.OpStats op : run.ops()) {
          if (op.histogram() != null) {
            merged.computeIfAbsent(op.op(), k -> new Histogram(3)).add(Aggregation.decode(op.histogram()));
          }
        }
      }
      double throughput = ok.stream().mapToDouble(Results.RunResult::throughput).average().orElse(Double.NaN);
      out.add(new Point(runs.get(0).protocol(), runs.get(0).variation(), runs.size(), ok.size(), throughput, merged));
    }
    return out;
  }

  /** The operations measured, main ones first (those ending in -FAILED last). */
  static List<String> operations(Results.ExperimentResult r) {
    Set<String> ops = new LinkedHashSet<>();
    Set<String> failed = new LinkedHashSet<>();
    for (Results.RunResult run : r.runs()) {
      for (Results.OpStats op : run.ops()) {
        (op.op().endsWith("-FAILED") ? failed : ops).add(op.op());
      }
    }
    List<String> out = new ArrayList<>(ops.stream().sorted().toList());
    out.addAll(failed.stream().sorted().toList());
    return out;
  }

  static List<String> sweepNames(Results.ExperimentResult r) {
    Set<String> names = new LinkedHashSet<>();
    r.runs().forEach(run -> names.addAll(run.variation().keySet()));
    return new ArrayList<>(names);
  }

  static String csv(Results.ExperimentResult r) {
    List<String> vars = sweepNames(r);
    StringBuilder sb = new StringBuilder("run,id,protocol");
    vars.forEach(v -> sb.append(',').append(csvCell(v)));
    sb.append(",repeat,status,op,count,throughput_ops_s,mean_us,p50_us,p95_us,p99_us,p999_us,max_us,ok,not_found,errors,reason\n");
    for (Results.RunResult run : r.runs()) {
      List<Results.OpStats> rows = new ArrayList<>();
      rows.add(null);
      rows.addAll(run.ops());
      for (Results.OpStats op : rows) {
        sb.append(run.index()).append(',').append(csvCell(run.id())).append(',').append(csvCell(run.protocol()));
        vars.forEach(v -> sb.append(',').append(csvCell(run.variation().getOrDefault(v, ""))));
        sb.append(',').append(run.repeat()).append(',').append(run.status()).append(',');
        if (op == null) {
          sb.append("ALL,").append(run.operations()).append(',').append(num(run.throughput())).append(",,,,,,,,,,");
        } else {
          long ok = op.returns().getOrDefault("OK", 0L);
          long nf = op.returns().getOrDefault("NOT_FOUND", 0L);
          long errors = op.returns().entrySet().stream().filter(e -> Aggregation.isError(e.getKey()))
              .mapToLong(Map.Entry::getValue).sum();
          sb.append(csvCell(op.op())).append(',').append(op.count()).append(',').append(num(op.throughput())).append(',')
              .append(num(op.mean())).append(',').append(op.p50()).append(',').append(op.p95()).append(',')
              .append(op.p99()).append(',').append(op.p999()).append(',').append(op.max()).append(',').append(ok)
              .append(',').append(nf).append(',').append(errors).append(',');
        }
        sb.append(csvCell(run.reason() == null ? "" : run.reason())).append('\n');
      }
    }
    return sb.toString();
  }

  private static String num(double d) {
    return Double.isNaN(d) ? "" : String.format(Locale.ROOT, "%.2f", d);
  }

  static String csvCell(String s) {
    if (s.contains(",") || s.contains("\"") || s.contains("\n")) {
      return "\"" + s.replace("\"", "\"\"").replace("\n", " ") + "\"";
    }
    return s;
  }

  /** The line printed when a run ends. */
  static String runLine(Results.RunResult r, int total) {
    String what = "run " + r.index() + "/" + total + " " + r.protocol()
        + (r.variation().isEmpty() ? "" : " " + new Experiment.Variation(r.variation()).label())
        + (r.repeat() > 1 ? " #" + r.repeat() : "");
    if (!r.ok()) {
      return what + ": " + r.status().toUpperCase(Locale.ROOT) + " - " + r.reason();
    }
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%s: %,.0f ops/s over %.1f s (%d client%s)", what,
        r.throughput(), r.measuredSeconds(), r.clients(), r.clients() == 1 ? "" : "s"));
    for (Results.OpStats op : r.ops()) {
      sb.append(String.format(Locale.ROOT, "; %s p50 %s p99 %s", op.op(), ms(op.p50()), ms(op.p99())));
    }
    return sb.toString();
  }

  /** Microseconds shown in milliseconds. */
  static String ms(double micros) {
    return String.format(Locale.ROOT, "%.2f ms", micros / 1000.0);
  }

  /** The table printed at the end: one line per run. */
  public static void printSummary(Results.ExperimentResult r, PrintStream out) {
    List<String> ops = operations(r).stream().filter(o -> !o.endsWith("-FAILED")).limit(4).toList();
    StringBuilder h = new StringBuilder(String.format("%-4s %-16s %-28s %-11s %12s", "RUN", "PROTOCOL", "VARIATION",
        "STATUS", "OPS/S"));
    for (String op : ops) {
      h.append(String.format("  %-22s", op + " p50/p99 ms"));
    }
    out.println(h);
    for (Results.RunResult run : r.runs()) {
      String variation = run.variation().isEmpty() ? "-" : new Experiment.Variation(run.variation()).label();
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-4d %-16s %-28s %-11s %12s", run.index(),
          run.protocol(), variation + (run.repeat() > 1 ? " #" + run.repeat() : ""), run.status(),
          run.ok() ? String.format(Locale.ROOT, "%,.0f", run.throughput()) : "-"));
      for (String op : ops) {
        Results.OpStats s = run.op(op);
        line.append(String.format(Locale.ROOT, "  %-22s", s == null ? "-"
            : String.format(Locale.ROOT, "%.2f / %.2f", s.p50() / 1000.0, s.p99() / 1000.0)));
      }
      out.println(line);
      if (!run.ok()) {
        out.println("     " + run.reason());
      }
    }
    boolean header = false;
    for (Results.RunResult run : r.runs()) {
      List<Results.ServerMetric> own = run.serverMetrics() == null ? List.of()
          : run.serverMetrics().stream().filter(ServerMetrics::isProtocolMetric).toList();
      if (own.isEmpty()) {
        continue;
      }
      if (!header) {
        out.println("Server metrics over each run phase (all servers; histograms in the unit their name says):");
        header = true;
      }
      out.println(String.format(Locale.ROOT, "%-4d %s", run.index(),
          String.join("; ", own.stream().map(ServerMetrics::describe).toList())));
    }
  }
}
