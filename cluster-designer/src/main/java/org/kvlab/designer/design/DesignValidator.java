package org.kvlab.designer.design;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.kvlab.api.NodeId;
import org.kvlab.api.Protocols;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;
import org.kvlab.config.YamlNode;
import org.kvlab.config.YamlReader;

/**
 * Checks a design with kvlab's own cluster-file loader ({@link ClusterConfig#parse}) on the exact text the
 * design would save, so the messages are the CLI's (file, line and column, what is wrong, the fix).
 *
 * <p>The loader stops at the first problem. To show more than one at a time, the text is also checked once
 * per group of sections (name; protocol and params; the shape and servers; storage; emulation; limits;
 * security; other keys) with the other sections blanked out (their lines kept empty, so line numbers stay
 * those of the file) and replaced by valid stand-ins at the end; each distinct problem found is reported.
 * The first problem of the whole file comes first: it is the one {@code kvlab} would print. Whether the
 * protocol is installed is checked as the CLI checks it ({@link Protocols#byName}).
 */
public final class DesignValidator {
  /** One problem: the loader's message, the YAML path it names and the design element it concerns. */
  public record Problem(String message, String path, String target) {
    @Override
    public String toString() {
      return message;
    }
  }

  private static final List<Set<String>> GROUPS = List.of(Set.of("name"), Set.of("protocol", "params"),
      Set.of("datacenters", "partitions", "replicas", "servers", "local"), Set.of("storage"), Set.of("emulation"),
      Set.of("limits"), Set.of("security"));
  private static final Pattern LOCATION = Pattern.compile("(?s):(\\d+)(?::(\\d+))?: (.*)");

  private DesignValidator() {}

  /** Every problem found in the file {@code design} would save as {@code source}; empty if it is valid. */
  public static List<Problem> validate(Design design, String original, String source) {
    String text = DesignYaml.write(design, original);
    List<Problem> problems = new ArrayList<>();
    Problem first = check(text, source);
    Set<String> seen = new HashSet<>();
    if (first != null) {
      problems.add(first);
      seen.add(withoutLocation(first.message, source));
      DesignYaml.Parsed parsed;
      try {
        parsed = DesignYaml.Parsed.of(text, source);
      } catch (ConfigException e) {
        parsed = null;
      }
      if (parsed != null && parsed.structured) {
        for (Set<String> group : groups(parsed)) {
          Problem p = check(variant(parsed, group, design), source);
          if (p != null && seen.add(withoutLocation(p.message, source))) {
            problems.add(p);
          }
        }
      }
    }
    if (!design.protocol.isBlank() && !design.opaque.containsKey("protocol")) {
      try {
        Protocols.byName(design.protocol);
      } catch (IllegalArgumentException e) {
        problems.add(new Problem(source + ": " + e.getMessage(), "protocol", "field:protocol"));
      }
    }
    return problems;
  }

  private static List<Set<String>> groups(DesignYaml.Parsed parsed) {
    List<Set<String>> groups = new ArrayList<>(GROUPS);
    Set<String> others = new LinkedHashSet<>(parsed.spans.keySet());
    GROUPS.forEach(others::removeAll);
    if (!others.isEmpty()) {
      groups.add(others);
    }
    return groups;
  }

  /** The file with only {@code group}'s sections, in place, and valid stand-ins for the required others. */
  private static String variant(DesignYaml.Parsed parsed, Set<String> group, Design design) {
    List<String> lines = new ArrayList<>(parsed.lines);
    for (Map.Entry<String, DesignYaml.Span> e : parsed.spans.entrySet()) {
      if (!group.contains(e.getKey())) {
        for (int i = e.getValue().start(); i < e.getValue().bodyEnd(); i++) {
          lines.set(i, "");
        }
      }
    }
    if (!group.contains("name")) {
      lines.add("name: stand-in");
    }
    if (!group.contains("protocol")) {
      lines.add("protocol: eventual");
    }
    if (!group.contains("datacenters")) {
      lines.add("datacenters: " + design.datacenters());
      lines.add("partitions: " + design.partitions);
      lines.add("replicas: " + design.replicas);
      lines.add("local: { basePort: 1000 }");
    }
    return String.join("\n", lines);
  }

  /** The loader's first problem with {@code text}, or null if it loads. */
  static Problem check(String text, String source) {
    try {
      ClusterConfig.parse(text, source);
      return null;
    } catch (ConfigException e) {
      return problem(e, text, source);
    }
  }

  private static Problem problem(ConfigException e, String text, String source) {
    String msg = e.getMessage();
    int line = 0;
    int column = 0;
    if (msg.startsWith(source)) {
      Matcher m = LOCATION.matcher(msg.substring(source.length()));
      if (m.matches()) {
        line = Integer.parseInt(m.group(1));
        column = m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
      }
    }
    String path = "";
    YamlNode root = null;
    try {
      root = new YamlReader(source, "cluster file", "", "").readTree(text);
      YamlNode at = find(root, line, column);
      if (at != null) {
        path = at.path;
      }
    } catch (ConfigException ignored) {
      // a syntax error: no tree to place it in
    }
    return new Problem(msg, path, target(path, root));
  }

  private static YamlNode find(YamlNode root, int line, int column) {
    List<YamlNode> all = new ArrayList<>();
    collect(root, all);
    YamlNode best = null;
    YamlNode byLine = null;
    for (YamlNode n : all) {
      boolean at = (n.line == line && n.column == column) || (n.keyLine == line && n.keyColumn == column);
      if (at && (best == null || n.path.length() > best.path.length())) {
        best = n; // the deepest node there: a mapping starts where its first key does
      }
      if (byLine == null && n.keyLine == line && !n.path.isEmpty()) {
        byLine = n;
      }
    }
    return best != null ? best : byLine;
  }

  private static void collect(YamlNode n, List<YamlNode> into) {
    into.add(n);
    n.entries.values().forEach(c -> collect(c, into));
    n.items.forEach(c -> collect(c, into));
  }

  private static final Pattern SERVER_ITEM = Pattern.compile("servers\\[(\\d+)\\].*");
  private static final Pattern RTT_CELL = Pattern.compile("emulation\\.rtt\\[(\\d+)\\]\\[(\\d+)\\]");
  private static final Pattern SKEW = Pattern.compile("emulation\\.skew\\.(.+)");
  private static final Pattern PARAM = Pattern.compile("params\\.(.+)");

  /**
   * The design element a YAML path concerns: {@code server:<id>} (a server box), {@code link:<a>:<b>} (the
   * link between two datacenters, a < b), {@code param:<name>}, {@code field:<path>} (a property field), or
   * {@code file} (the file as a whole).
   */
  static String target(String path, YamlNode root) {
    if (path.isEmpty()) {
      return "file";
    }
    Matcher m = SERVER_ITEM.matcher(path);
    if (m.matches() && root != null) {
      YamlNode list = root.get("servers");
      int i = Integer.parseInt(m.group(1));
      if (list != null && i < list.items.size() && list.items.get(i).get("id") != null) {
        try {
          NodeId id = NodeId.parse(list.items.get(i).get("id").text.strip());
          return "server:" + Design.idText(id.dc(), id.partition(), id.replica());
        } catch (IllegalArgumentException e) {
          return "field:servers";
        }
      }
      return "field:servers";
    }
    m = RTT_CELL.matcher(path);
    if (m.matches()) {
      int a = Integer.parseInt(m.group(1));
      int b = Integer.parseInt(m.group(2));
      return "link:" + Math.min(a, b) + ":" + Math.max(a, b);
    }
    m = SKEW.matcher(path);
    if (m.matches()) {
      try {
        NodeId id = NodeId.parse(m.group(1).strip());
        return "server:" + Design.idText(id.dc(), id.partition(), id.replica());
      } catch (IllegalArgumentException e) {
        return "field:emulation";
      }
    }
    m = PARAM.matcher(path);
    if (m.matches()) {
      return "param:" + m.group(1);
    }
    if (path.startsWith("local")) {
      return "field:local";
    }
    return "field:" + path;
  }

  private static String withoutLocation(String message, String source) {
    if (message.startsWith(source)) {
      Matcher m = LOCATION.matcher(message.substring(source.length()));
      if (m.matches()) {
        return m.group(3);
      }
    }
    return message;
  }
}
