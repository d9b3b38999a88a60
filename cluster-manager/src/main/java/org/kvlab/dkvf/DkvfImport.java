package org.kvlab.dkvf;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.kvlab.dkvf.XmlTree.Node;

/**
 * Converts DKVF's XML descriptors (seed 003 §8.4; Tools/XSDs ClusterDescriptor.xsd and ExperimentDescriptor.xsd) into
 * kvlab YAML: a {@code <cluster>} into a cluster file (docs/cluster-file.md), an {@code <experiment>} into an experiment
 * file for {@code kvlab bench} (docs/bench.md). What has no kvlab equivalent is listed as notes, in the output file's
 * header and in {@link Result#notes()}.
 */
public final class DkvfImport {
  /** What was written, and what was not carried over. */
  public record Result(String kind, Path output, String yaml, List<String> notes) {}

  private static final Set<String> PARAMETER_ELEMENTS = Set.of("server_jar_file", "client_class_name", "username",
      "password", "key", "working_directory", "client_port", "server_port", "control_port", "storage",
      "connector_sleep_time", "channel_capacity", "protocol_log_file", "protocol_log_level", "protocol_log_type",
      "protocol_std_log_level", "framework_log_file", "framework_log_level", "framework_log_type",
      "framework_std_log_level", "protocol_properties", "client_protocol_properties", "client_storage", "os",
      "client_jar_file", "ycsb_driver", "workload", "synch_communication");

  private final Path file;
  private final List<String> notes = new ArrayList<>();

  private DkvfImport(Path file) {
    this.file = file;
  }

  /** Reads {@code file} and writes the YAML into {@code outDir} (created if needed). */
  public static Result convert(Path file, Path outDir) throws DkvfImportException {
    DkvfImport imp = new DkvfImport(file);
    Node root = XmlTree.parse(file);
    String kind;
    String name;
    String yaml;
    switch (root.name()) {
      case "cluster" -> {
        kind = "cluster";
        name = imp.name(root);
        yaml = imp.cluster(root, name);
      }
      case "experiment" -> {
        kind = "experiment";
        name = imp.name(root);
        yaml = imp.experiment(root, name);
      }
      case "config" -> throw new DkvfImportException(file, root.line(), "this is a per-node DKVF config (<config>),"
          + " which the Cluster Manager generates from a cluster descriptor", "import the cluster descriptor"
          + " (<cluster>, exported by the Cluster Designer) or the experiment descriptor (<experiment>) instead");
      default -> throw new DkvfImportException(file, root.line(), "root element <" + root.name() + "> is not a DKVF"
          + " descriptor", "give a DKVF cluster descriptor (<cluster>) or experiment descriptor (<experiment>)");
    }
    StringBuilder out = new StringBuilder();
    out.append("# Imported from DKVF ").append(kind).append(" descriptor ").append(file.getFileName())
        .append(" by kvlab import-dkvf.\n");
    if (!imp.notes.isEmpty()) {
      out.append("# Not carried over (no kvlab equivalent, or kvlab does it another way):\n");
      for (String n : imp.notes) {
        out.append("#   - ").append(n).append('\n');
      }
    }
    out.append(yaml);
    Path target = outDir.resolve(name + (kind.equals("experiment") ? "-experiment" : "") + ".yaml");
    try {
      Files.createDirectories(outDir);
      Files.writeString(target, out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new DkvfImportException(target, 0, "cannot write: " + e.getMessage(), "choose a writable --out directory");
    }
    return new Result(kind, target, out.toString(), List.copyOf(imp.notes));
  }

  // ---------------------------------------------------------------------------------------------- common

  private String name(Node root) throws DkvfImportException {
    Node n = root.first("name");
    if (n == null || n.textValue().isEmpty()) {
      throw new DkvfImportException(file, root.line(), "<" + root.name() + "> has no <name>", "add <name>my-cluster</name>");
    }
    String s = n.textValue().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9._-]+", "-").replaceAll("^[^a-z0-9]+", "");
    if (s.isEmpty()) {
      throw new DkvfImportException(file, n.line(), "name \"" + n.textValue() + "\" has no letter or digit",
          "use a name of letters, digits, '.', '_' or '-'");
    }
    if (!s.equals(n.textValue())) {
      notes.add("name \"" + n.textValue() + "\" became \"" + s + "\" (kvlab names use a-z 0-9 . _ -)");
    }
    return s.length() > 64 ? s.substring(0, 64) : s;
  }

  /** A Parameters element as element name to text, protocol properties (repeated keys joined) and storage. */
  private record Parameters(Map<String, Node> values, Map<String, List<String>> protocol, Map<String, String> storage) {
    String get(String k) {
      Node n = values.get(k);
      return n == null ? null : n.textValue();
    }
  }

  private Parameters parameters(Node p) throws DkvfImportException {
    Map<String, Node> values = new LinkedHashMap<>();
    Map<String, List<String>> protocol = new LinkedHashMap<>();
    Map<String, String> storage = new LinkedHashMap<>();
    if (p == null) {
      return new Parameters(values, protocol, storage);
    }
    for (Node c : p.children()) {
      if (!PARAMETER_ELEMENTS.contains(c.name())) {
        throw new DkvfImportException(file, c.line(), "unsupported element <" + c.name() + "> in <" + p.name() + ">",
            "remove it or correct its name; DKVF's parameters are " + new TreeSet<>(PARAMETER_ELEMENTS));
      }
      values.put(c.name(), c);
      if (c.name().equals("protocol_properties")) {
        for (Node prop : properties(c)) {
          protocol.computeIfAbsent(prop.attrs().get("key"), k -> new ArrayList<>()).add(prop.attrs().get("value"));
        }
      } else if (c.name().equals("storage")) {
        for (Node prop : properties(c)) {
          storage.put(prop.attrs().get("key"), prop.attrs().get("value"));
        }
      }
    }
    return new Parameters(values, protocol, storage);
  }

  private List<Node> properties(Node parent) throws DkvfImportException {
    List<Node> out = new ArrayList<>();
    for (Node c : parent.children()) {
      if (c.name().equals("class_name") && parent.name().endsWith("storage")) {
        continue;
      }
      if (!c.name().equals("property")) {
        throw new DkvfImportException(file, c.line(), "unsupported element <" + c.name() + "> in <" + parent.name() + ">",
            "use <property key=\"...\" value=\"...\"/>");
      }
      if (!c.attrs().containsKey("key") || !c.attrs().containsKey("value")) {
        throw new DkvfImportException(file, c.line(), "<property> without a key or value attribute",
            "write it as <property key=\"...\" value=\"...\"/>");
      }
      out.add(c);
    }
    return out;
  }

  /** Per-server values over the defaults; protocol properties merged key by key. */
  private static Parameters merge(Parameters defaults, Parameters own) {
    Map<String, Node> values = new LinkedHashMap<>(defaults.values());
    values.putAll(own.values());
    Map<String, List<String>> protocol = new LinkedHashMap<>(defaults.protocol());
    protocol.putAll(own.protocol());
    Map<String, String> storage = new LinkedHashMap<>(defaults.storage());
    storage.putAll(own.storage());
    return new Parameters(values, protocol, storage);
  }

  /** kvlab protocol of a DKVF client or server class/jar name. */
  private String protocol(Parameters p, Node where) throws DkvfImportException {
    String hint = String.join(" ", String.valueOf(p.get("client_class_name")), String.valueOf(p.get("server_jar_file")),
        String.valueOf(p.get("client_jar_file"))).toLowerCase(Locale.ROOT);
    for (String[] m : new String[][] {{"causalspartan", "causalspartanx"}, {"gentlerain", "gentlerain"},
        {"accf", "accf"}, {"cops", "cops"}, {"eventual", "eventual"}}) {
      if (hint.contains(m[0])) {
        return m[1];
      }
    }
    throw new DkvfImportException(file, where.line(), "cannot tell the protocol: client_class_name / server_jar_file"
        + " name none of Eventual, COPS, GentleRain, CausalSpartan, ACCF", "set <client_class_name> in <defaults>,"
        + " e.g. edu.msu.cse.gentleRain.client.GentleRainClient, or edit protocol: in the output");
  }

  private static final Map<String, String[]> PARAMS = Map.of(
      "heartbeat_interval", new String[] {"heartbeat"},
      "gst_comutation_interval", new String[] {"gstInterval"},
      "dsv_comutation_interval", new String[] {"dsvInterval"},
      "svv_comutation_interval", new String[] {"svvInterval"});
  private static final Set<String> DERIVED = Set.of("dc_id", "p_id", "num_of_datacenters", "num_of_partitions",
      "parent_p_id", "children_p_ids", "cg_id", "tg_id", "num_of_tracking_groups");

  private static String q(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\t' -> b.append("\\t");
        default -> b.append(c < 0x20 ? String.format("\\x%02x", (int) c) : String.valueOf(c));
      }
    }
    return b.append('"').toString();
  }

  private static int[] serverId(String id) {
    String[] parts = id.split("_");
    if (parts.length != 2) {
      return null;
    }
    try {
      int d = Integer.parseInt(parts[0]);
      int p = Integer.parseInt(parts[1]);
      return d < 0 || p < 0 ? null : new int[] {d, p};
    } catch (NumberFormatException e) {
      return null;
    }
  }

  // ---------------------------------------------------------------------------------------------- cluster

  private String cluster(Node root, String name) throws DkvfImportException {
    for (Node c : root.children()) {
      if (!Set.of("name", "defaults", "servers", "topology").contains(c.name())) {
        throw new DkvfImportException(file, c.line(), "unsupported element <" + c.name() + "> in <cluster>",
            "remove it; a cluster descriptor has name, defaults, servers and topology");
      }
    }
    Parameters defaults = parameters(root.first("defaults"));
    Node servers = root.first("servers");
    if (servers == null || servers.all("server").isEmpty()) {
      throw new DkvfImportException(file, root.line(), "<cluster> has no <servers><server .../></servers>",
          "add one <server id=\"DC_P\" ip=\"...\"/> per server");
    }
    TreeMap<String, String[]> byId = new TreeMap<>(); // "d_p" -> host, port
    Map<String, Parameters> perServer = new LinkedHashMap<>();
    int dcs = 0;
    int parts = 0;
    for (Node s : servers.children()) {
      if (!s.name().equals("server")) {
        throw new DkvfImportException(file, s.line(), "unsupported element <" + s.name() + "> in <servers>",
            "use <server id=\"DC_P\" ip=\"...\"/>");
      }
      String id = s.attrs().get("id");
      String ip = s.attrs().get("ip");
      if (id == null || ip == null) {
        throw new DkvfImportException(file, s.line(), "<server> without an id or ip attribute",
            "write it as <server id=\"0_1\" ip=\"10.0.0.5\">");
      }
      int[] dp = serverId(id);
      if (dp == null) {
        throw new DkvfImportException(file, s.line(), "server id \"" + id + "\" is not DC_P (datacenter_partition)",
            "name servers as DKVF's protocols expect, e.g. 0_0, 0_1, 1_0");
      }
      Parameters p = merge(defaults, parameters(s.first("config")));
      String port = p.get("server_port") == null ? "2000" : p.get("server_port");
      try {
        int n = Integer.parseInt(port);
        if (n < 1 || n > 65535) {
          throw new NumberFormatException();
        }
      } catch (NumberFormatException e) {
        Node at = p.values().get("server_port");
        throw new DkvfImportException(file, at == null ? s.line() : at.line(), "server_port \"" + port
            + "\" of server " + id + " is not a port", "use a number from 1 to 65535");
      }
      if (byId.put(id, new String[] {ip, port}) != null) {
        throw new DkvfImportException(file, s.line(), "server id " + id + " appears twice", "give each server its own id");
      }
      perServer.put(id, p);
      dcs = Math.max(dcs, dp[0] + 1);
      parts = Math.max(parts, dp[1] + 1);
    }
    for (int d = 0; d < dcs; d++) {
      for (int p = 0; p < parts; p++) {
        if (!byId.containsKey(d + "_" + p)) {
          throw new DkvfImportException(file, servers.line(), "server " + d + "_" + p + " is missing: kvlab clusters are"
              + " a full grid of " + dcs + " datacenters x " + parts + " partitions", "add <server id=\"" + d + "_" + p
              + "\" .../> or renumber the servers");
        }
      }
    }
    String protocol = protocol(defaults, root);
    Set<String> hostPorts = new LinkedHashSet<>();
    for (var e : byId.entrySet()) {
      if (!hostPorts.add(e.getValue()[0] + ":" + e.getValue()[1])) {
        throw new DkvfImportException(file, servers.line(), "servers share " + e.getValue()[0] + ":" + e.getValue()[1],
            "give each server on one host its own <server_port> in its <config>");
      }
    }
    // protocol parameters: the same for all servers in kvlab, except ACCF's groups
    Map<String, String> params = new TreeMap<>();
    Set<String> dropped = new TreeSet<>();
    Map<String, String> tracking = new TreeMap<>();
    Map<String, String> checking = new TreeMap<>();
    for (var e : perServer.entrySet()) {
      for (var prop : e.getValue().protocol().entrySet()) {
        String k = prop.getKey();
        String v = String.join(",", prop.getValue());
        if (PARAMS.containsKey(k)) {
          String kv = PARAMS.get(k)[0];
          String val = v.matches("\\d+") ? v + "ms" : v;
          String before = params.put(kv, val);
          if (before != null && !before.equals(val)) {
            notes.add(k + " differs between servers (" + before + ", " + val + "); kvlab uses one value: " + val);
          }
        } else if (k.equals("tg_id")) {
          tracking.put(e.getKey().replace('_', '.'), "t" + v);
        } else if (k.equals("cg_id")) {
          checking.put(e.getKey().replace('_', '.'), "c" + v);
        } else if (!DERIVED.contains(k)) {
          dropped.add(k);
        }
      }
    }
    if (protocol.equals("accf")) {
      if (tracking.size() == byId.size()) {
        params.put("tracking", String.join(" ", tracking.entrySet().stream().map(x -> x.getKey() + "=" + x.getValue()).toList()));
      }
      if (checking.size() == byId.size()) {
        params.put("checking", String.join(" ", checking.entrySet().stream().map(x -> x.getKey() + "=" + x.getValue()).toList()));
      }
    }
    if (!dropped.isEmpty()) {
      notes.add("protocol properties " + dropped + " (message_delay: use the cluster file's emulation.rtt or the"
          + " simulator's slow fault)");
    }
    notes.add("dc_id, p_id, num_of_datacenters, num_of_partitions, parent_p_id, children_p_ids: kvlab derives them"
        + " from the server ids and the shape");
    // storage
    String engine = "je";
    String durability = "none";
    String storageClass = defaults.values().containsKey("storage")
        && defaults.values().get("storage").first("class_name") != null
        ? defaults.values().get("storage").first("class_name").textValue() : "";
    if (!storageClass.isEmpty() && !storageClass.contains("BDBStorage")) {
      notes.add("storage class " + storageClass + ": kvlab stores in Berkeley DB JE (engine je) or memory");
    }
    for (Parameters p : perServer.values()) {
      if ("true".equalsIgnoreCase(p.storage().get("instant_stable"))) {
        durability = "sync";
      }
    }
    Set<String> unmapped = new TreeSet<>();
    for (Parameters p : perServer.values()) {
      for (String k : p.values().keySet()) {
        if (!Set.of("server_port", "protocol_properties", "storage", "client_class_name", "server_jar_file").contains(k)) {
          unmapped.add(k);
        }
      }
      p.storage().keySet().stream().filter(k -> !k.equals("instant_stable")).forEach(k -> unmapped.add("storage " + k));
    }
    if (unmapped.contains("password") || unmapped.contains("key") || unmapped.contains("username")) {
      notes.add("SSH credentials (username/password/key) are not copied: kvlab ssh takes them from its own"
          + " settings (docs/ssh.md)");
    }
    unmapped.removeAll(Set.of("password", "key", "username"));
    if (!unmapped.isEmpty()) {
      notes.add("settings " + unmapped + " (kvlab: storage.dir, docs/runtime.md for logs and ports; a kvlab server"
          + " uses one port for servers and clients, DKVF's server_port is kept)");
    }
    if (root.first("topology") != null) {
      notes.add("<topology> connect groups: kvlab servers connect to the peers their protocol needs");
    }
    StringBuilder y = new StringBuilder();
    y.append("name: ").append(name).append('\n');
    y.append("protocol: ").append(protocol).append('\n');
    if (!params.isEmpty()) {
      y.append("params:\n");
      params.forEach((k, v) -> y.append("  ").append(k).append(": ").append(q(v)).append('\n'));
    }
    y.append("datacenters: ").append(dcs).append('\n');
    y.append("partitions: ").append(parts).append('\n');
    y.append("servers:\n");
    for (int d = 0; d < dcs; d++) {
      for (int p = 0; p < parts; p++) {
        String[] hp = byId.get(d + "_" + p);
        y.append("  - { id: ").append(d).append('_').append(p).append(", host: ").append(q(hp[0]))
            .append(", port: ").append(hp[1]).append(" }\n");
      }
    }
    y.append("storage:\n  engine: ").append(engine).append("\n  durability: ").append(durability).append('\n');
    return y.toString();
  }

  // ---------------------------------------------------------------------------------------------- experiment

  private static final Set<String> WORKLOAD_PASS = Set.of("readproportion", "updateproportion", "insertproportion",
      "scanproportion", "readmodifywriteproportion", "requestdistribution", "fieldcount", "fieldlength",
      "ampinsertproportion", "ampfactor", "rotxproportion");

  private String experiment(Node root, String name) throws DkvfImportException {
    for (Node c : root.children()) {
      if (!Set.of("name", "defaults", "clients", "workload_variations").contains(c.name())) {
        throw new DkvfImportException(file, c.line(), "unsupported element <" + c.name() + "> in <experiment>",
            "remove it; an experiment descriptor has name, defaults, clients and workload_variations");
      }
    }
    Parameters defaults = parameters(root.first("defaults"));
    Node clients = root.first("clients");
    if (clients == null || clients.all("client").isEmpty()) {
      throw new DkvfImportException(file, root.line(), "<experiment> has no <clients><client .../></clients>",
          "add <client id=\"c0\" ip=\"...\"><connect_to><server id=\"0_0\" .../></connect_to></client>");
    }
    String protocol = protocol(defaults, root);
    TreeMap<Integer, Integer> clientsPerDc = new TreeMap<>();
    int dcs = 0;
    int parts = 0;
    for (Node c : clients.children()) {
      if (!c.name().equals("client")) {
        throw new DkvfImportException(file, c.line(), "unsupported element <" + c.name() + "> in <clients>",
            "use <client id=\"...\" ip=\"...\">");
      }
      for (Node x : c.children()) {
        if (!Set.of("config", "connect_to").contains(x.name())) {
          throw new DkvfImportException(file, x.line(), "unsupported element <" + x.name() + "> in <client>",
              "a client has <config> and <connect_to>");
        }
      }
      parameters(c.first("config"));
      Node to = c.first("connect_to");
      if (to == null || to.all("server").isEmpty()) {
        throw new DkvfImportException(file, c.line(), "client " + c.attrs().get("id") + " has no <connect_to> servers",
            "list the servers it talks to: <connect_to><server id=\"0_0\" ip=\"...\" port=\"...\"/></connect_to>");
      }
      Set<Integer> dcsOfClient = new TreeSet<>();
      for (Node s : to.all("server")) {
        int[] dp = serverId(String.valueOf(s.attrs().get("id")));
        if (dp == null) {
          throw new DkvfImportException(file, s.line(), "server id \"" + s.attrs().get("id") + "\" is not DC_P",
              "use the ids of the cluster descriptor, e.g. 0_1");
        }
        dcsOfClient.add(dp[0]);
        dcs = Math.max(dcs, dp[0] + 1);
        parts = Math.max(parts, dp[1] + 1);
      }
      if (dcsOfClient.size() > 1) {
        notes.add("client " + c.attrs().get("id") + " connects to servers of datacenters " + dcsOfClient
            + "; a kvlab client talks to one datacenter, it is placed in " + dcsOfClient.iterator().next());
      }
      clientsPerDc.merge(dcsOfClient.iterator().next(), 1, Integer::sum);
    }
    int processes = clientsPerDc.values().stream().mapToInt(Integer::intValue).max().orElse(1);
    if (clientsPerDc.values().stream().distinct().count() > 1) {
      notes.add("clients per datacenter differ " + clientsPerDc + "; kvlab runs the same number in each: " + processes);
    }
    // the YCSB properties file, if it can be read beside the descriptor
    Properties ycsb = new Properties();
    String workload = defaults.get("workload");
    if (workload != null && !workload.isEmpty()) {
      Path wp = file.toAbsolutePath().getParent().resolve(workload);
      if (Files.isRegularFile(wp)) {
        try (InputStream in = Files.newInputStream(wp)) {
          ycsb.load(in);
        } catch (IOException | IllegalArgumentException e) {
          throw new DkvfImportException(wp, 0, "cannot read the YCSB workload file: " + e.getMessage(),
              "fix the file or remove <workload> from the descriptor");
        }
      } else {
        notes.add("workload file " + workload + " was not found beside the descriptor: workload, threads and counts"
            + " are kvlab's defaults; edit them");
      }
    }
    StringBuilder y = new StringBuilder();
    y.append("name: ").append(name).append('\n');
    y.append("cluster:\n  datacenters: ").append(dcs).append("\n  partitions: ").append(parts)
        .append("\n  storage: je\n");
    y.append("protocols: [").append(protocol).append("]\n");
    Map<String, String> wl = new TreeMap<>();
    Set<String> ycsbDropped = new TreeSet<>();
    for (String k : ycsb.stringPropertyNames()) {
      if (WORKLOAD_PASS.contains(k)) {
        wl.put(k, ycsb.getProperty(k).trim());
      } else if (!Set.of("threadcount", "recordcount", "operationcount").contains(k)) {
        ycsbDropped.add(k);
      }
    }
    if (!ycsbDropped.isEmpty()) {
      notes.add("YCSB properties " + ycsbDropped + " (kvlab sets the workload class, DB, counts and clients itself)");
    }
    if (!wl.isEmpty()) {
      y.append("workload:\n");
      wl.forEach((k, v) -> y.append("  ").append(k).append(": ").append(v.matches("[0-9.]+") ? v : q(v)).append('\n'));
    }
    // variations: a sweep when every variation sets the same single property
    Node vars = root.first("workload_variations");
    if (vars != null && !vars.all("variation").isEmpty()) {
      String key = null;
      List<String> values = new ArrayList<>();
      boolean sweepable = true;
      for (Node v : vars.children()) {
        if (!v.name().equals("variation")) {
          throw new DkvfImportException(file, v.line(), "unsupported element <" + v.name() + "> in <workload_variations>",
              "use <variation name=\"...\"><property key=\"...\" value=\"...\"/></variation>");
        }
        List<Node> props = properties(v);
        if (props.size() != 1 || (key != null && !key.equals(props.get(0).attrs().get("key")))) {
          sweepable = false;
        } else {
          key = props.get(0).attrs().get("key");
          values.add(props.get(0).attrs().get("value"));
        }
      }
      if (sweepable && "readproportion".equals(key)) {
        y.append("sweep:\n  readproportion: [").append(String.join(", ", values)).append("]\n");
      } else if (sweepable && "threadcount".equals(key)) {
        y.append("sweep:\n  threads: [").append(String.join(", ", values)).append("]\n");
      } else {
        notes.add("workload_variations that are not one property (readproportion or threadcount) varied over values:"
            + " write them as a kvlab sweep by hand (docs/bench.md)");
      }
    }
    y.append("clients:\n  processes: ").append(processes).append('\n');
    y.append("  threads: ").append(ycsb.getProperty("threadcount", "1").trim()).append('\n');
    y.append("  datacenters: ").append(clientsPerDc.keySet()).append('\n');
    y.append("recordcount: ").append(ycsb.getProperty("recordcount", "1000").trim()).append('\n');
    String ops = ycsb.getProperty("operationcount");
    if (ops != null && ops.trim().matches("\\d+") && Long.parseLong(ops.trim()) < 100_000_000L) {
      y.append("operationcount: ").append(ops.trim()).append('\n');
    } else {
      y.append("duration: 30s\n");
      notes.add("no usable YCSB operationcount: the run phase lasts 30 s (duration); change it as needed");
    }
    notes.add("SSH users, keys, jars, working directories, ports and log settings of the clients: kvlab bench runs"
        + " local clusters; for remote machines see docs/ssh.md");
    return y.toString();
  }
}
