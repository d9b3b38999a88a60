package org.kvlab.experiment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.kvlab.api.Params;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.StorageSpec;
import org.kvlab.config.ConfigException;
import org.kvlab.config.Range;
import org.kvlab.config.UserText;
import org.kvlab.config.YamlNode;
import org.kvlab.config.YamlNode.Kind;
import org.kvlab.config.YamlReader;
import org.kvlab.store.Durability;

/**
 * Reads and checks experiment files (format: {@code docs/bench.md}). Every problem is a
 * {@link ConfigException} naming the file, line and column, what is wrong and a fix, like cluster files.
 */
public final class ExperimentLoader extends YamlReader {
  static final List<String> TOP_KEYS = List.of("name", "cluster", "protocols", "workload", "sweep", "clients",
      "recordcount", "operationcount", "duration", "warmup", "repeats", "load", "db", "workloadclass", "timeout");
  static final List<String> CLUSTER_KEYS = List.of("file", "datacenters", "partitions", "storage", "durability",
      "wan", "jvm", "singlejvm");
  static final List<String> CLIENT_KEYS = List.of("processes", "threads", "jvm", "datacenters");

  /** Sweep variables with a meaning of their own; any other swept name is a YCSB property. */
  public static final List<String> SWEEP_VARIABLES = List.of("readproportion", "wan", "clockskew", "threads",
      "clients", "durability");

  /**
   * The prefix of a swept protocol parameter ({@code cluster.params.mode: [pb, tom, camu]}): each run's cluster file
   * gets {@code params.<name>} set to the value (replacing the template's).
   */
  public static final String CLUSTER_PARAMS = "cluster.params.";

  /** Properties bench sets itself; an experiment sets them through its own keys. */
  static final Map<String, String> RESERVED = reserved();

  /** YCSB core and kvlab workload properties, to catch misspelt ones. */
  static final List<String> KNOWN_PROPERTIES = List.of("table", "fieldcount", "fieldlength", "minfieldlength",
      "fieldlengthdistribution", "fieldlengthhistogram", "fieldnameprefix", "readallfields", "readallfieldsbyname",
      "writeallfields", "dataintegrity", "readproportion", "updateproportion", "insertproportion", "scanproportion",
      "readmodifywriteproportion", "requestdistribution", "zeropadding", "minscanlength", "maxscanlength",
      "scanlengthdistribution", "insertorder", "hotspotdatafraction", "hotspotopnfraction",
      "core_workload_insertion_retry_limit", "core_workload_insertion_retry_interval", "target",
      "exponential.percentile", "exponential.frac", "hdrhistogram.percentiles", "reportlatencyforeacherror",
      "latencytrackederrors", "ampinsertproportion", "ampfactor", "rotxproportion", "rotxkeys", "txproportion", "txkeys",
      "kvlab.protocol", "kvlab.timeout", "kvlab.clientthreads", "kvlab.update", "kvlab.readlevel", "kvlab.writelevel",
      "kvlab.remoteproportion", "kvlab.remotedelay", "txpartitions", "txpartner", "txzipfs", "kvlab.txnworkload",
      "kvlab.users", "kvlab.followsperuser", "kvlab.postshare", "kvlab.followshare", "kvlab.celebrityat",
      "kvlab.warehouses", "kvlab.customers", "kvlab.items", "basicdb.verbose", "basicdb.simulatedelay", "basicdb.randomizedelay", "basicdb.count");

  /** Proportions that with readproportion and updateproportion make up the operation mix. */
  static final List<String> OTHER_PROPORTIONS = List.of("insertproportion", "scanproportion",
      "readmodifywriteproportion", "ampinsertproportion", "rotxproportion", "txproportion");

  /**
   * The longest run phase ({@code duration}) and the longest warm-up: YCSB takes its run time in whole seconds as an
   * int, and a phase longer than a day is a typo (docs/bench.md).
   */
  public static final Duration PHASE_MAX = Duration.ofHours(24);

  // Every whole-number key of an experiment file and the values it accepts (see Range): docs/bench.md lists the same
  // ranges, and ExperimentRangesTest walks every key of RANGES at both ends (the experiment must load and plan its runs).
  static final Range RECORDCOUNT = new Range("recordcount", 1, Integer.MAX_VALUE);
  static final Range OPERATIONCOUNT = new Range("operationcount", 1, Integer.MAX_VALUE);
  static final Range REPEATS = new Range("repeats", 1, 100);
  static final Range DATACENTERS = new Range("cluster.datacenters", 1, 64);
  static final Range PARTITIONS = new Range("cluster.partitions", 1, 1024);
  static final Range PROCESSES = new Range("clients.processes", 1, 64);
  static final Range THREADS = new Range("clients.threads", 1, 1024);
  static final Range CLIENT_DATACENTER = new Range("clients.datacenters", 0, DATACENTERS.max() - 1);
  static final Range SWEEP_THREADS = new Range("sweep.threads", THREADS.min(), THREADS.max());
  static final Range SWEEP_CLIENTS = new Range("sweep.clients", PROCESSES.min(), PROCESSES.max());
  static final List<Range> RANGES = List.of(RECORDCOUNT, OPERATIONCOUNT, REPEATS, DATACENTERS, PARTITIONS, PROCESSES,
      THREADS, CLIENT_DATACENTER, SWEEP_THREADS, SWEEP_CLIENTS);

  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]*");
  private static final Pattern PROTOCOL = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
  private static final String DEFAULT_CLIENT_JVM = "-Xmx256m -XX:+UseSerialGC";

  private static final Map<String, String> EXAMPLES = Map.of(
      "name", "name: gentlerain-vs-eventual",
      "cluster", "cluster: { datacenters: 2, partitions: 3 }",
      "protocols", "protocols: [eventual, gentlerain]",
      "file", "file: examples/eventual-2dc-3p.yaml",
      "datacenters", "datacenters: 2",
      "partitions", "partitions: 3");

  private final Path file;
  private final Set<String> installed;

  private ExperimentLoader(String source, Path file, Set<String> installed) {
    super(source, "experiment file",
        "write at least name, cluster, protocols and duration (or operationcount); see docs/bench.md.",
        "keep one experiment per file: remove the '---' line and what follows, or split the file.");
    this.file = file;
    this.installed = installed;
  }

  @Override
  protected String example(String key) {
    return EXAMPLES.get(key);
  }

  /**
   * Loads and checks {@code file}. {@code installedProtocols}, if not null, are the protocols a run may
   * name; others are errors (with the closest installed name).
   */
  public static Experiment load(Path file, Collection<String> installedProtocols) throws ConfigException {
    String text = readText(file, "experiment file");
    return parse(text, file.toString(), file, installedProtocols);
  }

  /**
   * Parses YAML text; {@code sourceName} stands for the file in messages, and relative cluster-file
   * paths are looked up under the working directory, then beside {@code file} if it is not null.
   */
  public static Experiment parse(String yaml, String sourceName, Path file, Collection<String> installedProtocols)
      throws ConfigException {
    ExperimentLoader loader = new ExperimentLoader(sourceName, file,
        installedProtocols == null ? null : Set.copyOf(installedProtocols));
    return loader.build(loader.readTree(stripBom(yaml)));
  }

  private Experiment build(YamlNode root) throws ConfigException {
    if (root.kind != Kind.MAPPING) {
      throw error(root, "an experiment file must be a mapping of keys (name: ..., cluster: ..., ...), but this is "
          + root.kind.description, "start from an example in experiments/ or docs/bench.md.");
    }
    checkKeys(root, TOP_KEYS);
    String name = name(require(root, "name"));
    Experiment.ClusterSpec cluster = cluster(require(root, "cluster"));
    List<String> protocols = protocols(require(root, "protocols"));
    Map<String, String> workload = workload(root.get("workload"));
    Experiment.Clients clients = clients(root.get("clients"), cluster.datacenters());
    List<Experiment.Sweep> sweeps = sweeps(root.get("sweep"), workload, cluster, protocols);
    checkProtocolParams(root, sweeps, cluster, protocols);
    long records = root.get("recordcount") == null ? 1000 : intIn(root.get("recordcount"), RECORDCOUNT);
    YamlNode opsNode = root.get("operationcount");
    YamlNode durationNode = root.get("duration");
    if (opsNode != null && durationNode != null) {
      throw errorAtKey(durationNode, "'operationcount' (line " + opsNode.keyLine + ") and 'duration' are both given",
          "keep one: a run phase lasts either a number of operations or a time.");
    }
    if (opsNode == null && durationNode == null) {
      throw error(root, "missing 'duration' (or 'operationcount')",
          "add a line like 'duration: 30s' (the measured time, after the warm-up) or 'operationcount: 100000'.");
    }
    long operations = opsNode == null ? 0 : intIn(opsNode, OPERATIONCOUNT);
    Duration duration = durationNode == null ? null : wholeSeconds(durationNode, false);
    Duration warmup = root.get("warmup") == null ? Duration.ZERO : wholeSeconds(root.get("warmup"), true);
    int repeats = root.get("repeats") == null ? 1 : intIn(root.get("repeats"), REPEATS);
    boolean load = root.get("load") == null || trueOrFalse(root.get("load"), "write true or false.");
    String db = root.get("db") == null ? Experiment.KVLAB_DB : className(root.get("db"));
    String workloadClass = root.get("workloadclass") == null ? Experiment.KVLAB_WORKLOAD
        : className(root.get("workloadclass"));
    Duration timeout = root.get("timeout") == null ? null : duration(root.get("timeout"), "10m", false);
    if (timeout == null) {
      timeout = duration != null ? duration.plus(warmup).plusSeconds(120) : Duration.ofMinutes(10);
    }
    return new Experiment(name, source, cluster, protocols, workload, sweeps, clients, records, operations, duration,
        warmup, repeats, load, db, workloadClass, timeout);
  }

  private String name(YamlNode value) throws ConfigException {
    String name = text(value, EXAMPLES.get("name"));
    if (!NAME.matcher(name).matches() || name.length() > 64) {
      throw error(value, UserText.quoted(name) + " is not a valid experiment name",
          "use at most 64 lower-case letters, digits, '.', '_' and '-', starting with a letter or digit, e.g. "
              + "'getput-sweep'.");
    }
    return name;
  }

  // cluster

  private Experiment.ClusterSpec cluster(YamlNode value) throws ConfigException {
    YamlNode c = section(value, CLUSTER_KEYS);
    YamlNode fileNode = c.get("file");
    ClusterConfig template = null;
    int datacenters;
    int partitions;
    long wan = 0;
    StorageSpec.Engine engine = StorageSpec.Engine.JE;
    Durability durability = Durability.NONE;
    if (fileNode != null) {
      for (String k : List.of("datacenters", "partitions")) {
        if (c.get(k) != null) {
          throw errorAtKey(c.get(k), UserText.quoted(k) + " comes from the cluster file " + fileNode.text,
              "remove it, or remove 'file' to generate a local cluster of datacenters x partitions.");
        }
      }
      template = template(fileNode);
      datacenters = template.topology().datacenters();
      partitions = template.topology().partitions();
      engine = template.storage().engine();
      durability = template.storage().durability();
      if (template.emulation().rttMillis() != null) {
        wan = maxOffDiagonal(template.emulation().rttMillis());
      }
    } else {
      if (c.get("datacenters") == null && c.get("partitions") == null) {
        throw error(c, "needs 'file' (a cluster file used as a template) or 'datacenters' and 'partitions'",
            "write e.g. 'cluster: { datacenters: 2, partitions: 3 }' or 'cluster: { file: examples/eventual-2dc-3p.yaml }'.");
      }
      datacenters = intIn(require(c, "datacenters"), DATACENTERS);
      partitions = intIn(require(c, "partitions"), PARTITIONS);
    }
    YamlNode storageNode = c.get("storage");
    if (storageNode != null) {
      engine = engine(storageNode);
    }
    YamlNode durabilityNode = c.get("durability");
    if (durabilityNode != null) {
      durability = durability(durabilityNode);
    }
    if (engine == StorageSpec.Engine.MEMORY && durability == Durability.SYNC) {
      YamlNode at = durabilityNode != null ? durabilityNode : storageNode;
      throw error(at, "storage memory cannot give durability sync", "use storage je, or durability none.");
    }
    YamlNode wanNode = c.get("wan");
    if (wanNode != null) {
      wan = duration(wanNode, "100ms", true).toMillis();
      if (datacenters < 2 && wan > 0) {
        throw error(wanNode, "an emulated WAN needs at least 2 datacenters, and this cluster has 1",
            "remove 'wan', or use more datacenters.");
      }
      if (template != null) {
        // docs/bench.md: for a template, cluster.wan replaces the template's round-trip times (every pair of
        // datacenters gets it; 0 removes them); the template's clock skew is kept
        template = template.withEmulation(new ClusterConfig.EmulationSpec(RunPlan.uniform(template.topology(), wan),
            template.emulation().skewMillis()));
      }
    }
    String jvm = c.get("jvm") == null ? org.kvlab.cluster.local.LocalClusterProcesses.DEFAULT_JVM_OPTIONS
        : text(c.get("jvm"), "jvm: -Xmx512m -XX:+UseSerialGC");
    boolean singleJvm = c.get("singlejvm") != null && trueOrFalse(c.get("singlejvm"), "write true or false.");
    return new Experiment.ClusterSpec(template, datacenters, partitions, engine, durability, wan, jvm, singleJvm);
  }

  private static long maxOffDiagonal(long[][] rtt) {
    long max = 0;
    for (long[] row : rtt) {
      for (long v : row) {
        max = Math.max(max, v);
      }
    }
    return max;
  }

  private ClusterConfig template(YamlNode fileNode) throws ConfigException {
    String written = text(fileNode, EXAMPLES.get("file"));
    Path p = Path.of(written);
    if (!Files.exists(p) && !p.isAbsolute() && file != null && file.toAbsolutePath().getParent() != null) {
      Path beside = file.toAbsolutePath().getParent().resolve(written);
      if (Files.exists(beside)) {
        p = beside;
      }
    }
    if (!Files.exists(p)) {
      throw error(fileNode, "cluster file '" + written + "' does not exist (looked in the working directory"
          + (file == null ? "" : " and beside " + source) + ")", "check the path, e.g. 'file: examples/eventual-2dc-3p.yaml'.");
    }
    try {
      return ClusterConfig.load(p);
    } catch (ConfigException e) {
      throw new ConfigException(source, fileNode.line, fileNode.column, "cluster.file: the cluster file is invalid: "
          + e.getMessage(), null);
    }
  }

  private StorageSpec.Engine engine(YamlNode value) throws ConfigException {
    String e = text(value, "storage: je").toLowerCase(Locale.ROOT);
    switch (e) {
      case "je":
        return StorageSpec.Engine.JE;
      case "memory":
        return StorageSpec.Engine.MEMORY;
      default:
        throw error(value, UserText.quoted(value.text) + " is not a storage engine", "use je (Berkeley DB JE, on disk) or memory.");
    }
  }

  private Durability durability(YamlNode value) throws ConfigException {
    String d = text(value, "durability: none").toLowerCase(Locale.ROOT);
    switch (d) {
      case "none":
        return Durability.NONE;
      case "sync":
        return Durability.SYNC;
      default:
        throw error(value, UserText.quoted(value.text) + " is not a durability",
            "use none (writes reach disk lazily) or sync (acknowledged writes are fsynced).");
    }
  }

  // protocols

  private List<String> protocols(YamlNode value) throws ConfigException {
    List<YamlNode> items;
    if (value.kind == Kind.LIST) {
      items = value.items;
    } else if (value.isScalar()) {
      items = List.of(value);
    } else {
      throw error(value, "must be a list of protocol names, but is " + value.kind.description,
          "write e.g. '" + EXAMPLES.get("protocols") + "'.");
    }
    if (items.isEmpty()) {
      throw error(value, "is empty", "name at least one protocol, e.g. '" + EXAMPLES.get("protocols") + "'.");
    }
    List<String> out = new ArrayList<>();
    for (YamlNode item : items) {
      String p = text(item, "eventual");
      if (!PROTOCOL.matcher(p).matches()) {
        throw error(item, UserText.quoted(p) + " is not a protocol name", "write e.g. '" + EXAMPLES.get("protocols") + "'.");
      }
      if (installed != null && !installed.contains(p)) {
        List<String> known = installed.stream().sorted().toList();
        String near = closest(p, known);
        throw error(item, UserText.quoted(p) + " is not an installed protocol",
            (near == null ? "use one of " : "did you mean '" + near + "'? The installed protocols are ")
                + String.join(", ", known) + " (./kvlab protocols lists them).");
      }
      if (out.contains(p)) {
        throw error(item, UserText.quoted(p) + " is listed twice", "list each protocol once.");
      }
      out.add(p);
    }
    return out;
  }

  // workload

  private Map<String, String> workload(YamlNode value) throws ConfigException {
    Map<String, String> out = new LinkedHashMap<>();
    if (value == null || value.kind == Kind.NULL) {
      return out;
    }
    if (value.kind != Kind.MAPPING) {
      throw error(value, "must be a mapping of YCSB properties to values, but is " + value.kind.description,
          "write one 'property: value' line per YCSB property, indented under workload, e.g. '  readproportion: 0.5'.");
    }
    for (Map.Entry<String, YamlNode> e : value.entries.entrySet()) {
      String key = e.getKey();
      YamlNode v = e.getValue();
      checkProperty(key, v, "workload");
      if (v.kind == Kind.NULL) {
        throw errorAtKey(v, "has no value", "give the property a value, or remove the line.");
      }
      if (!v.isScalar()) {
        throw error(v, "is " + v.kind.description + "; YCSB properties are single values",
            "write one value, e.g. '" + key + ": 0.5'; to try several values, list them under 'sweep'.");
      }
      YcsbProperties.Problem p = YcsbProperties.check(key, v.text);
      if (p != null) {
        throw error(v, p.problem(), p.fix());
      }
      out.put(key, v.text);
    }
    Map.Entry<String, YcsbProperties.Problem> together = YcsbProperties.checkTogether(out);
    if (together != null) {
      throw error(value.get(together.getKey()), together.getValue().problem(), together.getValue().fix());
    }
    return out;
  }

  /** Rejects properties bench sets itself, and names close to a known one but not equal to it. */
  private void checkProperty(String key, YamlNode v, String where) throws ConfigException {
    String instead = RESERVED.get(key);
    if (instead != null) {
      throw errorAtKey(v, UserText.quoted(key) + " is set by bench", instead);
    }
    if (!KNOWN_PROPERTIES.contains(key) && !SWEEP_VARIABLES.contains(key)) {
      List<String> known = new ArrayList<>(KNOWN_PROPERTIES);
      if (where.equals("sweep")) {
        known.addAll(SWEEP_VARIABLES);
      }
      String near = closest(key, known);
      if (near != null) {
        throw errorAtKey(v, "unknown " + (where.equals("sweep") ? "sweep variable" : "YCSB property") + " '" + key + "'",
            "did you mean '" + near + "'? (A name not close to a known property is passed to YCSB as it is.)");
      }
    }
    if (where.equals("workload") && SWEEP_VARIABLES.contains(key) && !KNOWN_PROPERTIES.contains(key)) {
      throw errorAtKey(v, UserText.quoted(key) + " is not a YCSB property", key.equals("threads") || key.equals("clients")
          ? "set it under 'clients' (threads, processes), or sweep it under 'sweep'."
          : "set it under 'cluster', or sweep it under 'sweep'.");
    }
  }

  private static Map<String, String> reserved() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("recordcount", "use the top-level 'recordcount'.");
    m.put("operationcount", "use the top-level 'operationcount' (or 'duration').");
    m.put("maxexecutiontime", "use the top-level 'duration'.");
    m.put("threadcount", "use 'clients: { threads: N }' (threads per client JVM), or sweep 'threads'.");
    m.put("workload", "use the top-level 'workloadclass'.");
    m.put("db", "use the top-level 'db'.");
    for (String k : List.of("measurementtype", "hdrhistogram.fileoutput", "hdrhistogram.output.path", "exporter",
        "exportfile", "status.interval", "insertstart", "insertcount", "kvlab.cluster", "kvlab.dc", "kvlab.runseconds", "dotransactions")) {
      m.put(k, "remove it: bench chooses it for every client.");
    }
    return m;
  }

  private double proportion(YamlNode v) throws ConfigException {
    double d;
    try {
      d = Double.parseDouble(text(v, "0.5"));
    } catch (NumberFormatException e) {
      throw error(v, v.shown() + " is not a proportion", "write a number from 0 to 1, e.g. 0.5.");
    }
    if (!(d >= 0 && d <= 1)) {
      throw error(v, v.text + " is not a proportion", "write a number from 0 to 1, e.g. 0.5.");
    }
    return d;
  }

  // sweep

  private List<Experiment.Sweep> sweeps(YamlNode value, Map<String, String> workload, Experiment.ClusterSpec cluster,
      List<String> protocols) throws ConfigException {
    List<Experiment.Sweep> out = new ArrayList<>();
    if (value == null || value.kind == Kind.NULL) {
      return out;
    }
    if (value.kind != Kind.MAPPING) {
      throw error(value, "must be a mapping of variables to lists of values, but is " + value.kind.description,
          "write e.g. 'sweep: { readproportion: [0.05, 0.5, 0.95] }'.");
    }
    for (Map.Entry<String, YamlNode> e : value.entries.entrySet()) {
      String key = e.getKey();
      YamlNode list = e.getValue();
      if (isClusterParam(key) || key.startsWith("cluster.") || key.startsWith("params.")) {
        out.add(clusterParamSweep(key, list, protocols));
        continue;
      }
      checkProperty(key, list, "sweep");
      if (list.kind != Kind.LIST) {
        throw error(list, "must be a list of values, but is " + list.kind.description + " " + list.shown(),
            "write e.g. '" + key + ": [" + exampleValues(key) + "]'.");
      }
      if (list.items.isEmpty()) {
        throw error(list, "has no values", "write e.g. '" + key + ": [" + exampleValues(key) + "]'.");
      }
      List<String> values = new ArrayList<>();
      for (YamlNode item : list.items) {
        String v = text(item, exampleValues(key).split(",")[0]);
        checkSweepValue(key, item, v, workload, cluster);
        if (values.contains(v)) {
          throw error(item, UserText.quoted(v) + " is listed twice", "list each value once.");
        }
        values.add(v);
      }
      out.add(new Experiment.Sweep(key, values));
    }
    return out;
  }

  /** Whether sweep variable {@code name} is a protocol parameter of the cluster ({@code cluster.params.<name>}). */
  public static boolean isClusterParam(String name) {
    return name.startsWith(CLUSTER_PARAMS) && name.length() > CLUSTER_PARAMS.length();
  }

  /** The protocol parameter a {@code cluster.params.<name>} sweep sets. */
  public static String clusterParam(String name) {
    return name.substring(CLUSTER_PARAMS.length());
  }

  /**
   * {@code cluster.params.<name>: [v1, v2]}: every protocol of the experiment must declare {@code <name>}, as a
   * cluster file's {@code params} must (the same message: {@link org.kvlab.api.Protocols#describeParameters}).
   */
  private Experiment.Sweep clusterParamSweep(String key, YamlNode list, List<String> protocols) throws ConfigException {
    if (!isClusterParam(key)) {
      throw errorAtKey(list, "unknown sweep variable '" + key + "'",
          "a protocol parameter is swept as 'cluster.params.<name>', e.g. 'cluster.params.mode: [pb, tom, camu]'"
              + " (the parameters of the cluster file's 'params'); other cluster variables are wan, clockskew and"
              + " durability.");
    }
    String param = clusterParam(key);
    for (String protocolName : protocols) {
      org.kvlab.api.Protocol protocol = org.kvlab.api.Protocols.installed(protocolName);
      if (protocol == null) {
        continue; // not installed here: as the cluster-file loader, only the CLI's protocol check refuses it
      }
      Map<String, String> declared = protocol.parameters();
      if (!declared.containsKey(param)) {
        String suggestion = closest(param, List.copyOf(declared.keySet()));
        throw errorAtKey(list, UserText.quoted(param) + " is not a parameter of protocol " + protocol.name(),
            (suggestion == null
                ? "remove the sweep" + (protocols.size() > 1 ? ", or sweep it in an experiment of the protocols that"
                    + " read it" : "") + ". "
                : "did you mean 'cluster.params." + suggestion + "'? ")
                + org.kvlab.api.Protocols.describeParameters(protocol));
      }
    }
    if (list.kind != Kind.LIST) {
      throw error(list, "must be a list of values, but is " + list.kind.description + " " + list.shown(),
          "write e.g. '" + key + ": [a, b]', one value per run of each protocol.");
    }
    if (list.items.isEmpty()) {
      throw error(list, "has no values", "write e.g. '" + key + ": [a, b]'.");
    }
    List<String> values = new ArrayList<>();
    for (YamlNode item : list.items) {
      if (!item.isScalar() || item.kind == Kind.NULL) {
        throw error(item, "is " + item.kind.description + "; protocol parameters are single values",
            "write one value per item, e.g. '" + key + ": [a, b]'.");
      }
      String v = item.text;
      if (v.isBlank()) {
        throw error(item, "is empty", "write the parameter's value, e.g. '" + key + ": [a, b]'.");
      }
      if (values.contains(v)) {
        throw error(item, UserText.quoted(v) + " is listed twice", "list each value once.");
      }
      values.add(v);
    }
    return new Experiment.Sweep(key, values);
  }

  /**
   * Lets every protocol of the experiment check the parameters each of its runs will have
   * ({@link org.kvlab.api.Protocol#checkParameters}): the template's that it declares, with every combination of the
   * swept {@code cluster.params.<name>} values, on the runs' topology. So a value a protocol refuses ({@code mode: foo})
   * stops the experiment before its first cluster starts, at the line and column of the value.
   */
  private void checkProtocolParams(YamlNode root, List<Experiment.Sweep> sweeps, Experiment.ClusterSpec cluster,
      List<String> protocols) throws ConfigException {
    List<Experiment.Sweep> swept = sweeps.stream().filter(s -> isClusterParam(s.name())).toList();
    List<Map<String, String>> points = Experiment.crossProduct(swept);
    ClusterConfig template = cluster.template();
    org.kvlab.api.Topology topology = new org.kvlab.api.Topology(cluster.datacenters(), cluster.partitions(),
        template != null ? template.topology().replicas() : 1);
    YamlNode sweepNode = root.get("sweep");
    for (String protocolName : protocols) {
      org.kvlab.api.Protocol protocol = org.kvlab.api.Protocols.installed(protocolName);
      if (protocol == null) {
        continue; // not installed here: only the CLI's protocol check refuses it
      }
      Map<String, String> base = new java.util.TreeMap<>(template == null ? Map.of()
          : RunPlan.declaredParams(template.params(), protocol.name()).asMap());
      for (Map<String, String> point : points) {
        Map<String, String> values = new java.util.TreeMap<>(base);
        point.forEach((k, v) -> values.put(clusterParam(k), v));
        try {
          protocol.checkParameters(new Params(values), topology);
        } catch (org.kvlab.api.TopologyException e) {
          throw topologyRefusal(protocol.name(), e, root);
        } catch (org.kvlab.api.ParameterException e) {
          throw refusal(protocol.name(), e.parameter(), e.problem(), e.fix(), e.choices(), values, point, sweepNode,
              root);
        } catch (IllegalArgumentException e) {
          throw refusal(protocol.name(), null, e.getMessage(), "correct the value it names. "
              + org.kvlab.api.Protocols.describeParameters(protocol), List.of(), values, point, sweepNode, root);
        }
      }
    }
  }

  /**
   * A protocol's refusal of the cluster's shape: at {@code cluster.<datacenters|partitions>} where the experiment gives
   * it, else at the template ({@code cluster.file}) that does.
   */
  private ConfigException topologyRefusal(String protocol, org.kvlab.api.TopologyException e, YamlNode root) {
    YamlNode cluster = root.get("cluster");
    YamlNode at = cluster;
    if (cluster != null && cluster.kind == Kind.MAPPING) {
      at = cluster.get(e.key()) != null ? cluster.get(e.key()) : cluster.get("file") != null ? cluster.get("file")
          : cluster;
    }
    String what = at.path.equals("cluster." + e.key()) ? "it" : "its " + e.key();
    return error(at, "protocol " + protocol + " refuses " + what + ": " + e.problem(), e.fix() + ", or leave "
        + protocol + " out of 'protocols'");
  }

  /**
   * A protocol's refusal of a run's parameters, at the swept value of {@code parameter} if it is swept, else at the
   * first swept value of the run, else at the template ({@code cluster.file}).
   */
  private ConfigException refusal(String protocol, String parameter, String problem, String fix, List<String> choices,
      Map<String, String> values, Map<String, String> point, YamlNode sweepNode, YamlNode root) {
    String variable = parameter == null ? null : CLUSTER_PARAMS + parameter;
    String given = parameter == null ? null : values.get(parameter);
    String withFix = fixWithSuggestion(given, choices, fix);
    if (variable != null && point.containsKey(variable) && sweepNode != null) {
      YamlNode item = itemOf(sweepNode.get(variable), point.get(variable));
      if (item != null) {
        String others = point.size() > 1 ? " (with " + label(point, variable) + ")" : "";
        return error(item, "protocol " + protocol + " refuses " + parameter + " '" + given + "'" + others + ": "
            + problem, withFix);
      }
    }
    String what = parameter == null ? "its parameters" : "params." + parameter
        + (values.containsKey(parameter) ? " '" + values.get(parameter) + "'" : " (not given: its default)");
    if (!point.isEmpty() && sweepNode != null) {
      String first = point.keySet().iterator().next();
      YamlNode item = itemOf(sweepNode.get(first), point.get(first));
      if (item != null) {
        return error(item, "protocol " + protocol + " refuses " + what + " in the runs with " + label(point, null)
            + ": " + problem, withFix);
      }
    }
    YamlNode at = root.get("cluster") != null && root.get("cluster").kind == Kind.MAPPING
        && root.get("cluster").get("file") != null ? root.get("cluster").get("file") : root.get("cluster");
    return error(at, "protocol " + protocol + " refuses " + what + " of the cluster file "
        + (at.isScalar() ? at.text : "") + ": " + problem, withFix);
  }

  private static YamlNode itemOf(YamlNode list, String value) {
    if (list == null || list.kind != Kind.LIST) {
      return null;
    }
    return list.items.stream().filter(i -> value.equals(i.text)).findFirst().orElse(null);
  }

  /** {@code cluster.params.a=x cluster.params.b=y}, without {@code except}. */
  private static String label(Map<String, String> point, String except) {
    List<String> parts = new ArrayList<>();
    point.forEach((k, v) -> {
      if (!k.equals(except)) {
        parts.add(k + "=" + v);
      }
    });
    return String.join(" ", parts);
  }

  private static String exampleValues(String key) {
    switch (key) {
      case "readproportion":
        return "0.05, 0.5, 0.95";
      case "wan":
        return "off, 100ms";
      case "clockskew":
        return "0ms, 5ms, 10ms";
      case "threads":
      case "clients":
        return "1, 2, 4";
      case "durability":
        return "none, sync";
      default:
        return "a, b";
    }
  }

  private void checkSweepValue(String key, YamlNode item, String v, Map<String, String> workload,
      Experiment.ClusterSpec cluster) throws ConfigException {
    switch (key) {
      case "readproportion": {
        proportion(item);
        java.math.BigDecimal others = java.math.BigDecimal.ZERO;
        for (String p : OTHER_PROPORTIONS) {
          others = others.add(new java.math.BigDecimal(workload.getOrDefault(p, "0").trim()));
        }
        if (new java.math.BigDecimal(v).add(others).compareTo(java.math.BigDecimal.ONE) > 0) {
          throw error(item, "readproportion " + v + " and the workload's other proportions (" + others.toPlainString()
              + ") add up to more than 1", "lower it to at most " + java.math.BigDecimal.ONE.subtract(others).toPlainString() + ".");
        }
        return;
      }
      case "wan": {
        if (cluster.datacenters() < 2) {
          throw error(item, "an emulated WAN needs at least 2 datacenters, and this cluster has 1",
              "remove the wan sweep, or use more datacenters.");
        }
        String w = v.toLowerCase(Locale.ROOT);
        if (w.equals("off")) {
          return;
        }
        if (w.equals("on")) {
          if (cluster.wanRttMillis() == 0) {
            throw error(item, "'on' needs a round-trip time, and none is given",
                "set 'cluster.wan: 100ms' (or emulation.rtt in the cluster file), or write the time here, e.g. 100ms.");
          }
          return;
        }
        duration(item, "100ms", true);
        return;
      }
      case "clockskew":
        if (cluster.datacenters() * cluster.partitions() < 2) {
          throw error(item, "clock skew needs at least 2 servers, and this cluster has 1",
              "remove the clockskew sweep, or use more partitions or datacenters.");
        }
        duration(item, "5ms", true);
        return;
      case "threads":
        intIn(item, SWEEP_THREADS);
        return;
      case "clients":
        intIn(item, SWEEP_CLIENTS);
        return;
      case "durability":
        if (durability(item) == Durability.SYNC && cluster.engine() == StorageSpec.Engine.MEMORY) {
          throw error(item, "storage memory cannot give durability sync", "use 'cluster.storage: je'.");
        }
        return;
      default: {
        YcsbProperties.Problem p = YcsbProperties.check(key, v);
        if (p != null) {
          throw error(item, p.problem(), p.fix());
        }
      }
    }
  }

  // clients

  private Experiment.Clients clients(YamlNode value, int clusterDatacenters) throws ConfigException {
    YamlNode c = section(value, CLIENT_KEYS);
    if (c == null) {
      return new Experiment.Clients(1, 1, DEFAULT_CLIENT_JVM);
    }
    int processes = c.get("processes") == null ? 1 : intIn(c.get("processes"), PROCESSES);
    int threads = c.get("threads") == null ? 1 : intIn(c.get("threads"), THREADS);
    String jvm = c.get("jvm") == null ? DEFAULT_CLIENT_JVM : text(c.get("jvm"), "jvm: " + DEFAULT_CLIENT_JVM);
    return new Experiment.Clients(processes, threads, jvm, clientDatacenters(c.get("datacenters"), clusterDatacenters));
  }

  /** {@code datacenters: [0]}: where client JVMs run (DKVF's "client in DC0" runs); every datacenter if absent. */
  private List<Integer> clientDatacenters(YamlNode value, int clusterDatacenters) throws ConfigException {
    if (value == null || value.kind == Kind.NULL) {
      return List.of();
    }
    List<YamlNode> items = value.kind == Kind.LIST ? value.items : List.of(value);
    if (items.isEmpty()) {
      throw error(value, "lists no datacenter", "write e.g. 'datacenters: [0]', or remove it to run clients in every datacenter.");
    }
    java.util.TreeSet<Integer> out = new java.util.TreeSet<>();
    for (YamlNode item : items) {
      int dc = intIn(item, CLIENT_DATACENTER);
      if (dc >= clusterDatacenters) {
        throw error(item, "datacenter " + dc + " is not in the cluster, which has " + clusterDatacenters
            + " (numbered from 0)", "use datacenters 0.." + (clusterDatacenters - 1) + ", e.g. 'datacenters: [0]'.");
      }
      if (!out.add(dc)) {
        throw error(item, "datacenter " + dc + " is listed twice", "list each datacenter once.");
      }
    }
    return List.copyOf(out);
  }

  // scalars

  private Duration duration(YamlNode value, String example, boolean zeroAllowed) throws ConfigException {
    String text = text(value, example);
    Duration d;
    try {
      d = Params.parseDuration(text, value.path);
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw error(value, UserText.quoted(text) + " is not a duration", "write e.g. " + example + " (units us, ms, s, m, h; a bare number is milliseconds).");
    }
    if (d.isNegative() || (!zeroAllowed && d.isZero())) {
      throw error(value, UserText.quoted(text) + " must be " + (zeroAllowed ? "0 or more" : "more than 0"), "write e.g. " + example + ".");
    }
    return d;
  }

  private Duration wholeSeconds(YamlNode value, boolean zeroAllowed) throws ConfigException {
    Duration d = duration(value, "30s", zeroAllowed);
    if (d.compareTo(PHASE_MAX) > 0) {
      throw error(value, "'" + value.text + "' is longer than " + PHASE_MAX.toHours() + "h, the longest "
          + value.key() + " bench runs", "write at most " + PHASE_MAX.toHours() + "h, e.g. 30s or 10m (units s, m, h).");
    }
    if (d.toNanos() % 1_000_000_000L != 0) {
      throw error(value, UserText.quoted(value.text) + " is not a whole number of seconds (YCSB measures in 1 s intervals)",
          "round it to seconds, e.g. " + Math.max(zeroAllowed ? 0 : 1, Math.round(d.toMillis() / 1000.0)) + "s.");
    }
    return d;
  }

  private String className(YamlNode value) throws ConfigException {
    String t = text(value, "db: " + Experiment.KVLAB_DB);
    if (!t.matches("[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)*")) {
      throw error(value, UserText.quoted(t) + " is not a Java class name", "write a fully qualified name, e.g. " + Experiment.KVLAB_DB + ".");
    }
    return t;
  }
}
