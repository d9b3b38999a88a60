package org.kvlab.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
import org.kvlab.config.YamlReader;
import org.kvlab.history.History;
import org.kvlab.history.HistoryFiles;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimLimits;
import org.kvlab.sim.SimResult.StartFailure;
import org.kvlab.sim.Shrinker;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.TxnWorkload;
import org.kvlab.sim.Workload;
import org.kvlab.store.Durability;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code kvlab sim}: run a protocol in the deterministic simulator over many seeds and check each run. */
@Command(name = "sim", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Run a protocol in the deterministic simulator over many seeds, with faults, and check every "
        + "history. A failing seed prints the command that replays it exactly and the messages around the "
        + "violating operations. Exit code 0 if every seed passed, 1 if any violated a check, completed no "
        + "operation or its servers failed to start, 2 for bad usage (an option out of its range) or servers that "
        + "refuse the configuration.")
final class SimCommand implements Callable<Integer> {
  @Option(names = "--protocol", description = "protocol name (see ./kvlab protocols); required unless --schedule")
  String protocol;
  @Option(names = "--schedule", paramLabel = "FILE", description = "replay a schedule ./kvlab explore wrote and draw"
      + " its diagram (the file names the protocol, topology and sessions; other options are ignored)")
  Path schedule;

  @Option(names = "--seeds", defaultValue = "1..20", description = "seeds: a range 1..200, a list 3,17,42, or one (default: ${DEFAULT-VALUE})")
  String seeds;

  @Option(names = "--faults", split = ",", description = "faults drawn per seed: partition, skew, crash, slow (default: none)")
  List<String> faults = new ArrayList<>();

  @Option(names = "--check", split = ",", defaultValue = "convergence",
      description = "checkers: causal, session, convergence, rotx, linearizable, txn (protocol metadata),"
          + " serializable, strict-serializable, bank, store (black box: docs/checkers.md#transactions), workload (the"
          + " invariants of --txn-workload chirper or tpcc, and their final reads agreeing: added by itself with those,"
          + " and the default instead of convergence, which judges PUTs only) (default: ${DEFAULT-VALUE})")
  List<String> checks;

  @Option(names = "--duration", defaultValue = "10s", description = "simulated time of the workload per seed, 1ms to "
      + "10m (default: ${DEFAULT-VALUE})")
  String duration;

  @Option(names = "--datacenters", description = "datacenters, 1 to 16 (default: the protocol's own, 2 for most;"
      + " camu: 1)") Integer datacenters;
  @Option(names = "--partitions", description = "partitions per datacenter, 1 to 256 (default: the protocol's own,"
      + " 3 for most)") Integer partitions;
  @Option(names = "--replicas", description = "servers per partition per datacenter, a replication group (nukv's Raft"
      + " group, dynastar's replicated partitions: 3 or more), 1 to 9 (default: the protocol's own, 1 for most)")
  Integer replicas;
  @Option(names = "--sessions", defaultValue = "2", description = "client sessions per datacenter, 1 to 1,000 (default: ${DEFAULT-VALUE})") int sessions;
  @Option(names = "--keys", defaultValue = "20", description = "key space size, 1 to 1,000,000 (default: ${DEFAULT-VALUE})") int keys;
  @Option(names = "--get-ratio", defaultValue = "0.5", description = "fraction of plain operations that are gets (the "
      + "rest are puts), 0 to 1 (default: ${DEFAULT-VALUE})") double getRatio;
  @Option(names = "--rotx-ratio", defaultValue = "0", description = "fraction of read-only transactions, if the "
      + "protocol has them, 0 to 1 (default: ${DEFAULT-VALUE})") double rotxRatio;
  @Option(names = "--rotx-keys", defaultValue = "3", description = "keys per read-only transaction, 1 to 100"
      + " (default: ${DEFAULT-VALUE})") int rotxKeys;
  @Option(names = "--distribution", defaultValue = "uniform", description = "key choice: uniform or zipfian (default: ${DEFAULT-VALUE})") String distribution;
  @Option(names = "--txn-workload", description = "every operation a transaction of this workload, whose history the"
      + " black-box checks judge: list-append, rw-register or bank; or the online store (store, judged by --check store) or"
      + " seed 004's micro-benchmark (micro; --txn-read-share = share of local operations); or a workload family,"
      + " chirper or tpcc (options below; its invariants checked by the workload check) (protocols with transactions;"
      + " default: none)")
  String txnWorkload;
  @Mixin FamilyOptions family = new FamilyOptions();
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec commandSpec;
  @Option(names = "--timeline", paramLabel = "FILE.csv", description = "write the seed's time series (operations"
      + " completed and every server counter's growth per --timeline-bucket of virtual time) to FILE.csv and its chart"
      + " (throughput, and the share of multi-partition, oracle and slow-path counters) to FILE.png; needs exactly one"
      + " seed") Path timeline;
  @Option(names = "--timeline-bucket", defaultValue = "1s", description = "--timeline: the bucket, 1ms to 10m (default:"
      + " ${DEFAULT-VALUE})") String timelineBucket;
  @Option(names = "--txn-length", defaultValue = "1..4", description = "keys per transaction of --txn-workload, MIN..MAX"
      + " (default: ${DEFAULT-VALUE})") String txnLength;
  @Option(names = "--txn-read-share", defaultValue = "0.5", description = "--txn-workload: share of keys only read"
      + " (bank: of read-all transactions), 0 to 1 (default: ${DEFAULT-VALUE})") double txnReadShare;
  @Option(names = "--txn-locality", defaultValue = "0", description = "--txn-workload: share of keys from the session's"
      + " home partition, 0 to 1 (default: ${DEFAULT-VALUE})") double txnLocality;
  @Option(names = "--objects-per-replica", defaultValue = "0", description = "the consensus workload (seed 001"
      + " §10.3): each datacenter's own objects, a session's commands on them at --locality, 0 = off (default: ${DEFAULT-VALUE})")
  int objectsPerReplica;
  @Option(names = "--locality", defaultValue = "1", description = "--objects-per-replica: share of a session's commands"
      + " on its own datacenter's objects, 0 to 1 (default: ${DEFAULT-VALUE})") double locality;
  @Option(names = "--complex", defaultValue = "0", description = "--objects-per-replica: share of complex commands"
      + " (transactions over 2 objects), 0 to 1, for protocols with transactions (default: ${DEFAULT-VALUE})")
  double complex;
  @Option(names = "--open-rate", defaultValue = "0", description = "open loop: operations per second per datacenter,"
      + " each on an idle session (--sessions is the cap in flight), 0 = closed loop (default: ${DEFAULT-VALUE})")
  double openRate;
  @Option(names = "--rtt", defaultValue = "50ms", description = "round-trip time between datacenters, 0 to 1s (default: ${DEFAULT-VALUE})") String rtt;
  @Option(names = "--service-time", paramLabel = "TIME[,Type=TIME..][,perKB=TIME][,offload=TIME]", description = "the"
      + " servers' CPU cost: each peer message, call and client request a server handles keeps it busy TIME (e.g."
      + " 50us), one at a time, later ones wait in order, so a server saturates; after commas: overrides per message"
      + " type (its class's simple name), a cost per KB the input carries and the duration of offloaded computations"
      + " (default: none, handlers cost nothing)")
  String serviceTime;
  @Option(names = "--durability", defaultValue = "sync", description = "sync or none: what a crash keeps (default: ${DEFAULT-VALUE})") String durability;
  @Option(names = "--max-skew", defaultValue = "100ms", description = "bound of the clock skew the skew fault draws, 0 to 1s (default: ${DEFAULT-VALUE})") String maxSkew;
  @Option(names = "--param", description = "protocol parameter name=value (repeatable)") Map<String, String> params = new TreeMap<>();
  @Option(names = "--history", paramLabel = "FILE", description = "write the seed's history (JSON lines, what ./kvlab"
      + " check reads) to FILE; needs exactly one seed (--seeds 7)") Path history;
  @Option(names = "--trace-rows", defaultValue = "80", description = "rows of message diagram per violation, centred on the violating operations, 1 to 10,000 (default: ${DEFAULT-VALUE})") int traceRows;
  @Option(names = "--jobs", description = "seeds simulated in parallel, 1 to 1,024 (default: all cores, ${DEFAULT-VALUE}); the "
      + "output and every result are the same as with --jobs 1, in seed order")
  int jobs = Math.min(1_024, Runtime.getRuntime().availableProcessors());
  @Option(names = "--shrink", description = "shrink the first failing seed: search smaller runs (shorter, fewer"
      + " sessions, keys and fault kinds) that still fail a check that failed, print before -> after, the smaller"
      + " run's replay command and its diagram (docs/simulator.md#shrinking-a-failing-run)") boolean shrink;
  @Option(names = "--shrink-seeds", defaultValue = "30", description = "seeds searched per smaller input when"
      + " shrinking, 1 to 1,000 (default: ${DEFAULT-VALUE})") int shrinkSeeds;
  @Option(names = "--show", defaultValue = "3", description = "failing seeds to explain in full, 0 to 1,000 (default: ${DEFAULT-VALUE})") int show;

  static final SimLimits.Whole TRACE_ROWS = new SimLimits.Whole("trace-rows", 1, 10_000);
  static final SimLimits.Whole JOBS = new SimLimits.Whole("jobs", 1, 1_024);
  static final SimLimits.Whole SHOW = new SimLimits.Whole("show", 0, 1_000);
  static final SimLimits.Whole SHRINK_SEEDS = new SimLimits.Whole("shrink-seeds", 1, 1_000);
  static final SimLimits.Span TIMELINE_BUCKET = new SimLimits.Span("timeline-bucket", Duration.ofMillis(1),
      Duration.ofMinutes(10));

  @Override
  public Integer call() {
    if (schedule != null) {
      return ScheduleReplay.replay(schedule, TRACE_ROWS.check(traceRows) > 0 ? traceRows : 80);
    }
    if (protocol == null) {
      throw new Main.CliException(Main.USAGE, "--protocol is missing. Fix: name the protocol to simulate, e.g."
          + " --protocol eventual (./kvlab protocols lists them), or replay a schedule with --schedule FILE");
    }
    Protocol p;
    try {
      checks = Checkers.validate(checks); // canonical names, before any seed runs
      FamilyOptions.refuseStray(txnWorkload, commandSpec.commandLine().getParseResult());
      if (FamilyOptions.isFamily(txnWorkload)) { // a family's invariants are always judged
        if (!commandSpec.commandLine().getParseResult().hasMatchedOption("--check")) {
          checks.clear(); // the default, convergence, judges PUTs only: the workload check compares the replicas
        }
        if (!checks.contains(org.kvlab.workload.WorkloadChecker.NAME)) {
          checks.add(org.kvlab.workload.WorkloadChecker.NAME);
        }
      }
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, e.getMessage());
    }
    try {
      p = Protocols.byName(protocol);
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, "--protocol: " + Clusters.notInstalled(protocol));
    }
    protocol = p.name();
    if (datacenters == null) { // the protocol's own shape for what the command line leaves out
      datacenters = p.defaultTopology().datacenters();
    }
    if (partitions == null) {
      partitions = p.defaultTopology().partitions();
    }
    if (replicas == null) {
      replicas = p.defaultTopology().replicas();
    }
    SimSpec spec = spec(); // every option in range before the protocol judges its parameters and shape
    requireDeclared(p, params);
    try { // the values, as the cluster-file loader checks them, before any seed runs
      p.checkParameters(new Params(params), spec.topology());
    } catch (org.kvlab.api.TopologyException e) {
      throw new Main.CliException(Main.USAGE, "--" + e.key() + ": protocol " + p.name() + " refuses it: "
          + e.problem() + ". Fix: " + e.fix().replace(e.key() + ": ", "--" + e.key() + " "));
    } catch (org.kvlab.api.ParameterException e) {
      throw new Main.CliException(Main.USAGE, "--param " + e.parameter() + ": " + e.problem() + ". Fix: "
          + YamlReader.fixWithSuggestion(params.get(e.parameter()), e.choices(), e.fix()));
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, "--param: protocol " + p.name() + " refuses the parameters: "
          + e.getMessage());
    }
    if (rotxRatio > 0 && !(p.newClient() instanceof org.kvlab.api.ReadOnlyTransactions)) { // else ignored silently
      throw new Main.CliException(Main.USAGE, "--rotx-ratio " + rotxRatio + ": protocol " + p.name() + " has no"
          + " read-only transactions. Fix: drop --rotx-ratio, or use a protocol that offers them (./kvlab protocols)");
    }
    List<Long> seedList = parseSeeds(seeds);
    if (timeline != null && seedList.size() != 1) {
      throw new Main.CliException(Main.USAGE, "--timeline " + timeline + ": writes one seed's time series, but --seeds "
          + seeds + " names " + seedList.size() + ". Fix: run the seed you want alone, e.g. --seeds "
          + seedList.get(0) + " --timeline " + timeline);
    }
    if (history != null && seedList.size() != 1) {
      throw new Main.CliException(Main.USAGE, "--history " + history + ": writes one seed's history, but --seeds "
          + seeds + " names " + seedList.size() + ". Fix: run the seed you want alone, e.g. --seeds "
          + seedList.get(0) + " --history " + history);
    }
    System.out.printf("simulating %s: %d datacenters x %d partitions%s, %d sessions/dc, %s per seed, faults: %s,"
        + " checks: %s%n", p.name(), datacenters, partitions, replicas > 1 ? " x " + replicas + " replicas" : "", sessions, duration, faults.isEmpty() ? "none" : String.join(",", faults),
        String.join(",", checks));
    StringBuilder header = new StringBuilder(String.format("%8s %8s %8s %6s %6s %9s %7s", "SEED", "OPS", "OK", "INFO",
        "FAIL", "MESSAGES", "WALL"));
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
    long[] totals = new long[3]; // deliveries, wall, cpu of the simulations
    SeedReport[] last = new SeedReport[1];
    Map<String, long[]> noVerdict = new java.util.LinkedHashMap<>(); // checker -> seeds, first such seed
    Map<String, String> noVerdictWhy = new java.util.HashMap<>();
    try {
      SimRunner.runAll(sweep, p, seedList, checks, jobs, r -> {
        for (Result c : r.checks()) {
          if (c.vacuous()) {
            noVerdict.computeIfAbsent(c.checker(), k -> new long[] {0, r.seed()})[0]++;
            noVerdictWhy.putIfAbsent(c.checker(), c.note());
          }
        }
        totals[0] += r.result().deliveries();
        totals[1] += r.result().wallNanos();
        totals[2] += r.result().cpuNanos();
        printRow(r);
        if (!r.result().startFailures().isEmpty()) {
          throw notStarted(p, r.result().startFailures());
        }
        if (!r.ok()) {
          failed.add(r.seed());
        }
        last[0] = r;
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
    noVerdict.forEach((checker, n) -> System.out.printf("%s: no verdict on %d seed%s; seed %d: %s%n", checker, n[0],
        n[0] == 1 ? "" : "s", n[1], noVerdictWhy.get(checker)));
    if (history != null) {
      writeHistory(last[0]);
    }
    if (timeline != null) {
      SimTimelineFiles.write(last[0], timeline, p.name() + (txnWorkload == null ? "" : " " + txnWorkload));
    }
    if (shrink && !failed.isEmpty()) {
      shrink(p, SimRunner.run(spec.withTrace(true), p, failed.get(0), checks));
      return Main.FAILED;
    }
    for (long seed : failed.subList(0, Math.min(show, failed.size()))) {
      explain(SimRunner.run(spec.withTrace(true), p, seed, checks)); // same seed, same run, now traced
    }
    return failed.isEmpty() ? Main.OK : Main.FAILED;
  }

  /** Shrinks the failing run {@code r}, then explains the smaller run with its own replay command. */
  private void shrink(Protocol p, SeedReport r) {
    Shrinker.Knobs start = new Shrinker.Knobs(sessions, keys, SimLimits.DURATION.check(duration).toNanos() / 1000,
        new LinkedHashSet<>(faults));
    System.out.printf("%nshrinking seed %d (%d operations; %s): up to %d seeds per smaller input%n", r.seed(),
        r.result().history().size(), String.join(", ", failedChecks(r)), shrinkSeeds);
    Shrinker.Shrunk s = Shrinker.shrink(this::specOf, p, start, r, checks, shrinkSeeds,
        line -> System.out.println("  " + line));
    use(s.after());
    System.out.printf("shrunk in %d runs: %d -> %d operations, %d -> %d messages; %s -> %s%n", s.runs(),
        r.result().history().size(), s.report().result().history().size(), r.result().deliveries(),
        s.report().result().deliveries(), start.describe(), s.after().describe());
    explain(s.report());
  }

  private static List<String> failedChecks(SeedReport r) {
    List<String> out = new ArrayList<>();
    if (r.result().failed()) {
      out.add("the run failed");
    }
    r.checks().stream().filter(c -> !c.valid()).forEach(c -> out.add(c.checker() + " failed"));
    return out;
  }

  /** This command's spec with the shrinker's inputs (the options it reduces are set to them). */
  private SimSpec specOf(Shrinker.Knobs k) {
    use(k);
    return spec();
  }

  private void use(Shrinker.Knobs k) {
    sessions = k.sessionsPerDc();
    keys = k.keys();
    duration = (k.durationMicros() / 1000) + "ms";
    faults = new ArrayList<>(new java.util.TreeSet<>(k.faultKinds()));
  }

  /** Writes {@code r}'s history to {@link #history}, for {@code kvlab check}. */
  private void writeHistory(SeedReport r) {
    try {
      HistoryFiles.write(r.result().history(), history);
    } catch (java.io.IOException e) {
      throw new Main.CliException(Main.FAILED, "--history " + history + ": cannot write it (" + e.getMessage()
          + "). Fix: give a path in a writable directory");
    }
    System.out.printf("history of seed %d: %s (%d operations); check it with ./kvlab check %s --check %s%n",
        r.seed(), history, r.result().history().size(), history, String.join(",", checks));
  }

  /**
   * The error for servers that threw while starting (the first seed's): a configuration they refuse is bad usage,
   * anything else a failure of the protocol's code; either way no seed checked anything.
   */
  static Main.CliException notStarted(Protocol p, List<StartFailure> failures) {
    StartFailure first = failures.get(0);
    String which = failures.size() == 1 ? "server " + first.server() : failures.size() + " servers (first: "
        + first.server() + ")";
    String late = " (protocol " + p.name() + "'s checkParameters should refuse it before any server starts:"
        + " docs/writing-a-protocol.md)";
    if (first.cause() instanceof org.kvlab.api.ParameterException e) {
      return new Main.CliException(Main.USAGE, "--param " + e.parameter() + ": protocol " + p.name() + ": " + which
          + " refused to start in the simulator: " + e.problem() + ". Fix: " + e.fix() + late);
    }
    if (first.cause() instanceof org.kvlab.api.TopologyException e) {
      return new Main.CliException(Main.USAGE, "--" + e.key() + ": protocol " + p.name() + ": " + which
          + " refused to start in the simulator: " + e.problem() + ". Fix: " + e.fix() + late);
    }
    if (first.refusedConfiguration()) {
      return new Main.CliException(Main.USAGE, "protocol " + p.name() + ": " + which + " refused to start in the"
          + " simulator: " + first.cause().getMessage() + ". Fix: change what it refuses (--param, --datacenters,"
          + " --partitions)" + late);
    }
    return new Main.CliException(Main.FAILED, "protocol " + p.name() + ": " + which + " failed to start in the"
        + " simulator, so no operation ran: " + first.describe() + ". Fix: the protocol's server threw in its"
        + " constructor, bind or start; correct it there");
  }

  /** A failing seed in full: the replay command, the run's failures, each violation with its diagram. */
  private void explain(SeedReport r) {
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

  /** One row of the sweep's table. WALL is the seed's simulation (real time), not its checks. */
  private void printRow(SeedReport r) {
    History.Outcomes o = r.result().history().outcomes();
    StringBuilder row = new StringBuilder(String.format("%8d %8d %8d %6d %6d %9d %5.0fms", r.seed(),
        r.result().history().size(), o.ok(), o.info(), o.fail(), r.result().deliveries(), r.result().wallNanos() / 1e6));
    for (Result c : r.checks()) {
      row.append(String.format(" %-12s", !c.valid() ? c.violations().size() + " violations"
          : c.vacuous() ? "no verdict" : "ok"));
    }
    row.append(' ').append(org.kvlab.sim.Fault.summary(r.result().faults()));
    if (r.result().failed()) {
      row.append(" FAILED: ").append(r.result().failures().get(0));
    } else if (r.checkedNothing()) {
      row.append(" FAILED: no operation ended OK, nothing was checked");
    }
    System.out.println(row);
  }

  /** Every type --service-time overrides is one of the protocol's messages: a misspelt one must not cost nothing. */
  private void requireTypes(org.kvlab.sim.ServiceTime st) {
    if (st.perType().isEmpty() || protocol == null) {
      return;
    }
    org.kvlab.api.MessageTypes types = Protocols.byName(protocol).messages();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < types.size(); i++) {
      names.add(types.typeOf(i).getSimpleName());
    }
    for (String name : st.perType().keySet()) {
      if (!names.contains(name)) {
        String near = YamlReader.closest(name, names);
        throw new IllegalArgumentException("'" + name + "' is not a message type of protocol " + protocol + ". Fix: "
            + (near != null ? "did you mean '" + near + "'? " : "") + "use one of " + String.join(", ", names)
            + ", or perKB or offload");
      }
    }
  }

  /** Every --param names one of the protocol's parameters: a misspelt one must not fall back silently (exit 2). */
  static void requireDeclared(Protocol p, Map<String, String> params) {
    for (String name : params.keySet()) { // as a cluster file's params
      if (!p.parameters().containsKey(name)) {
        String near = YamlReader.closest(name, List.copyOf(p.parameters().keySet()));
        throw new Main.CliException(Main.USAGE, "--param " + name + ": not a parameter of protocol " + p.name()
            + ". Fix: " + (near != null ? "did you mean '" + near + "'? " : "remove it or use one the protocol"
            + " declares. ") + Protocols.describeParameters(p));
      }
    }
  }

  /**
   * The run the options describe, every value checked against its range first ({@link SimLimits}; exit 2 naming the
   * option and the range), so no seed runs on a setting that would check nothing or blame the protocol.
   */
  SimSpec spec() {
    try {
      SimLimits.DATACENTERS.check(datacenters);
      SimLimits.PARTITIONS.check(partitions);
      SimLimits.REPLICAS.check(replicas == null ? 1 : replicas);
      SimLimits.SESSIONS.check(sessions);
      SimLimits.KEYS.check(keys);
      SimLimits.GET_RATIO.check(getRatio);
      SimLimits.ROTX_RATIO.check(rotxRatio);
      SimLimits.ROTX_KEYS.check(rotxKeys);
      TRACE_ROWS.check(traceRows);
      JOBS.check(jobs);
      SHOW.check(show);
      SHRINK_SEEDS.check(shrinkSeeds);
      Duration d = SimLimits.DURATION.check(duration);
      Duration rttTime = SimLimits.RTT.check(rtt);
      Duration skew = SimLimits.MAX_SKEW.check(maxSkew);
      long bucket = timeline == null ? 0 : TIMELINE_BUCKET.check(timelineBucket).toNanos() / 1000;
      SimSpec spec = SimSpec.defaults().withTopology(datacenters, partitions, replicas == null ? 1 : replicas).withParams(new Params(params))
          .withNetwork(NetworkModel.uniform(datacenters, rttTime.toNanos() / 1e6)).withDurability(durability())
          .withDuration(d.toNanos() / 1000).withMaxSkewMillis(skew.toMillis()).withTimeline(bucket);
      if (serviceTime != null) {
        try {
          org.kvlab.sim.ServiceTime st = org.kvlab.sim.ServiceTime.parse(serviceTime);
          requireTypes(st);
          spec = spec.withServiceTime(st);
        } catch (IllegalArgumentException e) {
          throw new Main.CliException(Main.USAGE, "--service-time: " + e.getMessage());
        }
      }
      try {
        spec = spec.withFaultKinds(new LinkedHashSet<>(faults));
      } catch (IllegalArgumentException e) { // names the fault and the known ones
        throw new Main.CliException(Main.USAGE, "--faults: " + e.getMessage());
      }
      Workload w;
      try {
        w = new Workload(sessions, keys, getRatio, rotxRatio, rotxKeys, distribution, 2_000, null);
      } catch (IllegalArgumentException e) { // the distribution's name: all else is in range
        throw new Main.CliException(Main.USAGE, "--distribution: " + e.getMessage());
      }
      try {
        if (objectsPerReplica > 0 || locality != 1 || complex != 0) {
          if (objectsPerReplica <= 0) {
            throw new IllegalArgumentException("--locality and --complex need --objects-per-replica. Fix: add e.g."
                + " --objects-per-replica 1000");
          }
          w = w.withObjects(Workload.Objects.of(objectsPerReplica, locality).withComplex(complex, 2));
        }
        w = w.withOpenRatePerDc(openRate);
      } catch (IllegalArgumentException e) {
        throw new Main.CliException(Main.USAGE, e.getMessage());
      }
      return txnWorkload == null ? spec.withWorkload(w) : spec.withWorkload(w.withTxn(Workload.Txns.of(1.0,
          txnWorkload())));
    } catch (SimLimits.SettingException e) {
      throw new Main.CliException(Main.USAGE, "--" + e.getMessage());
    }
  }

  /** --txn-workload with its length, read share, locality and the key distribution, or a family with its options. */
  private TxnWorkload txnWorkload() {
    if (FamilyOptions.isFamily(txnWorkload)) {
      return TxnWorkload.of(family.family(txnWorkload));
    }
    String[] range = txnLength.split("\\.\\.", -1);
    try {
      if (range.length != 2) {
        throw new NumberFormatException();
      }
      return new TxnWorkload(txnWorkload, Integer.parseInt(range[0].trim()), Integer.parseInt(range[1].trim()),
          txnReadShare, distribution, txnLocality);
    } catch (NumberFormatException e) {
      throw new Main.CliException(Main.USAGE, "--txn-length: '" + txnLength + "' is not MIN..MAX. Fix: e.g."
          + " --txn-length 1..4");
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, "--txn-workload: " + e.getMessage());
    }
  }

  private Durability durability() {
    try {
      return Durability.valueOf(durability.trim().toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, "--durability " + durability + ": not a durability. Fix: "
          + YamlReader.fixWithSuggestion(durability, List.of("sync", "none"), "use sync or none"));
    }
  }

  String replay(long seed) {
    StringBuilder cmd = new StringBuilder("./kvlab sim --protocol " + protocol + " --seeds " + seed);
    if (!faults.isEmpty()) {
      cmd.append(" --faults ").append(String.join(",", faults));
    }
    cmd.append(" --check ").append(String.join(",", checks)).append(" --duration ").append(duration);
    Protocol p = Protocols.byName(protocol);
    if (datacenters != p.defaultTopology().datacenters() || partitions != p.defaultTopology().partitions()) {
      cmd.append(" --datacenters ").append(datacenters).append(" --partitions ").append(partitions);
    }
    if (replicas != null && replicas != p.defaultTopology().replicas()) {
      cmd.append(" --replicas ").append(replicas);
    }
    cmd.append(" --sessions ").append(sessions).append(" --keys ").append(keys).append(" --get-ratio ").append(getRatio);
    if (rotxRatio > 0) {
      cmd.append(" --rotx-ratio ").append(rotxRatio).append(" --rotx-keys ").append(rotxKeys);
    }
    if (objectsPerReplica > 0) {
      cmd.append(" --objects-per-replica ").append(objectsPerReplica).append(" --locality ").append(locality)
          .append(" --complex ").append(complex);
    }
    if (openRate > 0) {
      cmd.append(" --open-rate ").append(openRate);
    }
    if (txnWorkload != null) {
      cmd.append(" --txn-workload ").append(txnWorkload).append(FamilyOptions.isFamily(txnWorkload)
          ? family.replay(txnWorkload) : " --txn-length " + txnLength + " --txn-read-share " + txnReadShare
          + " --txn-locality " + txnLocality);
    }
    cmd.append(" --distribution ").append(distribution).append(" --rtt ").append(rtt).append(" --durability ")
        .append(durability).append(" --max-skew ").append(maxSkew);
    if (serviceTime != null) {
      cmd.append(" --service-time ").append(serviceTime);
    }
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
