package org.kvlab.designer.design;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.kvlab.config.ConfigException;
import org.kvlab.config.YamlNode;
import org.kvlab.config.YamlNode.Kind;
import org.kvlab.config.YamlReader;

/**
 * Reads a cluster file into a {@link Design} and writes a design back as a cluster file.
 *
 * <p>Writing keeps what did not change: given the text the design was opened from, every top-level
 * section whose value is unchanged is copied as it was (comments, blank lines, flow or block style); in a
 * changed block mapping ({@code params}, {@code storage}, {@code limits}, {@code security}) and in a changed
 * {@code servers} list of one-line entries only the changed entries are rewritten (keeping their end-of-line
 * comments); other changed sections are written again in the canonical style. So opening and saving a file
 * gives the same bytes, and an edit changes only the lines it concerns.
 */
public final class DesignYaml {
  /** Top-level keys in the order a new file writes them. */
  static final List<String> ORDER = List.of("name", "protocol", "params", "datacenters", "partitions",
      "replicas", "servers", "local", "storage", "emulation", "limits", "security");

  private DesignYaml() {}

  /** The design a cluster file describes; a YAML syntax error, or a shape that cannot be drawn, is a ConfigException. */
  public static Design read(String text, String source) throws ConfigException {
    Parsed p = Parsed.of(text, source);
    Design d = new Design();
    YamlNode root = p.root;
    if (root.kind != Kind.MAPPING) {
      throw new ConfigException(source, root.line, root.column, "a cluster file must be a mapping of keys",
          "start from an example in examples/ or docs/cluster-file.md.");
    }
    int datacenters = 1;
    for (Map.Entry<String, YamlNode> e : root.entries.entrySet()) {
      String key = e.getKey();
      YamlNode v = e.getValue();
      boolean ok = switch (key) {
        case "name" -> v.isScalar() && set(() -> d.name = v.text);
        case "protocol" -> v.isScalar() && set(() -> d.protocol = v.text);
        case "params" -> scalars(v, d.params);
        case "datacenters" -> {
          datacenters = shape(v, source, 64);
          yield true;
        }
        case "partitions" -> set(() -> d.partitions = shapeUnchecked(v));
        case "replicas" -> v.kind == Kind.NULL ? set(() -> d.replicasWritten = true)
            : set(() -> {
              d.replicas = shapeUnchecked(v);
              d.replicasWritten = true;
            });
        case "servers" -> servers(v, d);
        case "local" -> v.kind == Kind.MAPPING && local(v, d);
        case "storage" -> scalars(v, d.storage);
        case "emulation" -> emulation(v, d);
        case "limits" -> scalars(v, d.limits);
        case "security" -> scalars(v, d.security);
        default -> false;
      };
      if (!ok) {
        d.opaque.put(key, p.sectionText(key));
      }
    }
    shape(root.get("partitions"), source, 1024);
    shape(root.get("replicas"), source, 15);
    for (int i = 0; i < datacenters; i++) {
      d.dcs.add(new Design.Dc(0, 0));
    }
    layout(d);
    readLayout(text, d);
    return d;
  }

  // ---------------------------------------------------------------------------------------------
  // Canvas positions: one comment line at the end of the file, which kvlab's loader ignores

  /** The start of the line that holds the canvas positions ({@code # kvlab-designer: layout 0=40,40 1=330,40}). */
  static final String LAYOUT = "# kvlab-designer: layout";
  private static final Pattern POSITION = Pattern.compile("(\\d+)=(-?\\d+),(-?\\d+)");

  private static boolean isLayoutLine(String line) {
    return line.startsWith(LAYOUT);
  }

  /** Moves the datacenters to the positions the file's layout line gives (the last such line wins). */
  private static void readLayout(String text, Design d) {
    for (String line : text.split("\n")) {
      if (!isLayoutLine(line)) {
        continue;
      }
      var m = POSITION.matcher(line.substring(LAYOUT.length()));
      while (m.find()) {
        try {
          int dc = Integer.parseInt(m.group(1));
          if (dc < d.datacenters()) {
            d.dcs.get(dc).x = Math.max(0, Integer.parseInt(m.group(2)));
            d.dcs.get(dc).y = Math.max(0, Integer.parseInt(m.group(3)));
          }
        } catch (NumberFormatException e) {
          // a number too large for an int: a hand-edited line; that datacenter keeps its default place
        }
      }
    }
  }

  /** The layout line of a design's positions (whole pixels). */
  static String layoutLine(Design d) {
    StringBuilder sb = new StringBuilder(LAYOUT);
    for (int i = 0; i < d.datacenters(); i++) {
      sb.append(' ').append(i).append('=').append(Math.round(d.dcs.get(i).x)).append(',')
          .append(Math.round(d.dcs.get(i).y));
    }
    return sb.toString();
  }

  /** Whether the datacenters are where an opened file without a layout line puts them (rows of four). */
  static boolean defaultLayout(Design d) {
    Design c = d.copy();
    layout(c);
    for (int i = 0; i < d.datacenters(); i++) {
      if (Math.round(c.dcs.get(i).x) != Math.round(d.dcs.get(i).x)
          || Math.round(c.dcs.get(i).y) != Math.round(d.dcs.get(i).y)) {
        return false;
      }
    }
    return true;
  }

  private static String stripLayout(String text) {
    if (!text.contains(LAYOUT)) {
      return text;
    }
    List<String> kept = new ArrayList<>();
    for (String line : text.split("\n", -1)) {
      if (!isLayoutLine(line)) {
        kept.add(line);
      }
    }
    return String.join("\n", kept);
  }

  /**
   * {@code body} with the design's layout line at its end, when the positions are not the default ones or the
   * original file had a layout line; else {@code body} as it is (so a file without one keeps its bytes).
   */
  private static String withLayout(String body, Design d, String original) {
    boolean had = original != null && original.contains(LAYOUT)
        && java.util.Arrays.stream(original.split("\n")).anyMatch(DesignYaml::isLayoutLine);
    if (!had && defaultLayout(d)) {
      return body;
    }
    return body + (body.isEmpty() || body.endsWith("\n") ? "" : "\n") + layoutLine(d) + "\n";
  }

  /** Places the datacenters in rows of four. */
  static void layout(Design d) {
    for (int i = 0; i < d.datacenters(); i++) {
      d.dcs.get(i).x = 40 + (i % 4) * (CanvasGeometry.dcWidth(d) + 80);
      d.dcs.get(i).y = 40 + (i / 4) * (CanvasGeometry.dcHeight(d) + 80);
    }
  }

  private static boolean set(Runnable r) {
    r.run();
    return true;
  }

  private static int shape(YamlNode v, String source, int max) throws ConfigException {
    if (v == null || v.kind == Kind.NULL) {
      return 1;
    }
    if (v.kind != Kind.INTEGER || v.integer.signum() <= 0 || v.integer.bitLength() > 31 || v.integer.intValue() > max) {
      throw new ConfigException(source, v.line, v.column, YamlReader.label(v.path) + v.shown()
          + " cannot be drawn: the designer needs a whole number from 1 to " + max,
          "correct it in a text editor (docs/cluster-file.md), then open the file again.");
    }
    return v.integer.intValue();
  }

  private static int shapeUnchecked(YamlNode v) {
    return v.kind == Kind.INTEGER && v.integer.signum() > 0 && v.integer.bitLength() <= 31 ? v.integer.intValue() : 1;
  }

  private static boolean scalars(YamlNode v, Map<String, String> into) {
    if (v.kind == Kind.NULL) {
      return true;
    }
    if (v.kind != Kind.MAPPING) {
      return false;
    }
    for (YamlNode x : v.entries.values()) {
      if (!x.isScalar()) {
        return false;
      }
    }
    v.entries.forEach((k, x) -> into.put(k, x.text));
    return true;
  }

  private static boolean servers(YamlNode v, Design d) {
    if (v.kind != Kind.LIST) {
      return false;
    }
    List<Design.ServerEntry> list = new ArrayList<>();
    for (YamlNode item : v.items) {
      if (item.kind != Kind.MAPPING) {
        return false;
      }
      for (Map.Entry<String, YamlNode> e : item.entries.entrySet()) {
        if (!List.of("id", "host", "port").contains(e.getKey()) || !e.getValue().isScalar()) {
          return false;
        }
      }
      if (item.entries.size() != 3) {
        return false;
      }
      list.add(new Design.ServerEntry(item.get("id").text, item.get("host").text, item.get("port").text));
    }
    d.local = false;
    d.servers.addAll(list);
    return true;
  }

  private static boolean local(YamlNode v, Design d) {
    YamlNode host = v.get("host");
    YamlNode base = v.get("basePort");
    if (base == null || !base.isScalar() || (host != null && !host.isScalar()) || v.entries.size() != (host == null ? 1 : 2)) {
      return false;
    }
    d.local = true;
    d.localHost = host == null ? null : host.text;
    d.localBasePort = base.text;
    return true;
  }

  private static boolean emulation(YamlNode v, Design d) {
    if (v.kind == Kind.NULL) {
      return true;
    }
    if (v.kind != Kind.MAPPING || v.entries.keySet().stream().anyMatch(k -> !k.equals("rtt") && !k.equals("skew"))) {
      return false;
    }
    YamlNode rtt = v.get("rtt");
    String[][] m = null;
    if (rtt != null && rtt.kind != Kind.NULL) {
      if (rtt.kind != Kind.LIST) {
        return false;
      }
      m = new String[rtt.items.size()][];
      for (int a = 0; a < m.length; a++) {
        YamlNode row = rtt.items.get(a);
        if (row.kind != Kind.LIST || row.items.size() != m.length) {
          return false;
        }
        m[a] = new String[m.length];
        for (int b = 0; b < m.length; b++) {
          if (!row.items.get(b).isScalar()) {
            return false;
          }
          m[a][b] = row.items.get(b).text;
        }
      }
    }
    LinkedHashMap<String, String> skew = new LinkedHashMap<>();
    YamlNode s = v.get("skew");
    if (s != null && !scalars(s, skew)) {
      return false;
    }
    d.rtt = m;
    d.skew.putAll(skew);
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // Writing

  /**
   * The cluster file of a design never saved: every section in the canonical style, and the canvas positions
   * in a comment line at the end when they are not the default ones.
   */
  public static String write(Design d) {
    return withLayout(canonical(d), d, null);
  }

  private static String canonical(Design d) {
    StringBuilder sb = new StringBuilder("# kvlab cluster file (format: docs/cluster-file.md), written by kvlab designer\n");
    for (String key : keys(d)) {
      String s = section(d, key);
      if (s != null) {
        sb.append(s).append('\n');
      }
    }
    return sb.toString();
  }

  /**
   * The cluster file of {@code d}, which was opened from {@code original} (null: a new design): unchanged
   * sections keep their text, changed ones change as little as they can (see the class comment).
   */
  public static String write(Design d, String original) {
    if (original == null) {
      return write(d);
    }
    return withLayout(merged(d, stripLayout(original)), d, original);
  }

  private static String merged(Design d, String original) {
    Parsed p;
    Design before;
    try {
      p = Parsed.of(original, "original");
      before = read(original, "original");
    } catch (ConfigException e) {
      return canonical(d);
    }
    if (!p.structured) {
      return Objects.equals(canonical(before), canonical(d)) ? original : canonical(d);
    }
    List<String> inFile = new ArrayList<>(p.spans.keySet());
    // new sections go after the closest earlier section (in the canonical order) that the file has
    Map<String, List<String>> insertAfter = new HashMap<>();
    List<String> all = keys(d);
    for (int i = 0; i < all.size(); i++) {
      String key = all.get(i);
      if (inFile.contains(key) || section(d, key) == null) {
        continue;
      }
      String anchor = null;
      for (int j = i - 1; j >= 0 && anchor == null; j--) {
        if (inFile.contains(all.get(j))) {
          anchor = all.get(j);
        }
      }
      insertAfter.computeIfAbsent(anchor, k -> new ArrayList<>()).add(key);
    }
    List<String> out = new ArrayList<>(p.lines.subList(0, p.headerEnd));
    for (String key : insertAfter.getOrDefault(null, List.of())) {
      out.addAll(List.of(section(d, key).split("\n")));
    }
    for (String key : inFile) {
      Span span = p.spans.get(key);
      String now = section(d, key);
      String was = section(before, key);
      List<String> body = p.lines.subList(span.start, span.bodyEnd);
      if (Objects.equals(now, was)) {
        out.addAll(p.lines.subList(span.leadStart, span.bodyEnd));
      } else if (now != null) {
        out.addAll(p.lines.subList(span.leadStart, span.start));
        out.addAll(merge(key, body, p.root.get(key), before, d, now, span.start));
      }
      for (String k : insertAfter.getOrDefault(key, List.of())) {
        out.addAll(List.of(section(d, k).split("\n")));
      }
    }
    out.addAll(p.lines.subList(p.trailerStart, p.lines.size()));
    return String.join("\n", out);
  }

  /** Every top-level key the design writes, canonical ones first, then those it keeps as written. */
  static List<String> keys(Design d) {
    List<String> keys = new ArrayList<>(ORDER);
    for (String k : d.opaque.keySet()) {
      if (!keys.contains(k)) {
        keys.add(k);
      }
    }
    return keys;
  }

  /** A changed section, keeping its end-of-line comments and unchanged entries where the shape allows. */
  private static List<String> merge(String key, List<String> body, YamlNode node, Design before, Design d,
      String now, int first) {
    String[] nowLines = now.split("\n");
    if (body.size() == 1 && nowLines.length == 1) {
      return List.of(withComment(nowLines[0], body.get(0)));
    }
    if (!d.opaque.containsKey(key) && !before.opaque.containsKey(key)) {
      Map<String, String> was = mapOf(before, key);
      Map<String, String> is = mapOf(d, key);
      if (was != null && is != null && !is.isEmpty() && node.kind == Kind.MAPPING && oneLineEntries(node, body)) {
        return mergeMapping(body, node, was, is, first);
      }
      if (key.equals("servers") && !before.local && !d.local && node.kind == Kind.LIST && oneLineItems(node)
          && !d.servers.isEmpty()) {
        return mergeServers(body, node, before, d, first);
      }
    }
    return List.of(nowLines);
  }

  private static Map<String, String> mapOf(Design d, String key) {
    return switch (key) {
      case "params" -> d.params;
      case "storage" -> d.storage;
      case "limits" -> d.limits;
      case "security" -> d.security;
      default -> null;
    };
  }

  private static boolean oneLineEntries(YamlNode node, List<String> body) {
    if (node.line == node.keyLine || node.entries.isEmpty()) {
      return false; // flow style on the key's line
    }
    Set<Integer> lines = new HashSet<>();
    for (YamlNode v : node.entries.values()) {
      if (!v.isScalar() || v.line != v.keyLine || !lines.add(v.keyLine)) {
        return false;
      }
    }
    return true;
  }

  private static boolean oneLineItems(YamlNode node) {
    Set<Integer> lines = new HashSet<>();
    for (YamlNode item : node.items) {
      if (item.kind != Kind.MAPPING || !lines.add(item.line)) {
        return false;
      }
      for (YamlNode v : item.entries.values()) {
        if (v.line != item.line) {
          return false;
        }
      }
    }
    return !node.items.isEmpty() && node.items.get(0).line != node.keyLine;
  }

  private static List<String> mergeMapping(List<String> body, YamlNode node, Map<String, String> was,
      Map<String, String> is, int first) {
    List<String> out = new ArrayList<>();
    Map<Integer, String> keyAtLine = new HashMap<>();
    node.entries.forEach((k, v) -> keyAtLine.put(v.keyLine - 1, k));
    String indent = "  ";
    int last = 0;
    for (int i = 0; i < body.size(); i++) {
      String k = keyAtLine.get(first + i);
      String line = body.get(i);
      if (k == null) {
        out.add(line);
        continue;
      }
      indent = line.substring(0, line.length() - line.stripLeading().length());
      if (!is.containsKey(k)) {
        continue;
      }
      out.add(Objects.equals(is.get(k), was.get(k)) ? line
          : withComment(indent + k + ": " + quote(is.get(k)), line));
      last = out.size();
    }
    List<String> added = new ArrayList<>();
    for (Map.Entry<String, String> e : is.entrySet()) {
      if (!was.containsKey(e.getKey())) {
        added.add(indent + e.getKey() + ": " + quote(e.getValue()));
      }
    }
    out.addAll(last, added);
    return out;
  }

  private static List<String> mergeServers(List<String> body, YamlNode node, Design before, Design d, int first) {
    Map<Integer, YamlNode> itemAtLine = new HashMap<>();
    for (YamlNode item : node.items) {
      itemAtLine.put(item.line - 1, item);
    }
    Map<String, Design.ServerEntry> now = new LinkedHashMap<>();
    d.servers.forEach(s -> now.putIfAbsent(s.id, s));
    Map<String, Design.ServerEntry> was = new HashMap<>();
    before.servers.forEach(s -> was.putIfAbsent(s.id, s));
    Set<String> written = new HashSet<>();
    List<String> out = new ArrayList<>();
    String prefix = "  - ";
    int last = 0;
    for (int i = 0; i < body.size(); i++) {
      String line = body.get(i);
      YamlNode item = itemAtLine.get(first + i);
      if (item == null) {
        out.add(line);
        continue;
      }
      prefix = line.substring(0, item.column - 1);
      String id = item.get("id") == null ? null : item.get("id").text;
      Design.ServerEntry s = id == null ? null : now.get(id);
      if (s == null || !written.add(id)) {
        continue;
      }
      Design.ServerEntry old = was.get(id);
      boolean same = old != null && old.host.equals(s.host) && old.port.equals(s.port);
      out.add(same ? line : withComment(prefix + serverItem(s), line));
      last = out.size();
    }
    List<String> added = new ArrayList<>();
    for (Design.ServerEntry s : d.servers) {
      if (written.add(s.id)) {
        added.add(prefix + serverItem(s));
      }
    }
    out.addAll(last, added);
    return out;
  }

  /** {@code line} with the end-of-line comment of {@code old}, if it had one (at the same column if it fits). */
  static String withComment(String line, String old) {
    int c = commentStart(old);
    if (c < 0) {
      return line;
    }
    int gapStart = c;
    while (gapStart > 0 && Character.isWhitespace(old.charAt(gapStart - 1))) {
      gapStart--;
    }
    String comment = old.substring(c);
    if (line.length() < c && gapStart > 0) {
      return line + " ".repeat(c - line.length()) + comment;
    }
    return line + (gapStart == 0 ? "" : " ") + comment;
  }

  /** Index of a comment's '#' in a line (outside quotes, after whitespace or at the start), or -1. */
  static int commentStart(String line) {
    boolean single = false;
    boolean dbl = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '\'' && !dbl) {
        single = !single;
      } else if (c == '"' && !single) {
        dbl = !dbl;
      } else if (c == '#' && !single && !dbl && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
        return i;
      }
    }
    return -1;
  }

  /** One section in the canonical style, or null if the design does not write it. */
  static String section(Design d, String key) {
    if (d.opaque.containsKey(key)) {
      return d.opaque.get(key);
    }
    return switch (key) {
      case "name" -> "name: " + quote(d.name);
      case "protocol" -> "protocol: " + quote(d.protocol);
      case "params" -> block("params", d.params);
      case "datacenters" -> "datacenters: " + d.datacenters();
      case "partitions" -> "partitions: " + d.partitions;
      case "replicas" -> d.replicasWritten || d.replicas != 1 ? "replicas: " + d.replicas : null;
      case "servers" -> {
        if (d.local) {
          yield null;
        }
        StringBuilder sb = new StringBuilder("servers:");
        d.servers.forEach(s -> sb.append("\n  - ").append(serverItem(s)));
        yield sb.toString();
      }
      case "local" -> d.local ? "local: { " + (d.localHost == null ? "" : "host: " + quote(d.localHost) + ", ")
          + "basePort: " + quote(d.localBasePort) + " }" : null;
      case "storage" -> block("storage", d.storage);
      case "emulation" -> {
        if (d.rtt == null && d.skew.isEmpty()) {
          yield null;
        }
        StringBuilder sb = new StringBuilder("emulation:");
        if (d.rtt != null) {
          sb.append("\n  rtt:");
          for (String[] row : d.rtt) {
            List<String> cells = new ArrayList<>();
            for (String c : row) {
              cells.add(quote(c));
            }
            sb.append("\n    - [").append(String.join(", ", cells)).append(']');
          }
        }
        if (!d.skew.isEmpty()) {
          List<String> cells = new ArrayList<>();
          d.skew.forEach((k, v) -> cells.add(quote(k) + ": " + quote(v)));
          sb.append("\n  skew: { ").append(String.join(", ", cells)).append(" }");
        }
        yield sb.toString();
      }
      case "limits" -> block("limits", d.limits);
      case "security" -> block("security", d.security);
      default -> null;
    };
  }

  static String serverItem(Design.ServerEntry s) {
    return "{ id: " + quote(s.id) + ", host: " + quote(s.host) + ", port: " + quote(s.port) + " }";
  }

  private static String block(String key, Map<String, String> values) {
    if (values.isEmpty()) {
      return null;
    }
    StringBuilder sb = new StringBuilder(key).append(':');
    values.forEach((k, v) -> sb.append("\n  ").append(quote(k)).append(": ").append(quote(v)));
    return sb.toString();
  }

  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9._/~+\\-][^:#,\\[\\]{}'\"&*!|>%@`]*");

  /** A scalar as YAML text: plain when it reads back as the same text, else single-quoted. */
  static String quote(String s) {
    if (s == null) {
      return "''";
    }
    boolean plain = PLAIN.matcher(s).matches() && s.strip().equals(s) && !s.equals("~") && !s.equalsIgnoreCase("null")
        && !(s.startsWith("-") && (s.length() == 1 || s.charAt(1) == ' '));
    return plain ? s : "'" + s.replace("'", "''") + "'";
  }

  // ---------------------------------------------------------------------------------------------

  /** Where each top-level section of a file is: its leading comments, its lines, the comments after it. */
  record Span(int leadStart, int start, int bodyEnd) {}

  /** A file split into lines and top-level sections. */
  static final class Parsed {
    final List<String> lines;
    final YamlNode root;
    final LinkedHashMap<String, Span> spans = new LinkedHashMap<>();
    int headerEnd;
    int trailerStart;
    /** False when the top level is not one key per line (e.g. a flow mapping): then nothing is merged. */
    boolean structured = true;

    private Parsed(List<String> lines, YamlNode root) {
      this.lines = lines;
      this.root = root;
    }

    static Parsed of(String text, String source) throws ConfigException {
      YamlReader reader = new YamlReader(source, "cluster file",
          "write at least name, protocol, datacenters, partitions and servers; see docs/cluster-file.md.",
          "keep one cluster per file.");
      YamlNode root = reader.readTree(YamlReader.stripBom(text));
      Parsed p = new Parsed(List.of(text.split("\n", -1)), root);
      p.split();
      return p;
    }

    private void split() {
      if (root.kind != Kind.MAPPING || root.entries.isEmpty()) {
        structured = false;
        headerEnd = lines.size();
        trailerStart = lines.size();
        return;
      }
      List<Map.Entry<String, YamlNode>> entries = new ArrayList<>(root.entries.entrySet());
      int prevLine = 0;
      for (Map.Entry<String, YamlNode> e : entries) {
        if (e.getValue().keyColumn != 1 || e.getValue().keyLine <= prevLine) {
          structured = false;
        }
        prevLine = e.getValue().keyLine;
      }
      int leadStart = -1;
      for (int i = 0; i < entries.size(); i++) {
        int start = entries.get(i).getValue().keyLine - 1;
        int end = i + 1 < entries.size() ? entries.get(i + 1).getValue().keyLine - 1 : lines.size();
        if (!structured) {
          start = Math.min(start, end);
        }
        int bodyEnd = end;
        while (bodyEnd > start + 1 && isLeadLine(lines.get(bodyEnd - 1))) {
          bodyEnd--;
        }
        if (i == 0) {
          headerEnd = start;
          leadStart = start;
        }
        spans.put(entries.get(i).getKey(), new Span(leadStart, start, bodyEnd));
        leadStart = bodyEnd;
      }
      trailerStart = leadStart;
    }

    /** A blank line or a comment at the start of a line: belongs to the next section, not the previous one. */
    private static boolean isLeadLine(String line) {
      return line.isBlank() || line.startsWith("#");
    }

    /** The text of one section (without leading comments). */
    String sectionText(String key) {
      Span s = spans.get(key);
      if (s == null) {
        return "";
      }
      return String.join("\n", lines.subList(s.start, s.bodyEnd));
    }
  }
}
