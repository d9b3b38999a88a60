package org.kvlab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;
import org.kvlab.config.Range;

/**
 * Issue 28, item 3, for experiment files: every documented range works. For each whole-number key of the loader's own
 * table ({@link ExperimentLoader#RANGES}, so a new key cannot escape) at its minimum and at its maximum, the file is
 * dry-run as {@code bench --dry-run} does (loaded against the installed protocols, its runs listed), the value is what
 * the experiment holds, and the first run is planned: its clients and threads are the value where the key sets them,
 * and the cluster file bench would write for it loads with the cluster-file loader. docs/bench.md must list the same
 * ranges.
 */
class ExperimentRangesTest {
  /** Where each key's value is in a loaded experiment, or in the plan of its first run (sweeps). */
  private static final Map<String, ToLongFunction<Planned>> VALUES = Map.ofEntries(
      Map.entry("recordcount", p -> p.experiment().recordCount()),
      Map.entry("operationcount", p -> p.experiment().operationCount()),
      Map.entry("repeats", p -> p.experiment().repeats()),
      Map.entry("cluster.datacenters", p -> p.plan().cluster().topology().datacenters()),
      Map.entry("cluster.partitions", p -> p.plan().cluster().topology().partitions()),
      Map.entry("clients.processes", p -> p.plan().clientsPerDatacenter()),
      Map.entry("clients.threads", p -> p.plan().threads()),
      Map.entry("clients.datacenters", p -> p.experiment().clients().datacenters().get(0)),
      Map.entry("sweep.threads", p -> p.plan().threads()),
      Map.entry("sweep.clients", p -> p.plan().clientsPerDatacenter()));

  private record Planned(Experiment experiment, RunPlan plan) {}

  @TempDir Path dir;

  @Test
  void when_eachNumericKeyIsAtItsMinimumOrMaximum_then_theExperimentDryRunsAndItsFirstRunIsPlanned() throws Exception {
    List<String> installed = Protocols.all().stream().map(Protocol::name).toList();
    for (Range r : ExperimentLoader.RANGES) {
      ToLongFunction<Planned> value = VALUES.get(r.key());
      if (value == null) {
        fail(r.key() + " is in ExperimentLoader.RANGES but not walked here: add where its value is to VALUES");
      }
      for (long end : new long[] {r.min(), r.max()}) {
        Path file = dir.resolve("ranges.yaml");
        Files.writeString(file, experiment(r.key(), end));
        Experiment e;
        try {
          e = ExperimentLoader.load(file, installed);
        } catch (ConfigException ex) {
          throw new AssertionError(r + " is documented, yet " + end + " is refused: " + ex.getMessage(), ex);
        }
        List<Experiment.Run> runs = e.runs(); // what bench --dry-run lists
        assertFalse(runs.isEmpty(), r + " at " + end);
        RunPlan plan = RunPlan.of(e, runs.get(0), dir.resolve("data"), null);
        assertEquals(end, value.applyAsLong(new Planned(e, plan)), r + " at " + end);
        ClusterConfig written = ClusterConfig.parse(ClusterFiles.toYaml(plan.cluster()), r + " at " + end);
        assertEquals(plan.cluster().topology(), written.topology(), r + " at " + end);
        if (r.key().equals("repeats")) {
          assertEquals(end, runs.size(), "one run per repeat");
        }
      }
    }
  }

  /** A one-protocol experiment with {@code key} at {@code value} (and what that needs, e.g. enough datacenters). */
  private static String experiment(String key, long value) {
    long datacenters = key.equals("cluster.datacenters") ? value : key.equals("clients.datacenters") ? value + 1 : 1;
    long partitions = key.equals("cluster.partitions") ? value : 1;
    StringBuilder y = new StringBuilder("name: ranges\nprotocols: [eventual]\n")
        .append("cluster: { datacenters: ").append(datacenters).append(", partitions: ").append(partitions)
        .append(", storage: memory }\n");
    switch (key) {
      case "clients.processes" -> y.append("clients: { processes: ").append(value).append(" }\n");
      case "clients.threads" -> y.append("clients: { threads: ").append(value).append(" }\n");
      case "clients.datacenters" -> y.append("clients: { datacenters: [").append(value).append("] }\n");
      case "sweep.threads" -> y.append("sweep: { threads: [").append(value).append("] }\n");
      case "sweep.clients" -> y.append("sweep: { clients: [").append(value).append("] }\n");
      case "recordcount", "repeats" -> y.append(key).append(": ").append(value).append('\n');
      default -> { }
    }
    y.append("operationcount: ").append(key.equals("operationcount") ? value : 10).append('\n');
    return y.toString();
  }

  @Test
  void when_theDocsListTheRanges_then_theyAreTheLoadersRanges() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "bench.md"));
    for (Range r : ExperimentLoader.RANGES) {
      String name = r.key().startsWith("sweep.") ? r.key().substring("sweep.".length()) : r.key();
      String range = r.min() + "-" + r.max();
      if (r.key().startsWith("cluster.")) { // described in the text under the table: "`datacenters` (1-64)"
        String said = "`" + r.key().substring("cluster.".length()) + "` (" + range + ")";
        assertTrue(doc.contains(said), r + ": docs/bench.md does not say " + said);
        continue;
      }
      String line = doc.lines().filter(l -> l.startsWith("| `" + name + "` |")).findFirst().orElse(null);
      assertTrue(line != null, r + ": docs/bench.md has no table row for `" + name + "`");
      assertTrue(line.contains(range), r + ": docs/bench.md says " + line);
    }
  }
}
