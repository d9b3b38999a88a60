package org.kvlab.openloop;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.kvlab.api.Params;
import org.kvlab.config.ConfigException;
import org.kvlab.config.UserText;
import org.kvlab.config.YamlNode;
import org.kvlab.config.YamlNode.Kind;
import org.kvlab.config.YamlReader;

/**
 * An open-loop experiment file ({@code mode: open-loop}, see docs/bench.md "Open-loop latency-throughput
 * curves"): clusters (each a cluster file, so each names its protocol), the offered rates, and the
 * workload. Checked like every kvlab file: a problem names the file, line and column, and a fix.
 */
public record OpenLoopExperiment(Path source, String name, List<Path> clusters, String serverJvm, List<Double> rates,
    Duration prime, boolean collect, Duration warmup, Duration duration, Duration p99Bound, int sessions,
    int clientThreads, OpenLoopLoad.Workload workload) {

  static final List<String> KEYS = List.of("mode", "name", "clusters", "jvm", "rates", "prime", "collect", "warmup",
      "duration", "p99bound", "sessions", "clientthreads", "records", "readproportion", "valuebytes", "seed", "objectsperreplica", "locality");
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]*");

  /** True if the YAML file says {@code mode: open-loop} (read without validating anything else). */
  public static boolean isOpenLoop(Path file) throws ConfigException {
    String text = YamlReader.readText(file, "experiment file");
    YamlNode root = reader(file).readTree(text);
    YamlNode mode = root.kind == Kind.MAPPING ? root.get("mode") : null;
    return mode != null && mode.isScalar() && "open-loop".equals(mode.text.strip());
  }

  private static YamlReader reader(Path file) {
    return new YamlReader(file.toString(), "experiment file",
        "write at least mode: open-loop, name, clusters and rates; see docs/bench.md.",
        "keep one experiment per file: remove the '---' line and what follows, or split the file.");
  }

  public static OpenLoopExperiment load(Path file) throws ConfigException {
    return parse(YamlReader.readText(file, "experiment file"), file);
  }

  /**
   * Checks the text of an experiment file (e.g. an editor's, not saved yet) as {@link #load} checks the file:
   * {@code file} names it in messages and anchors relative cluster paths; null: a new file, named
   * "(new experiment)", its cluster paths relative to the working directory.
   */
  public static OpenLoopExperiment parse(String text, Path file) throws ConfigException {
    YamlReader r = file == null ? new YamlReader("(new experiment)", "experiment file",
        "write at least mode: open-loop, name, clusters and rates; see docs/bench.md.",
        "keep one experiment per file: remove the '---' line and what follows, or split the file.") : reader(file);
    Path base = file == null ? Path.of("").toAbsolutePath() : file.toAbsolutePath().getParent();
    YamlNode root = r.readTree(YamlReader.stripBom(text));
    if (root.kind != Kind.MAPPING) {
      throw r.error(root, "must be a mapping of keys", "start from experiments/openloop-eventual-1.yaml.");
    }
    r.checkKeys(root, KEYS);
    String name = r.text(r.require(root, "name"), "name: openloop-eventual-1");
    if (!NAME.matcher(name).matches()) {
      throw r.error(root.get("name"), UserText.quoted(name) + " is not a valid name", "use a-z, 0-9, '.', '_' and '-' (it names "
          + "the results directory).");
    }
    List<Path> clusters = new ArrayList<>();
    YamlNode cs = r.require(root, "clusters");
    if (cs.kind != Kind.LIST || cs.items.isEmpty()) {
      throw r.error(cs, "must be a list of cluster files", "write e.g. 'clusters: [examples/eventual-1.yaml]'.");
    }
    for (YamlNode c : cs.items) {
      Path p = Path.of(r.text(c, "examples/eventual-1.yaml"));
      Path resolved = p.isAbsolute() || java.nio.file.Files.exists(p) ? p
          : base.resolve(p).normalize();
      if (!java.nio.file.Files.isRegularFile(resolved)) {
        throw r.error(c, "cluster file " + p + " does not exist", "give a path relative to the working directory "
            + "or to the experiment file, e.g. examples/eventual-1.yaml.");
      }
      clusters.add(resolved);
    }
    List<Double> rates = new ArrayList<>();
    YamlNode rs = r.require(root, "rates");
    if (rs.kind != Kind.LIST || rs.items.isEmpty()) {
      throw r.error(rs, "must be a list of offered rates (requests per second)", "write e.g. 'rates: [10000, 20000, 40000]'.");
    }
    for (YamlNode v : rs.items) {
      rates.add((double) r.intIn(v, 1, 10_000_000));
    }
    String jvm = root.get("jvm") == null ? "-Xms1g -Xmx1g -XX:+UseSerialGC" : r.text(root.get("jvm"), "jvm: -Xmx1g");
    Duration prime = duration(r, root, "prime", "0s");
    boolean collect = root.get("collect") == null || r.trueOrFalse(root.get("collect"), "write 'collect: true' (a full "
        + "collection of the servers and the load generator before each rate, the default) or 'collect: false'.");
    Duration warmup = duration(r, root, "warmup", "3s");
    Duration duration = duration(r, root, "duration", "10s");
    Duration bound = duration(r, root, "p99bound", "5ms");
    int sessions = root.get("sessions") == null ? 64 : r.intIn(root.get("sessions"), 1, 10_000);
    int threads = root.get("clientthreads") == null ? 1 : r.intIn(root.get("clientthreads"), 1, 16);
    int records = root.get("records") == null ? 10_000 : r.intIn(root.get("records"), 1, 100_000_000);
    int valueBytes = root.get("valuebytes") == null ? 64 : r.intIn(root.get("valuebytes"), 0, 1 << 20);
    long seed = root.get("seed") == null ? 1 : r.integer(root.get("seed"), "of any size");
    double read = 0.5;
    if (root.get("readproportion") != null) {
      String t = r.text(root.get("readproportion"), "readproportion: 0.5");
      try {
        read = Double.parseDouble(t);
      } catch (NumberFormatException e) {
        read = -1;
      }
      if (!(read >= 0 && read <= 1)) {
        throw r.error(root.get("readproportion"), UserText.quoted(t) + " is not a proportion", "write a number from 0 to 1, e.g. 0.5.");
      }
    }
    // the consensus workload (seed 001 §10.3): objects per replica, sessions at every replica, locality
    int objects = root.get("objectsperreplica") == null ? 0 : r.intIn(root.get("objectsperreplica"), 1, 1_000_000);
    double locality = 1.0;
    if (root.get("locality") != null) {
      String t = r.text(root.get("locality"), "locality: 1.0");
      try {
        locality = Double.parseDouble(t);
      } catch (NumberFormatException e) {
        locality = -1;
      }
      if (!(locality >= 0 && locality <= 1) || objects == 0) {
        throw r.error(root.get("locality"), objects == 0 ? "locality needs objectsperreplica"
            : UserText.quoted(t) + " is not a proportion", objects == 0 ? "add 'objectsperreplica: 1000'."
            : "write a number from 0 to 1, e.g. 1.0.");
      }
    }
    return new OpenLoopExperiment(file, name, List.copyOf(clusters), jvm, List.copyOf(rates), prime, collect, warmup, duration,
        bound, sessions, threads, new OpenLoopLoad.Workload(records, read, valueBytes, seed, objects, locality));
  }

  private static Duration duration(YamlReader r, YamlNode root, String key, String fallback) throws ConfigException {
    YamlNode v = root.get(key);
    String t = v == null ? fallback : r.text(v, key + ": " + fallback);
    try {
      Duration d = Params.parseDuration(t, key);
      if (d.isNegative() || (d.isZero() && !key.equals("warmup") && !key.equals("prime"))) {
        throw new IllegalArgumentException(key + " must be positive");
      }
      return d;
    } catch (IllegalArgumentException e) {
      throw r.error(v, e.getMessage(), "write a duration like '" + fallback + "' (ms, s, m).");
    }
  }
}
