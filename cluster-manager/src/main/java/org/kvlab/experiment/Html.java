package org.kvlab.experiment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** The self-contained {@code report.html} of an experiment: tables, inline SVG charts, command and environment. */
final class Html {
  private Html() {}

  static String report(Results.ExperimentResult r, List<Reports.Point> points, List<Path> charts, List<String> notes)
      throws IOException {
    StringBuilder h = new StringBuilder();
    h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>kvlab bench: ").append(esc(r.name()))
        .append("</title>\n<style>\n")
        .append("body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}\n")
        .append("table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}\n")
        .append("th{background:#f3f3f3}td.l,th.l{text-align:left}code,pre{background:#f6f6f6;padding:.1em .3em}pre{padding:.6em;overflow-x:auto;white-space:pre-wrap}\n")
        .append(".failed{color:#b00020}.interrupted{color:#a06000}.ok{color:#0a7a0a}.chart{margin:1em 0}\n")
        .append("</style></head><body>\n");
    h.append("<h1>kvlab bench: ").append(esc(r.name())).append("</h1>\n");
    h.append("<p>Status: <b class=\"").append(esc(r.status())).append("\">").append(esc(r.status())).append("</b>; ")
        .append(r.runs().size()).append(" of ").append(r.runsPlanned()).append(" runs started, ")
        .append(r.runs().stream().filter(Results.RunResult::ok).count()).append(" ok. Started ").append(esc(r.startedAt()))
        .append(", finished ").append(esc(String.valueOf(r.finishedAt()))).append(".</p>\n");
    h.append("<p>Throughput is the sum over client JVMs of each one's operations in its measured window (after the warm-up)")
        .append(" divided by the window's length; latency percentiles come from the clients' HdrHistograms merged per")
        .append(" operation (never averaged); with repeats, throughput is the mean over repeats and histograms are merged")
        .append(" over them. Latencies in milliseconds.</p>\n");

    h.append("<h2>Summary</h2>\n");
    List<String> ops = Reports.operations(r);
    h.append("<table><tr><th class=\"l\">protocol</th><th class=\"l\">variation</th><th>runs ok</th><th>ops/s</th>");
    for (String op : ops) {
      h.append("<th>").append(esc(op)).append(" p50</th><th>p95</th><th>p99</th><th>p99.9</th>");
    }
    h.append("</tr>\n");
    for (Reports.Point p : points) {
      h.append("<tr><td class=\"l\">").append(esc(p.protocol())).append("</td><td class=\"l\">")
          .append(esc(p.variation().isEmpty() ? "-" : new Experiment.Variation(p.variation()).label())).append("</td><td>")
          .append(p.okRuns()).append("/").append(p.runs()).append("</td><td>")
          .append(p.okRuns() == 0 ? "-" : String.format(Locale.ROOT, "%,.0f", p.throughput())).append("</td>");
      for (String op : ops) {
        Histogram hist = p.histograms().get(op);
        for (double q : new double[] {50, 95, 99, 99.9}) {
          h.append("<td>").append(hist == null ? "-" : String.format(Locale.ROOT, "%.2f", hist.getValueAtPercentile(q) / 1000.0))
              .append("</td>");
        }
      }
      h.append("</tr>\n");
    }
    h.append("</table>\n");

    h.append("<h2>Charts</h2>\n");
    for (String n : notes) {
      h.append("<p class=\"failed\">").append(esc(n)).append("</p>\n");
    }
    if (charts.isEmpty() && notes.isEmpty()) {
      h.append("<p>No run succeeded: nothing to draw.</p>\n");
    }
    for (Path svg : charts) {
      String text = Files.readString(svg);
      int start = text.indexOf("<svg");
      h.append("<div class=\"chart\">").append(start >= 0 ? text.substring(start) : text).append("</div>\n");
      h.append("<p><small>").append(esc(svg.getFileName().toString())).append(" and ")
          .append(esc(svg.getFileName().toString().replace(".svg", ".png"))).append("</small></p>\n");
    }

    h.append("<h2>Runs</h2>\n<table><tr><th>#</th><th class=\"l\">protocol</th><th class=\"l\">variation</th><th>repeat</th>")
        .append("<th class=\"l\">status</th><th>clients x threads</th><th>measured s</th><th>ops/s</th><th>operations</th>")
        .append("<th class=\"l\">per operation (count, ops/s, mean/p50/p99/max ms, returns)</th></tr>\n");
    for (Results.RunResult run : r.runs()) {
      h.append("<tr><td>").append(run.index()).append("</td><td class=\"l\">").append(esc(run.protocol()))
          .append("</td><td class=\"l\">").append(esc(run.variation().isEmpty() ? "-" : new Experiment.Variation(run.variation()).label()))
          .append("</td><td>").append(run.repeat()).append("</td><td class=\"l ").append(esc(run.status())).append("\">")
          .append(esc(run.status())).append(run.reason() == null ? "" : ": " + esc(run.reason())).append("</td><td>")
          .append(run.clients()).append(" x ").append(run.threads()).append("</td><td>")
          .append(String.format(Locale.ROOT, "%.1f", run.measuredSeconds())).append("</td><td>")
          .append(run.ok() ? String.format(Locale.ROOT, "%,.0f", run.throughput()) : "-").append("</td><td>")
          .append(run.operations()).append("</td><td class=\"l\">");
      for (Results.OpStats op : run.ops()) {
        h.append(esc(op.op())).append(String.format(Locale.ROOT, ": %,d, %,.0f/s, %.2f/%.2f/%.2f/%.2f, ", op.count(),
            op.throughput(), op.mean() / 1000.0, op.p50() / 1000.0, op.p99() / 1000.0, op.max() / 1000.0))
            .append(esc(op.returns().toString())).append("<br>");
      }
      h.append("</td></tr>\n");
    }
    h.append("</table>\n");

    if (r.runs().stream().anyMatch(run -> run.serverMetrics() != null && !run.serverMetrics().isEmpty())) {
      h.append("<h2>Server metrics</h2>\n<p>What the servers counted and recorded over each run's run phase (the load")
          .append(" phase left out), summed (counters) or merged (histograms) over every server: the protocol's own")
          .append(" metrics (dotted names; a histogram's values are in the unit its name says, e.g. waitMicros) and the")
          .append(" messages handled per type.</p>\n<table><tr><th>#</th><th class=\"l\">protocol</th>")
          .append("<th class=\"l\">variation</th><th class=\"l\">metric</th><th>count</th><th>mean</th><th>p50</th>")
          .append("<th>p99</th><th>max</th></tr>\n");
      for (Results.RunResult run : r.runs()) {
        if (run.serverMetrics() == null) {
          continue;
        }
        for (Results.ServerMetric m : run.serverMetrics()) {
          boolean hist = m.kind().equals("histogram");
          h.append("<tr><td>").append(run.index()).append("</td><td class=\"l\">").append(esc(run.protocol()))
              .append("</td><td class=\"l\">")
              .append(esc(run.variation().isEmpty() ? "-" : new Experiment.Variation(run.variation()).label()))
              .append("</td><td class=\"l\">").append(esc(m.name())).append("</td><td>")
              .append(String.format(Locale.ROOT, "%,d", m.count())).append("</td><td>")
              .append(hist ? String.format(Locale.ROOT, "%,.1f", m.mean()) : "").append("</td><td>")
              .append(hist ? String.format(Locale.ROOT, "%,d", m.p50()) : "").append("</td><td>")
              .append(hist ? String.format(Locale.ROOT, "%,d", m.p99()) : "").append("</td><td>")
              .append(hist ? String.format(Locale.ROOT, "%,d", m.max()) : "").append("</td></tr>\n");
        }
      }
      h.append("</table>\n");
    }

    h.append("<h2>How it was run</h2>\n");
    Results.Environment env = r.environment();
    h.append("<pre>").append(esc("cd " + env.workingDirectory() + "\n" + env.command())).append("</pre>\n");
    h.append("<table>");
    row(h, "experiment file", r.experimentFile());
    row(h, "output", r.outputDirectory());
    row(h, "git commit", env.gitCommit());
    row(h, "kvlab", env.kvlabVersion());
    row(h, "JVM", env.java() + ", " + env.jvmVendor());
    row(h, "OS", env.os());
    row(h, "cores", String.valueOf(env.cores()));
    row(h, "memory", env.memoryMb() + " MiB");
    if (env.backend() != null) {
      row(h, "backend", env.backend());
    }
    for (Results.DatacenterHosts d : env.hosts()) {
      row(h, "datacenter " + d.datacenter() + " hosts", "servers: " + hostList(d.servers(), env) + "; clients: "
          + hostList(d.clients(), env));
    }
    for (Map.Entry<String, Object> s : r.settings().entrySet()) {
      row(h, s.getKey(), String.valueOf(s.getValue()));
    }
    h.append("</table>\n");
    h.append("<p>Every run's cluster file, server logs and each client's properties, command line, output, HdrHistogram")
        .append(" logs and YCSB export are in <code>runs/&lt;run&gt;/</code> beside this report; all numbers are in")
        .append(" <code>results.json</code> and <code>results.csv</code>.</p>\n");
    h.append("</body></html>\n");
    return h.toString();
  }

  /** The hosts, each with what the backend knows of it (EC2: its instance type and region). */
  private static String hostList(List<String> hosts, Results.Environment env) {
    if (hosts.isEmpty()) {
      return "none";
    }
    return hosts.stream().map(x -> env.hostDetails().containsKey(x) ? x + " (" + env.hostDetails().get(x) + ")" : x)
        .collect(java.util.stream.Collectors.joining(", "));
  }

  private static void row(StringBuilder h, String k, String v) {
    h.append("<tr><th class=\"l\">").append(esc(k)).append("</th><td class=\"l\">").append(esc(v)).append("</td></tr>\n");
  }

  static String esc(String s) {
    if (s == null) {
      return "";
    }
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
