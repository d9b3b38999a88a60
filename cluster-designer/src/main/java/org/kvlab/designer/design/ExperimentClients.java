package org.kvlab.designer.design;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.config.ConfigException;
import org.kvlab.config.YamlNode;
import org.kvlab.config.YamlNode.Kind;
import org.kvlab.experiment.Experiment;
import org.kvlab.experiment.ExperimentLoader;

/**
 * The client groups of an experiment file (docs/bench.md), as the Design tab draws and edits them.
 *
 * <p>The experiment format has one {@code clients:} section for the whole experiment: {@code processes} client
 * JVMs per datacenter, {@code threads} YCSB threads per JVM, {@code jvm} options, and {@code datacenters}, the
 * datacenters that get clients (absent: every one). So a client group is "the client JVMs of datacenter d":
 * the datacenters listed have one, all of the same size. Adding a group adds its datacenter to the list,
 * deleting one removes it, and a group's size is the section's {@code processes} and {@code threads}, shared
 * by every group.
 *
 * <p>Edits change the text of the {@code clients:} section only (the other sections keep their bytes; in a
 * section written one key per line only the changed keys' lines change, keeping their end-of-line comments),
 * and the new text is checked with kvlab's experiment loader ({@code ExperimentLoader.parse}, what
 * {@code kvlab bench} and the Benchmark tab use) before anything is written: text the loader refuses is not
 * written, and its message says why.
 */
final class ExperimentClients {
  private static volatile List<String> installed;

  final Path file;
  final String text;
  /** The loaded experiment, or null when the file cannot be read or the loader refuses it. */
  final Experiment experiment;
  /** The loader's message ({@code kvlab: file:line:col: ... Fix: ...}) when {@link #experiment} is null. */
  final String error;

  private ExperimentClients(Path file, String text, Experiment experiment, String error) {
    this.file = file;
    this.text = text;
    this.experiment = experiment;
    this.error = error;
  }

  static List<String> installedProtocols() {
    List<String> p = installed;
    if (p == null) {
      p = Protocols.all().stream().map(Protocol::name).sorted().toList();
      installed = p;
    }
    return p;
  }

  /** Reads and checks an experiment file. */
  static ExperimentClients load(Path file) {
    try {
      return of(Files.readString(file, StandardCharsets.UTF_8), file);
    } catch (IOException e) {
      return new ExperimentClients(file, null, null, "kvlab: cannot read " + file + ": " + e.getMessage()
          + ". Fix: choose an existing experiment file (examples are in experiments/).");
    }
  }

  /** Checks experiment text with kvlab's loader. */
  static ExperimentClients of(String text, Path file) {
    try {
      return new ExperimentClients(file, text, ExperimentLoader.parse(text, file.toString(), file, installedProtocols()), null);
    } catch (ConfigException e) {
      return new ExperimentClients(file, text, null, "kvlab: " + e.getMessage());
    } catch (RuntimeException e) {
      return new ExperimentClients(file, text, null, "kvlab: " + file + ": " + e.getMessage());
    }
  }

  boolean ok() {
    return experiment != null;
  }

  /** Datacenters of the experiment's cluster. */
  int clusterDatacenters() {
    return experiment.cluster().datacenters();
  }

  /** The datacenters that have a client group, ascending. */
  List<Integer> groups() {
    List<Integer> listed = experiment.clients().datacenters();
    if (!listed.isEmpty()) {
      return listed;
    }
    List<Integer> all = new ArrayList<>();
    for (int d = 0; d < clusterDatacenters(); d++) {
      all.add(d);
    }
    return all;
  }

  /** Whether {@code clients.datacenters} is absent (every datacenter has clients). */
  boolean everyDatacenter() {
    return experiment.clients().datacenters().isEmpty();
  }

  int processes() {
    return experiment.clients().perDatacenter();
  }

  int threads() {
    return experiment.clients().threads();
  }

  /** The sweep values of {@code clients} or {@code threads}, if the experiment sweeps them ("threads [1, 4]"). */
  String swept() {
    return experiment.sweeps().stream().filter(s -> s.name().equals("clients") || s.name().equals("threads"))
        .map(s -> s.name() + " " + s.values()).collect(Collectors.joining(", "));
  }

  /** The size of one group as the canvas labels it (two lines: what it is, its size). */
  String groupLabel() {
    String s = swept();
    return "client group" + (s.isEmpty() ? "" : " (swept)") + "\n" + processes() + " JVM" + (processes() == 1 ? "" : "s")
        + " \u00d7 " + threads() + " thread" + (threads() == 1 ? "" : "s");
  }

  /** The text with client groups in exactly {@code dcs} (all of the cluster's: {@code datacenters} is removed). */
  String withGroups(java.util.Collection<Integer> dcs) {
    TreeSet<Integer> sorted = new TreeSet<>(dcs);
    boolean all = sorted.size() == clusterDatacenters() && sorted.first() == 0 && sorted.last() == clusterDatacenters() - 1;
    Map<String, String> change = new LinkedHashMap<>();
    change.put("datacenters", all ? null : sorted.stream().map(String::valueOf).collect(Collectors.joining(", ", "[", "]")));
    return withClients(text, change);
  }

  /** The text with {@code clients.processes} and {@code clients.threads} set. */
  String withSize(int processes, int threads) {
    Map<String, String> change = new LinkedHashMap<>();
    change.put("processes", String.valueOf(processes));
    change.put("threads", String.valueOf(threads));
    return withClients(text, change);
  }

  /**
   * {@code text} with keys of its {@code clients:} section set (a null value removes the key). Only that section
   * changes; written one key per line, only the changed keys' lines change (keeping their end-of-line comments)
   * and new keys go after the last one; in another style (a flow mapping on one line) the section is written
   * again one key per line. A file without the section gets one, after {@code protocols}, {@code workload}
   * or {@code sweep}.
   */
  static String withClients(String text, Map<String, String> change) {
    DesignYaml.Parsed p;
    try {
      p = DesignYaml.Parsed.of(text, "experiment");
    } catch (ConfigException e) {
      throw new IllegalStateException("the experiment file is not YAML: " + e.getMessage(), e);
    }
    if (!p.structured) {
      throw new IllegalStateException("the experiment's top level is not one key per line: edit it in the Benchmark tab");
    }
    List<String> lines = new ArrayList<>(p.lines);
    YamlNode node = p.root.get("clients");
    DesignYaml.Span span = p.spans.get("clients");
    if (node == null || span == null) {
      List<String> section = new ArrayList<>(List.of("clients:"));
      change.forEach((k, v) -> {
        if (v != null) {
          section.add("  " + k + ": " + v);
        }
      });
      if (section.size() == 1) {
        return text;
      }
      int at = p.trailerStart;
      for (String after : List.of("protocols", "workload", "sweep")) {
        if (p.spans.containsKey(after)) {
          at = p.spans.get(after).bodyEnd();
        }
      }
      lines.addAll(at, section);
      return String.join("\n", lines);
    }
    List<String> body = new ArrayList<>(lines.subList(span.start(), span.bodyEnd()));
    List<String> out;
    if (node.kind == Kind.MAPPING && oneKeyPerLine(node)) {
      out = new ArrayList<>();
      Map<Integer, String> keyAt = new LinkedHashMap<>();
      node.entries.forEach((k, v) -> keyAt.put(v.keyLine - 1 - span.start(), k));
      String indent = "  ";
      int last = 1;
      for (int i = 0; i < body.size(); i++) {
        String k = keyAt.get(i);
        String line = body.get(i);
        if (k == null) {
          out.add(line);
          continue;
        }
        indent = line.substring(0, line.length() - line.stripLeading().length());
        if (change.containsKey(k)) {
          String v = change.get(k);
          if (v == null) {
            continue;
          }
          String old = node.get(k).text;
          out.add(Objects.equals(v, old) ? line : DesignYaml.withComment(indent + k + ": " + v, line));
        } else {
          out.add(line);
        }
        last = out.size();
      }
      List<String> added = new ArrayList<>();
      for (Map.Entry<String, String> e : change.entrySet()) {
        if (e.getValue() != null && !node.entries.containsKey(e.getKey())) {
          added.add(indent + e.getKey() + ": " + e.getValue());
        }
      }
      out.addAll(last, added);
      if (out.size() == 1 && out.get(0).strip().equals("clients:")) {
        out = List.of(); // nothing left: the section goes (clients default to 1 x 1 in every datacenter)
      }
    } else {
      // flow style or empty: the section again, one key per line
      Map<String, String> values = new LinkedHashMap<>();
      if (node.kind == Kind.MAPPING) {
        node.entries.forEach((k, v) -> values.put(k, valueText(v)));
      }
      change.forEach((k, v) -> {
        if (v == null) {
          values.remove(k);
        } else {
          values.put(k, v);
        }
      });
      List<String> block = new ArrayList<>();
      if (!values.isEmpty()) {
        block.add("clients:");
        values.forEach((k, v) -> block.add("  " + k + ": " + v));
      }
      out = block;
    }
    List<String> result = new ArrayList<>(lines.subList(0, span.start()));
    result.addAll(out);
    result.addAll(lines.subList(span.bodyEnd(), lines.size()));
    return String.join("\n", result);
  }

  /** Each key on a line of its own, its value (a scalar or a flow list) on the same line. */
  private static boolean oneKeyPerLine(YamlNode node) {
    if (node.line == node.keyLine || node.entries.isEmpty()) {
      return false;
    }
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    for (YamlNode v : node.entries.values()) {
      if (!seen.add(v.keyLine) || v.line != v.keyLine) {
        return false;
      }
      if (v.kind == Kind.LIST && v.items.stream().anyMatch(i -> i.line != v.keyLine || !i.isScalar())) {
        return false;
      }
      if (v.kind == Kind.MAPPING) {
        return false;
      }
    }
    return true;
  }

  private static String valueText(YamlNode v) {
    if (v.kind == Kind.LIST) {
      return v.items.stream().map(ExperimentClients::valueText).collect(Collectors.joining(", ", "[", "]"));
    }
    return v.kind == Kind.NULL ? "" : DesignYaml.quote(v.text);
  }

  /** A small experiment for a saved design: its cluster file as the template, clients in every datacenter. */
  static String template(Design d, String clusterPath) {
    String name = d.name.toLowerCase().replaceAll("[^a-z0-9._-]", "-").replaceAll("^[^a-z0-9]+", "");
    return "# kvlab experiment (format: docs/bench.md), written by kvlab designer for " + clusterPath + "\n"
        + "name: " + (name.isEmpty() ? "my-experiment" : name) + "\n"
        + "cluster: { file: " + DesignYaml.quote(clusterPath) + " }\n"
        + "protocols: [" + (d.protocol.isBlank() ? "eventual" : d.protocol) + "]\n"
        + "workload:\n"
        + "  readproportion: 0.5\n"
        + "  updateproportion: 0.5\n"
        + "clients:\n"
        + "  processes: 1\n"
        + "  threads: 4\n"
        + "recordcount: 1000\n"
        + "duration: 10s\n"
        + "warmup: 2s\n";
  }
}
