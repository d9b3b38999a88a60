package org.kvlab.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.api.Topology;
import org.kvlab.config.ClusterConfig.EmulationSpec;
import org.kvlab.config.ClusterConfig.Limits;
import org.kvlab.config.ClusterConfig.SecuritySpec;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.config.ClusterConfig.StorageSpec;
import org.kvlab.config.YamlNode.Kind;
import org.kvlab.store.Durability;

/**
 * Reads and validates cluster files (format: {@code docs/cluster-file.md}). Every problem becomes a
 * {@link ConfigException} naming the file, line and column, what is wrong and how to fix it; the first
 * problem found is reported.
 *
 * <p>The YAML is read token by token into a tree of {@link YamlNode}s that remember their location
 * (Jackson's own tree does not), then checked section by section.
 */
final class ConfigLoader extends YamlReader {
  static final int NAME_LENGTH_MAX = 64;

  // Every whole-number key of the cluster file and the values it accepts (see Range): docs/cluster-file.md lists the
  // same ranges, and ClusterRangesTest walks every key of RANGES at both ends (the cluster must load and serve).
  static final Range DATACENTERS = new Range("datacenters", 1, 64);
  static final Range PARTITIONS = new Range("partitions", 1, 1024);
  static final Range REPLICAS = new Range("replicas", 1, 15);
  static final Range PORT = new Range("servers.port", 1, 65535);
  static final Range BASE_PORT = new Range("local.basePort", 1, 65535);
  /** Round-trip times in milliseconds: at most 1 hour. */
  static final Range RTT = new Range("emulation.rtt", 0, 3_600_000);
  /** Clock offsets in milliseconds: at most 1 hour either way. */
  static final Range SKEW = new Range("emulation.skew", -3_600_000, 3_600_000);
  /**
   * At least the handshake's own limit: the frames a connecting side receives during the handshake (Challenge,
   * Welcome; 75 bytes and more, with the cluster's and server's names) are read under frameBytesMax, and an accepted
   * connection takes frames of up to this many bytes before its handshake is done anyway.
   */
  static final Range FRAME_BYTES = new Range("limits.frameBytesMax", Limits.HANDSHAKE_FRAME_BYTES_MAX, 1 << 30);
  static final Range PEER_QUEUE_MESSAGES = new Range("limits.peerQueueMessagesMax", 1, Integer.MAX_VALUE);
  static final Range CLIENT_REQUESTS_IN_FLIGHT = new Range("limits.clientRequestsInFlightMax", 1, Integer.MAX_VALUE);
  static final Range HANDSHAKE_MILLIS = new Range("limits.handshakeMillis", 100, 600_000);
  static final Range CLIENT_IDLE_SECONDS = new Range("limits.clientIdleSeconds", 0, 7 * 24 * 3600);
  static final Range PEER_FLUSH_MICROS = new Range("limits.peerFlushMicros", 0, Limits.PEER_FLUSH_MICROS_MAX);
  /** At least one read buffer; the budget itself is never less than one maximal frame (frameBytesMax + 4). */
  static final Range PARTIAL_FRAME_BYTES = new Range("limits.partialFrameBytesMax", 65_536, Integer.MAX_VALUE);
  static final List<Range> RANGES = List.of(DATACENTERS, PARTITIONS, REPLICAS, PORT, BASE_PORT, RTT, SKEW, FRAME_BYTES,
      PEER_QUEUE_MESSAGES, CLIENT_REQUESTS_IN_FLIGHT, HANDSHAKE_MILLIS, CLIENT_IDLE_SECONDS, PEER_FLUSH_MICROS,
      PARTIAL_FRAME_BYTES);
  static final String DEFAULT_HOST = "127.0.0.1";
  static final String DEFAULT_DIR = ".kvlab/data";

  private static final List<String> TOP_KEYS = List.of("name", "protocol", "params", "datacenters",
      "partitions", "servers", "local", "storage", "emulation", "limits", "security", "ssh",
      "ec2" /* read by the cluster manager's EC2 backend (org.kvlab.cluster.ec2.Ec2Spec), not here */,
      "replicas");
  private static final List<String> SERVER_KEYS = List.of("id", "host", "port");
  private static final List<String> LOCAL_KEYS = List.of("host", "basePort");
  private static final List<String> STORAGE_KEYS = List.of("engine", "durability", "dir");
  private static final List<String> EMULATION_KEYS = List.of("rtt", "skew");
  static final List<String> LIMITS_KEYS =
      List.of("frameBytesMax", "peerQueueMessagesMax", "clientRequestsInFlightMax", "handshakeMillis",
          "clientIdleSeconds", "peerFlushMicros", "partialFrameBytesMax");
  private static final List<String> SECURITY_KEYS = List.of("secretFile", "clientToken");
  static final int CLIENT_TOKEN_LENGTH_MIN = 16;

  /** An example line for each required key, used in "missing key" fixes. */
  private static final Map<String, String> EXAMPLES = Map.of(
      "name", "name: eventual-2dc-3p",
      "protocol", "protocol: eventual",
      "datacenters", "datacenters: 2",
      "partitions", "partitions: 3",
      "id", "id: 0_1",
      "host", "host: 127.0.0.1",
      "port", "port: 7101",
      "basePort", "basePort: 7100");

  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]*");
  private static final Pattern SERVER_ID = Pattern.compile("(\\d{1,9})_(\\d{1,9})(?:_(\\d{1,9}))?");
  private ConfigLoader(String source) {
    super(source, "cluster file",
        "write at least name, protocol, datacenters, partitions and servers; see docs/cluster-file.md.",
        "keep one cluster per file: remove the '---' line and what follows, or split the file.");
  }

  @Override
  protected String example(String key) {
    return EXAMPLES.get(key);
  }

  static ClusterConfig load(Path file) throws ConfigException {
    return parse(readText(file, "cluster file"), file.toString());
  }

  static ClusterConfig parse(String yaml, String sourceName) throws ConfigException {
    ConfigLoader loader = new ConfigLoader(sourceName);
    YamlNode root = loader.readTree(stripBom(yaml));
    return loader.build(root);
  }

  // ---------------------------------------------------------------------------------------------
  // Checks and conversion

  private ClusterConfig build(YamlNode root) throws ConfigException {
    if (root.kind != Kind.MAPPING) {
      throw error(root, "a cluster file must be a mapping of keys (name: ..., protocol: ..., ...), but this is "
          + root.kind.description, "start from an example in examples/ or docs/cluster-file.md.");
    }
    checkKeys(root, TOP_KEYS);
    String name = name(require(root, "name"));
    String protocol = protocol(require(root, "protocol"));
    Params params = params(root.get("params"));
    checkParamsDeclared(root.get("params"), protocol);
    int datacenters = intIn(require(root, "datacenters"), DATACENTERS);
    int partitions = intIn(require(root, "partitions"), PARTITIONS);
    YamlNode replicasNode = root.get("replicas");
    int replicas = replicasNode == null || replicasNode.kind == Kind.NULL ? 1 : intIn(replicasNode, REPLICAS);
    Topology topology = new Topology(datacenters, partitions, replicas);
    checkParamValues(root, protocol, params, topology);
    List<ServerSpec> servers = servers(root, topology);
    StorageSpec storage = storage(root.get("storage"));
    EmulationSpec emulation = emulation(root.get("emulation"), topology);
    Limits limits = limits(root.get("limits"));
    SecuritySpec security = security(root.get("security"), name);
    return new ClusterConfig(source, name, protocol, params, topology, servers, storage, emulation, limits, security);
  }

  private String name(YamlNode value) throws ConfigException {
    String name = text(value, EXAMPLES.get("name"));
    if (!NAME.matcher(name).matches() || name.length() > NAME_LENGTH_MAX) {
      throw error(value, UserText.quoted(name) + " is not a valid cluster name",
          "use at most " + NAME_LENGTH_MAX + " lower-case letters, digits, '.', '_' and '-', starting with a"
              + " letter or digit, e.g. 'eventual-2dc-3p'.");
    }
    return name;
  }

  /**
   * The protocol's name, which must be exactly an installed protocol's when it is near one: {@code Eventual} or
   * {@code eventul} is refused with "did you mean 'eventual'?" (servers and tools put the name in every handshake, so
   * a name matched loosely in one place and exactly in another would start servers no tool can reach). A name near
   * no installed protocol is left to the front end, which lists the installed ones (this loader also reads files of
   * protocols that are not on its class path).
   */
  private String protocol(YamlNode value) throws ConfigException {
    if (value.kind == Kind.MAPPING) {
      throw error(value, "must be the protocol's name, but is a mapping",
          "write e.g. 'protocol: eventual', and put protocol parameters under the top-level key 'params'.");
    }
    String name = text(value, EXAMPLES.get("protocol"));
    if (Protocols.installed(name) == null && ProtocolNames.nearest(name) != null) {
      throw error(value, ProtocolNames.problem(name), ProtocolNames.fix(name) + ".");
    }
    return name;
  }

  private Params params(YamlNode value) throws ConfigException {
    if (value == null || value.kind == Kind.NULL) {
      return Params.empty();
    }
    if (value.kind != Kind.MAPPING) {
      throw error(value, "must be a mapping of parameter names to values, but is " + value.kind.description,
          "write one 'name: value' line per parameter, indented under params, e.g. '  heartbeat: 10ms'.");
    }
    Map<String, String> values = new TreeMap<>();
    for (Map.Entry<String, YamlNode> e : value.entries.entrySet()) {
      YamlNode v = e.getValue();
      if (v.kind == Kind.NULL) {
        throw errorAtKey(v, "has no value", "give the parameter a value, or remove the line.");
      }
      if (!v.isScalar()) {
        throw error(v, "is " + v.kind.description + "; protocol parameters are single values",
            "write one value, e.g. '" + e.getKey() + ": 10ms'.");
      }
      values.put(e.getKey(), v.text);
    }
    return new Params(values);
  }

  /**
   * Refuses a parameter that the protocol does not declare ({@link Protocol#parameters()}), listing those it
   * does. A protocol that is not installed is not checked here (the CLI refuses it, listing the installed ones).
   */
  private void checkParamsDeclared(YamlNode value, String protocolName) throws ConfigException {
    if (value == null || value.kind != Kind.MAPPING || value.entries.isEmpty()) {
      return;
    }
    Protocol protocol = Protocols.installed(protocolName);
    if (protocol == null) {
      return;
    }
    Map<String, String> declared = protocol.parameters();
    for (Map.Entry<String, YamlNode> e : value.entries.entrySet()) {
      if (declared.containsKey(e.getKey())) {
        continue;
      }
      String suggestion = closest(e.getKey(), List.copyOf(declared.keySet()));
      throw new ConfigException(source, e.getValue().keyLine, e.getValue().keyColumn,
          "params: " + UserText.quoted(e.getKey()) + " is not a parameter of protocol " + protocol.name(),
          (suggestion == null ? "remove it. " : "did you mean '" + suggestion + "'? ") + knownParameters(protocol));
    }
  }

  /**
   * Lets the protocol check the parameters' values and the cluster's shape ({@link Protocol#checkParameters}); a
   * refusal is reported at the value of the parameter it names, with the nearest accepted value when the protocol
   * lists them, or at the value of {@code datacenters}, {@code partitions} or {@code replicas}.
   */
  private void checkParamValues(YamlNode root, String protocolName, Params params, Topology topology)
      throws ConfigException {
    Protocol protocol = Protocols.installed(protocolName);
    if (protocol == null) {
      return;
    }
    YamlNode value = root.get("params");
    try {
      protocol.checkParameters(params, topology);
    } catch (org.kvlab.api.TopologyException e) {
      YamlNode at = root.get(e.key());
      String problem = e.problem() + (at == null ? " (not given: its default)" : "");
      YamlNode where = at != null ? at : root.get("protocol"); // a default refused: the protocol that refuses it
      throw new ConfigException(source, where.line, where.column, e.key() + ": " + problem, e.fix());
    } catch (org.kvlab.api.ParameterException e) {
      YamlNode at = value != null && value.kind == Kind.MAPPING ? value.get(e.parameter()) : null;
      String given = params.string(e.parameter(), null);
      String problem = "params." + e.parameter() + ": " + e.problem() + (at == null ? " (not given: its default)" : "");
      String fix = fixWithSuggestion(given, e.choices(), e.fix());
      if (at != null) {
        throw new ConfigException(source, at.line, at.column, problem, fix);
      }
      throw new ConfigException(source, value != null ? value.keyLine : 0, value != null ? value.keyColumn : 0,
          problem, fix);
    } catch (IllegalArgumentException e) {
      int line = value != null ? value.keyLine : 0;
      int column = value != null ? value.keyColumn : 0;
      throw new ConfigException(source, line, column, "params: protocol " + protocol.name() + " refuses them: "
          + e.getMessage(), "correct the value it names. " + knownParameters(protocol));
    }
  }

  static String knownParameters(Protocol protocol) {
    return Protocols.describeParameters(protocol);
  }

  // servers / local

  private List<ServerSpec> servers(YamlNode root, Topology topology) throws ConfigException {
    YamlNode list = root.get("servers");
    YamlNode local = root.get("local");
    if (list != null && local != null) {
      throw errorAtKey(local, "'servers' (line " + list.keyLine + ") and 'local' are both given",
          "keep one: list every server under 'servers', or let 'local' generate them.");
    }
    if (local != null) {
      return local(local, topology);
    }
    if (list == null) {
      throw error(root, "missing required key 'servers' (or 'local')",
          "list one entry per server, e.g. 'servers: [{ id: 0_0, host: 127.0.0.1, port: 7100 }, ...]', or"
              + " generate them with 'local: { host: 127.0.0.1, basePort: 7100 }'.");
    }
    if (list.kind == Kind.NULL) {
      throw errorAtKey(list, "has no value", "list one entry per server under it, e.g."
          + " '  - { id: 0_0, host: 127.0.0.1, port: 7100 }'.");
    }
    if (list.kind != Kind.LIST) {
      throw error(list, "must be a list of servers, but is " + list.kind.description,
          "write one '- { id: 0_0, host: 127.0.0.1, port: 7100 }' line per server.");
    }
    Map<NodeId, YamlNode> byId = new TreeMap<>();
    Map<String, ServerSpec> byAddress = new HashMap<>();
    Map<NodeId, Integer> portLines = new HashMap<>();
    List<ServerSpec> servers = new ArrayList<>();
    for (YamlNode item : list.items) {
      if (item.kind != Kind.MAPPING) {
        throw error(item, "must be a mapping { id, host, port }, but is " + item.kind.description + " "
            + item.shown(), "write it like '- { id: 0_0, host: 127.0.0.1, port: 7100 }'.");
      }
      checkKeys(item, SERVER_KEYS);
      YamlNode idNode = require(item, "id");
      NodeId id = serverId(idNode, topology);
      YamlNode first = byId.putIfAbsent(id, idNode);
      if (first != null) {
        throw error(idNode, "server " + id + " is listed twice (first on line " + first.line + ")",
            "remove one of the two entries, or correct the id.");
      }
      String host = host(require(item, "host"));
      YamlNode portNode = require(item, "port");
      ServerSpec server = new ServerSpec(id, host, port(portNode, PORT));
      ServerSpec taken = byAddress.putIfAbsent(host.toLowerCase(Locale.ROOT) + ":" + server.port(), server);
      if (taken != null) {
        throw error(portNode, host + ":" + server.port() + " is already used by server " + taken.id()
            + " (line " + portLines.get(taken.id()) + ")", "give each server its own host:port.");
      }
      portLines.put(id, portNode.line);
      servers.add(server);
    }
    List<NodeId> missing = new ArrayList<>();
    for (NodeId id : topology.allNodes()) {
      if (!byId.containsKey(id)) {
        missing.add(id);
      }
    }
    if (!missing.isEmpty()) {
      throw errorAtKey(list, "no entry for " + listOf(missing) + "; " + shape(topology)
              + " need one server each for " + idRange(topology),
          "add an entry '- { id: " + missing.get(0) + ", host: ..., port: ... }' for each missing server, or"
              + " generate them all with 'local: { host: 127.0.0.1, basePort: 7100 }'.");
    }
    servers.sort((a, b) -> a.id().compareTo(b.id()));
    return List.copyOf(servers);
  }

  private List<ServerSpec> local(YamlNode value, Topology topology) throws ConfigException {
    if (value.kind == Kind.NULL) {
      throw errorAtKey(value, "has no value", "write e.g. 'local: { host: 127.0.0.1, basePort: 7100 }'.");
    }
    YamlNode local = section(value, LOCAL_KEYS);
    YamlNode hostNode = local.get("host");
    String host = hostNode == null ? DEFAULT_HOST : host(hostNode);
    YamlNode baseNode = require(local, "basePort");
    int basePort = port(baseNode, BASE_PORT);
    int count = topology.size();
    if (count > 65535) {
      throw error(value, "the " + count + " servers of " + shape(topology) + " need " + count + " ports, but one"
          + " host has 65535 (1 to 65535)", "list the servers under 'servers' instead, on several hosts, or make the"
          + " cluster smaller (at most 65535 servers on one host).");
    }
    if ((long) basePort + count - 1 > 65535) {
      throw error(baseNode, "the " + count + " servers would need ports " + basePort + " to "
          + ((long) basePort + count - 1) + ", beyond 65535", "use a basePort from 1 to " + (65536 - count)
          + " (the servers then take ports basePort to basePort + " + (count - 1) + ").");
    }
    List<ServerSpec> servers = new ArrayList<>(count);
    for (NodeId id : topology.allNodes()) {
      servers.add(new ServerSpec(id, host, basePort + topology.indexOf(id)));
    }
    return List.copyOf(servers);
  }

  private NodeId serverId(YamlNode value, Topology topology) throws ConfigException {
    String text = text(value, "id: 0_1");
    Matcher m = SERVER_ID.matcher(text);
    if (!m.matches()) {
      throw error(value, UserText.quoted(text) + " is not a server id",
          "write <datacenter>_<partition>, e.g. 0_1 for partition 1 of datacenter 0"
              + (topology.replicas() > 1 ? ", or <datacenter>_<partition>_<replica>, e.g. 0_1_2." : "."));
    }
    NodeId id = idOf(m);
    if (!topology.contains(id)) {
      throw error(value, "server " + UserText.cut(text) + " is outside the topology (" + shape(topology) + ")",
          "use ids from " + idRange(topology) + ", or change " + (topology.replicas() > 1 || id.replica() > 0
              ? "datacenters/partitions/replicas." : "datacenters/partitions."));
    }
    return id;
  }

  private String host(YamlNode value) throws ConfigException {
    String host = text(value, EXAMPLES.get("host"));
    if (host.chars().anyMatch(Character::isWhitespace)) {
      throw error(value, UserText.quoted(host) + " is not a host name or address", "write e.g. 'host: 127.0.0.1'.");
    }
    return host;
  }

  private int port(YamlNode value, Range range) throws ConfigException {
    long port = integer(value, "from " + range.min() + " to " + range.max());
    if (port < range.min() || port > range.max()) {
      throw error(value, UserText.cut(value.text) + " is not a port",
          "use a number from " + range.min() + " to " + range.max() + ".");
    }
    return (int) port;
  }

  private static String idRange(Topology t) {
    if (t.replicas() > 1) {
      return "0_0_0 to " + (t.datacenters() - 1) + "_" + (t.partitions() - 1) + "_" + (t.replicas() - 1)
          + " (replica 0 may be written without its suffix: 0_0)";
    }
    return "0_0 to " + (t.datacenters() - 1) + "_" + (t.partitions() - 1);
  }

  private static String shape(Topology t) {
    return "datacenters: " + t.datacenters() + ", partitions: " + t.partitions()
        + (t.replicas() > 1 ? ", replicas: " + t.replicas() : "");
  }

  private static NodeId idOf(Matcher m) {
    return new NodeId(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
        m.group(3) == null ? 0 : Integer.parseInt(m.group(3)));
  }

  private static String listOf(List<NodeId> ids) {
    int shown = Math.min(ids.size(), 10);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < shown; i++) {
      sb.append(i == 0 ? "" : i == ids.size() - 1 ? " and " : ", ").append(ids.get(i));
    }
    if (ids.size() > shown) {
      sb.append(" and ").append(ids.size() - shown).append(" more");
    }
    return sb.toString();
  }

  // storage

  private StorageSpec storage(YamlNode value) throws ConfigException {
    YamlNode storage = section(value, STORAGE_KEYS);
    StorageSpec.Engine engine = StorageSpec.Engine.JE;
    Durability durability = Durability.NONE;
    String dir = DEFAULT_DIR;
    YamlNode durabilityNode = null;
    YamlNode dirNode = null;
    if (storage != null) {
      YamlNode engineNode = storage.get("engine");
      if (engineNode != null) {
        String e = text(engineNode, "engine: je").toLowerCase(Locale.ROOT);
        switch (e) {
          case "je" -> engine = StorageSpec.Engine.JE;
          case "memory" -> engine = StorageSpec.Engine.MEMORY;
          default -> throw error(engineNode, UserText.quoted(engineNode.text) + " is not a storage engine",
              "use je (Berkeley DB JE, on disk) or memory.");
        }
      }
      durabilityNode = storage.get("durability");
      if (durabilityNode != null) {
        String d = text(durabilityNode, "durability: none").toLowerCase(Locale.ROOT);
        switch (d) {
          case "none" -> durability = Durability.NONE;
          case "sync" -> durability = Durability.SYNC;
          default -> throw error(durabilityNode, UserText.quoted(durabilityNode.text) + " is not a durability",
              "use none (writes reach disk lazily) or sync (acknowledged writes are fsynced).");
        }
      }
      dirNode = storage.get("dir");
      if (dirNode != null) {
        dir = text(dirNode, "dir: " + DEFAULT_DIR);
      }
    }
    if (engine == StorageSpec.Engine.MEMORY && durability == Durability.SYNC) {
      throw new ConfigException(source, durabilityNode.line, durabilityNode.column,
          "storage.engine memory cannot give durability sync", "use engine je, or durability none.");
    }
    try {
      return new StorageSpec(engine, durability, resolveDir(dir));
    } catch (InvalidPathException e) {
      throw error(dirNode, UserText.quoted(dir) + " is not a valid path",
          "write a directory path, e.g. 'dir: " + DEFAULT_DIR + "'.");
    }
  }

  /**
   * The data directory: {@code ~} or {@code ~/...} is under the user's home, another relative path is
   * resolved against the working directory of the process that loads the file (not the file's own
   * directory), and the result is absolute and normalized.
   */
  static Path resolveDir(String dir) {
    Path p;
    if (dir.equals("~")) {
      p = Path.of(System.getProperty("user.home"));
    } else if (dir.startsWith("~/")) {
      p = Path.of(System.getProperty("user.home")).resolve(dir.substring(2));
    } else {
      p = Path.of(dir);
    }
    return p.toAbsolutePath().normalize();
  }

  // emulation

  private EmulationSpec emulation(YamlNode value, Topology topology) throws ConfigException {
    YamlNode emulation = section(value, EMULATION_KEYS);
    if (emulation == null) {
      return EmulationSpec.none();
    }
    long[][] rtt = rtt(emulation.get("rtt"), topology);
    Map<NodeId, Long> skew = skew(emulation.get("skew"), topology);
    return new EmulationSpec(rtt, skew);
  }

  private long[][] rtt(YamlNode value, Topology topology) throws ConfigException {
    if (value == null || value.kind == Kind.NULL) {
      return null;
    }
    int n = topology.datacenters();
    String shape = "write a " + n + " x " + n + " matrix, one row per datacenter with one entry per datacenter,"
        + " e.g. " + exampleMatrix(n) + ".";
    if (value.kind != Kind.LIST) {
      throw error(value, "must be a list of rows, but is " + value.kind.description, shape);
    }
    if (value.items.size() != n) {
      throw error(value, "has " + value.items.size() + " row" + (value.items.size() == 1 ? "" : "s")
          + " but the cluster has " + n + " datacenter" + (n == 1 ? "" : "s"), shape);
    }
    long[][] rtt = new long[n][n];
    YamlNode[][] nodes = new YamlNode[n][n];
    for (int a = 0; a < n; a++) {
      YamlNode row = value.items.get(a);
      if (row.kind != Kind.LIST) {
        throw error(row, "must be a row (a list) of " + n + " round-trip times, but is "
            + row.kind.description + " " + row.shown(), shape);
      }
      if (row.items.size() != n) {
        throw error(row, "has " + row.items.size() + " entr" + (row.items.size() == 1 ? "y" : "ies")
            + " but the cluster has " + n + " datacenter" + (n == 1 ? "" : "s"), shape);
      }
      for (int b = 0; b < n; b++) {
        YamlNode cell = row.items.get(b);
        long ms = millis(cell, "100ms", RTT);
        if (ms < 0) {
          throw error(cell, "round-trip time " + cell.text + " is negative", "use 0 or more, e.g. 100ms.");
        }
        if (a == b && ms != 0) {
          throw error(cell, cell.text + " is on the diagonal (the round trip from datacenter " + a
              + " to itself)", "write 0 on the diagonal.");
        }
        rtt[a][b] = ms;
        nodes[a][b] = cell;
      }
    }
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < a; b++) {
        if (rtt[a][b] != rtt[b][a]) {
          throw error(nodes[a][b], rtt[a][b] + "ms differs from " + nodes[b][a].path + " = " + rtt[b][a]
              + "ms (line " + nodes[b][a].line + "); a round trip takes the same time both ways",
              "make the matrix symmetric: the same value at [" + a + "][" + b + "] and [" + b + "][" + a + "].");
        }
      }
    }
    return rtt;
  }

  private static String exampleMatrix(int n) {
    StringBuilder sb = new StringBuilder("[");
    for (int a = 0; a < n; a++) {
      sb.append(a == 0 ? "[" : ", [");
      for (int b = 0; b < n; b++) {
        sb.append(b == 0 ? "" : ", ").append(a == b ? "0" : "100ms");
      }
      sb.append(']');
    }
    return sb.append(']').toString();
  }

  private Map<NodeId, Long> skew(YamlNode value, Topology topology) throws ConfigException {
    if (value == null || value.kind == Kind.NULL) {
      return Map.of();
    }
    if (value.kind != Kind.MAPPING) {
      throw error(value, "must be a mapping of server ids to clock offsets, but is " + value.kind.description,
          "write e.g. 'skew: { 0_1: 5ms, 1_0: -3ms }'.");
    }
    Map<NodeId, Long> skew = new TreeMap<>();
    for (Map.Entry<String, YamlNode> e : value.entries.entrySet()) {
      String key = e.getKey();
      YamlNode v = e.getValue();
      Matcher m = SERVER_ID.matcher(key.strip());
      if (!m.matches()) {
        throw errorAtKey(v, UserText.quoted(key) + " is not a server id",
            "write <datacenter>_<partition>, e.g. 0_1 for partition 1 of datacenter 0.");
      }
      NodeId id = idOf(m);
      if (!topology.contains(id)) {
        throw errorAtKey(v, "skew is given for server " + UserText.cut(key) + ", which is not in the cluster ("
                + shape(topology) + ")",
            "use ids from " + idRange(topology) + ".");
      }
      skew.put(id, millis(v, "5ms", SKEW));
    }
    return Collections.unmodifiableMap(skew);
  }

  /** A duration in whole milliseconds (bare numbers are milliseconds), at most 1 hour either way. */
  private long millis(YamlNode value, String example, Range range) throws ConfigException {
    String text = text(value, example);
    if (value.kind != Kind.STRING && value.kind != Kind.INTEGER) {
      throw error(value, value.shown() + " is not a duration",
          "write e.g. " + example + ", 1.5s, or a bare whole number of milliseconds.");
    }
    Duration d;
    try {
      d = Params.parseDuration(text, value.path);
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw error(value, UserText.quoted(text) + " is not a duration",
          "write e.g. " + example + ", 1.5s, or a bare whole number of milliseconds.");
    }
    if (d.abs().compareTo(Duration.ofMillis(range.max())) > 0) {
      throw error(value, UserText.quoted(text) + " is longer than 1 hour", "use a shorter time, e.g. " + example + ".");
    }
    if (d.toNanos() % 1_000_000 != 0) {
      throw error(value, UserText.quoted(text) + " is not a whole number of milliseconds",
          "round it to milliseconds, e.g. " + example + ".");
    }
    return d.toMillis(); // the round-trip times' minimum (0) is checked by rtt(), with its own message
  }

  // limits

  private Limits limits(YamlNode value) throws ConfigException {
    YamlNode limits = section(value, LIMITS_KEYS);
    if (limits == null) {
      return Limits.defaults();
    }
    return new Limits(
        limit(limits, FRAME_BYTES, Limits.FRAME_BYTES_MAX_DEFAULT),
        limit(limits, PEER_QUEUE_MESSAGES, Limits.PEER_QUEUE_MESSAGES_MAX_DEFAULT),
        limit(limits, CLIENT_REQUESTS_IN_FLIGHT, Limits.CLIENT_REQUESTS_IN_FLIGHT_MAX_DEFAULT),
        limit(limits, HANDSHAKE_MILLIS, Limits.HANDSHAKE_MILLIS_DEFAULT),
        limit(limits, CLIENT_IDLE_SECONDS, Limits.CLIENT_IDLE_SECONDS_DEFAULT),
        limit(limits, PEER_FLUSH_MICROS, Limits.PEER_FLUSH_MICROS_DEFAULT),
        limit(limits, PARTIAL_FRAME_BYTES, Limits.PARTIAL_FRAME_BYTES_MAX_DEFAULT));
  }

  // security

  private SecuritySpec security(YamlNode value, String cluster) throws ConfigException {
    YamlNode security = section(value, SECURITY_KEYS);
    if (security == null) {
      return SecuritySpec.defaults(cluster);
    }
    Path secretFile = SecuritySpec.defaultSecretFile(cluster);
    YamlNode fileNode = security.get("secretFile");
    if (fileNode != null) {
      String f = text(fileNode, "secretFile: .kvlab/local/" + cluster + "/secret");
      try {
        secretFile = resolveDir(f);
      } catch (InvalidPathException e) {
        throw error(fileNode, UserText.quoted(f) + " is not a valid path", "write a file path, e.g. 'secretFile: ~/.kvlab/"
            + cluster + ".secret'.");
      }
    }
    String token = null;
    YamlNode tokenNode = security.get("clientToken");
    if (tokenNode != null) {
      token = text(tokenNode, "clientToken: 0123456789abcdef0123");
      if (token.length() < CLIENT_TOKEN_LENGTH_MIN) {
        throw error(tokenNode, "the client token is shorter than " + CLIENT_TOKEN_LENGTH_MIN + " characters",
            "use a longer random string, e.g. the output of 'openssl rand -hex 16'.");
      }
    }
    return new SecuritySpec(secretFile, null, token);
  }

  /** The value of {@code range}'s key in the {@code limits} section, or {@code fallback} if it is not given. */
  private int limit(YamlNode limits, Range range, int fallback) throws ConfigException {
    YamlNode value = limits.get(range.key().substring("limits.".length()));
    return value == null ? fallback : intIn(value, range);
  }

}
