package org.kvlab.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.kvlab.api.Params;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.check.Checkers;
import org.kvlab.check.Result;
import org.kvlab.check.Violation;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Workload;
import org.kvlab.store.Durability;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvlab sim}: run a protocol in the deterministic simulator over many seeds and check each run. */
@Command(name = "sim", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Run a protocol in the deterministic simulator over many seeds, with faults, and check every "
        + "history. A failing seed prints the command that replays it exactly and the messages around the "
        + "violating operations. Exit code 0 if every seed passed, 1 if any violated a check.")
final class SimCommand implements Callable<Integer> {
  @Option(names = "--protocol", required = true, description = "protocol name (see ./kvlab protocols)")
  String protocol;

  @Option(names = "--seeds", defaultValue = "1..20", description = "seeds: a range 1..200, a list 3,17,42, or one (default: ${DEFAULT-VALUE})")
  String seeds;

  @Option(names = "--faults", split = ",", description = "faults drawn per seed: partition, skew, crash, slow (default: none)")
  List<String> faults = new ArrayList<>();

  @Option(names = "--check", split = ",", defaultValue = "convergence",
      description = "checkers: causal, session, convergence, rotx, linearizable, txn (default: ${DEFAULT-VALUE})")
  List<String> checks;

  @Option(names = "--duration", defaultValue = "10s", description = "simulated time of the workload per seed (default: ${DEFAULT-VALUE})")
  String duration;

  @Option(names = "--datacenters", defaultValue = "2") int datacenters;
  @Option(names = "--partitions", defaultValue = "3") int partitions;
  @Option(names = "--sessions", defaultValue = "2", description = "client sessions per datacenter (default: ${DEFAULT-VALUE})") int sessions;
  @Option(names = "--keys", defaultValue = "20", description = "key space size (default: ${DEFAULT-VALUE})") int keys;
  @Option(names = "--get-ratio", defaultValue = "0.5") double getRatio;
  @Option(names = "--rotx-ratio", defaultValue = "0", description = "fraction of read-only transactions, if the protocol has them") double rotxRatio;
  @Option(names = "--rotx-keys", defaultValue = "3") int rotxKeys;
  @Option(names = "--distribution", defaultValue = "uniform", description = "uniform or zipfian") String distribution;
  @Option(names = "--rtt", defaultValue = "50ms", description = "round-trip time between datacenters (default: ${DEFAULT-VALUE})") String rtt;
  @Option(names = "--durability", defaultValue = "sync", description = "sync or none: what a crash keeps (default: ${DEFAULT-VALUE})") String durability;
  @Option(names = "--max-skew", defaultValue = "100ms", description = "bound of drawn clock skew (default: ${DEFAULT-VALUE})") String maxSkew;
  @Option(names = "--param", description = "protocol parameter name=value (repeatable)") Map<String, String> params = new TreeMap<>();
  @Option(names = "--trace-rows", defaultValue = "80", description = "rows of message diagram per violation, centred on the violating operations (default: ${DEFAULT-VALUE})") int traceRows;
  @Option(names = "--jobs", description = "seeds simulated in parallel (default: all cores, ${DEFAULT-VALUE}); the "
      + "output and every result are the same as with --jobs 1, in seed order")
  int jobs = Runtime.getRuntime().availableProcessors();
  @Option(names = "--show", defaultValue = "3", description = "failing seeds to explain in full (default: ${DEFAULT-VALUE})") int show;

  @Override
  public Integer call() {
    Protocol p;
    try {
      checks = Checkers.validate(checks); // canonical names, before any seed runs
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, e.getMessage());
    }
    try {
      p = Protocols.byName(protocol);
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, "--protocol: " + Clusters.notInstalled(protocol));
    }
    for (String name : params.keySet()) { // as a cluster file's params: a misspelt one must not fall back silently
      if (!p.parameters().containsKey(name)) {
        throw new Main.CliException(Main.USAGE, "--param " + name + ": not a parameter of protocol " + p.name()
            + ". Fix: remove it or use one the protocol declares. " + Protocols.describeParameters(p));
      }
    }
    if (datacenters >= 1 && partitions >= 1) { // spec() refuses the others
      try { // the values, as the cluster-file loader checks them, before any seed runs
        p.checkParameters(new Params(params), new org.kvlab.api.Topology(datacenters, partitions));
      } catch (org.kvlab.api.TopologyException e) {
        throw new Main.CliException(Main.USAGE, "--" + e.key() + ": protocol " + p.name() + " refuses it: "
            + e.problem() + ". Fix: " + e.fix().replace(e.key() + ": ", "--" + e.key() + " "));
      } catch (org.kvlab.api.ParameterException e) {
        throw new Main.CliException(Main.USAGE, "--param " + e.parameter() + ": " + e.problem() + ". Fix: "
            + org.kvlab.config.YamlReader.fixWithSuggestion(params.get(e.parameter()), e.choices(), e.fix()));
      } catch (IllegalArgumentException e) {
        throw new Main.CliException(Main.USAGE, "--param: protocol " + p.name() + " refuses the parameters: "
            + e.getMessage());
      }
    }
    SimSpec spec = spec();
    List<Long> seedList = parseSeeds(seeds);
    System.out.printf("simulating %s: %d datacenters x %d partitions, %d sessions/dc, %s per seed, faults: %s, checks: %s%n",
        p.name(), datacenters, partitions, sessions, duration, faults.isEmpty() ? "none" : String.join(",", faults),
        String.join(",", checks));
    StringBuilder header = new StringBuilder(String.format("%8s %8s %9s %7s", "SEED", "OPS", "MESSAGES", "WALL"));
    for (String c : checks) {
      header.append(String.format(" %-12s", c.toUpperCase()));
    }
    System.out.println(header + " FAULTS");
    List<Long> failed = new ArrayList<>();
    long totalDeliveries = 0;
    long totalWall = 0;
    long totalCpu = 0;
    long start = System.nanoTime();
    SimSpec sweep = spec.withTrace(false); // fast sweep; failing seeds are replayed with tracing on below
    if (jobs < 1) {
      throw new Main.CliException(Main.USAGE, "--jobs " + jobs + ": run at least 1 seed at a time (e.g. --jobs 1 for a serial run)");
    }
    long[] totals = new long[3]; // deliveries, wall, cpu of the simulations
    try {
      SimRunner.runAll(sweep, p, seedList, checks, jobs, r -> {
        totals[0] += r.result().deliveries();
        totals[1] += r.result().wallNanos();
        totals[2] += r.result().cpuNanos();
        printRow(r);
        if (!r.ok()) {
          failed.add(r.seed());
        }
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Main.CliException(BenchCommand.INTERRUPTED, "interrupted");
    }
    totalDeliveries = totals[0];
    totalWall = totals[1];
    totalCpu = totals[2];
    double secs = (System.nanoTime() - start) / 1e9;
    System.out.printf("%n%d seeds, %d passed, %d failed, in %.1f s; simulation alone: %d messages delivered in %.1f s "
            + "of CPU (%.0f per CPU-second), %.1f s wall (%.0f/s)%n", seedList.size(), seedList.size() - failed.size(),
        failed.size(), secs, totalDeliveries, totalCpu / 1e9, totalDeliveries / (totalCpu / 1e9), totalWall / 1e9,
        totalDeliveries / (totalWall / 1e9));
    if (!failed.isEmpty()) {
      System.out.println("failing seeds: " + failed);
    }
    for (long seed : failed.subList(0, Math.min(show, failed.size()))) {
      SeedReport r = SimRunner.run(spec.withTrace(true), p, seed, checks); // same seed, same run, now traced
      System.out.printf("%n== seed %d failed. Replay: %s%n", r.seed(), replay(r.seed()));
      r.result().failures().forEach(f -> System.out.println("  " + f));
      // a violation several checkers found is explained once, naming them all; at most 2 new ones per checker
      Map<Violation, List<String>> foundBy = new java.util.HashMap<>();
      for (Checkers.Reported rep : Checkers.distinct(r.checks())) {
        foundBy.put(rep.violation(), rep.checkers());
      }
      java.util.Set<Violation> printed = new java.util.HashSet<>();
      for (Result c : r.checks()) {
        int shown = 0;
        int more = 0;
        for (Violation v : c.violations()) {
          if (printed.contains(v)) {
            continue;
          }
          if (shown == 2) {
            more++;
            continue;
          }
          List<String> by = foundBy.get(v);
          if (by.size() > 1) {
            System.out.println("  [found by " + String.join(", ", by) + "]");
          }
          System.out.print(SimRunner.explain(r, v, traceRows));
          printed.add(v);
          shown++;
        }
        if (more > 0) {
          System.out.printf("  (%d more %s violations)%n", more, c.checker());
        }
        if (c.vacuous()) {
          System.out.printf("  %s: %s%n", c.checker(), c.note());
        }
      }
    }
    return failed.isEmpty() ? Main.OK : Main.FAILED;
  }

  /** One row of the sweep's table. WALL is the seed's simulation (real time), not its checks. */
  private void printRow(SeedReport r) {
    StringBuilder row = new StringBuilder(String.format("%8d %8d %9d %5.0fms", r.seed(), r.result().history().size(),
        r.result().deliveries(), r.result().wallNanos() / 1e6));
    for (Result c : r.checks()) {
      row.append(String.format(" %-12s", !c.valid() ? c.violations().size() + " violations"
          : c.vacuous() ? "no verdict" : "ok"));
    }
    row.append(' ').append(org.kvlab.sim.Fault.summary(r.result().faults()));
    if (r.result().failed()) {
      row.append(" FAILED: ").append(r.result().failures().get(0));
    }
    System.out.println(row);
  }

  SimSpec spec() {
    Durability d;
    try {
      d = Durability.valueOf(durability.toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, "--durability " + durability + ": use sync or none");
    }
    try {
      Workload w = new Workload(sessions, keys, getRatio, rotxRatio, rotxKeys, distribution, 2_000, null);
      double rttMillis = Params.parseDuration(rtt, "--rtt").toNanos() / 1e6;
      return SimSpec.defaults().withTopology(datacenters, partitions).withParams(new Params(params))
          .withNetwork(NetworkModel.uniform(datacenters, rttMillis)).withDurability(d)
          .withFaultKinds(new LinkedHashSet<>(faults)).withWorkload(w)
          .withDuration(Params.parseDuration(duration, "--duration").toNanos() / 1000)
          .withMaxSkewMillis(Params.parseDuration(maxSkew, "--max-skew").toMillis());
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, e.getMessage());
    }
  }

  String replay(long seed) {
    StringBuilder cmd = new StringBuilder("./kvlab sim --protocol " + protocol + " --seeds " + seed);
    if (!faults.isEmpty()) {
      cmd.append(" --faults ").append(String.join(",", faults));
    }
    cmd.append(" --check ").append(String.join(",", checks)).append(" --duration ").append(duration);
    if (datacenters != 2 || partitions != 3) {
      cmd.append(" --datacenters ").append(datacenters).append(" --partitions ").append(partitions);
    }
    cmd.append(" --sessions ").append(sessions).append(" --keys ").append(keys).append(" --get-ratio ").append(getRatio);
    if (rotxRatio > 0) {
      cmd.append(" --rotx-ratio ").append(rotxRatio).append(" --rotx-keys ").append(rotxKeys);
    }
    cmd.append(" --distribution ").append(distribution).append(" --rtt ").append(rtt).append(" --durability ")
        .append(durability).append(" --max-skew ").append(maxSkew);
    params.forEach((k, v) -> cmd.append(" --param ").append(k).append('=').append(v));
    return cmd.toString();
  }

  static List<Long> parseSeeds(String text) {
    try {
      return org.kvlab.sim.Seeds.parse(text);
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, "--seeds " + text + ": " + e.getMessage());
    }
  }
}
