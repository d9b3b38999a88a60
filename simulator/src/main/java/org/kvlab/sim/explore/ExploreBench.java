package org.kvlab.sim.explore;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import org.kvlab.api.Protocol;
import org.kvlab.sim.Shrinker;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/**
 * The measurements of docs/benchmarks/explore.md, for the evaluation programs of the protocol modules (each knows its
 * own mutants): per mutant, whether {@code explore} finds it, at what depth, after how many states and how much CPU
 * time, against how many random seeds {@code kvlab sim} needs; and states per CPU-second of a fixed exploration.
 * Times are the calling thread's CPU time (one core), robust on a shared machine. Prints nothing.
 */
public final class ExploreBench {
  private ExploreBench() {}

  /**
   * One mutant to measure.
   *
   * @param mutant its name in the table
   * @param exploration the small configuration explore searches, or null where explore cannot drive the mutant (the
   *     row then gives the random seeds and the shrink only; the page says why)
   * @param bounds explore's bounds
   * @param protocol the mutant (for the random seeds)
   * @param seedSpec the configuration random seeds run ({@code kvlab sim}'s); the first failing seed is shrunk by
   *     {@link Shrinker} over its sessions per datacenter, keys, duration and fault kinds, as {@code kvlab sim --shrink}
   * @param seedChecks the checkers of the seeds
   * @param maxSeeds seeds tried at most
   */
  public record Case(String mutant, Exploration exploration, Explorer.Bounds bounds, Protocol protocol,
      SimSpec seedSpec, List<String> seedChecks, int maxSeeds) {}

  /**
   * @param found explore found a violation; null where explore does not drive the mutant
   * @param depth its schedule's length (0 if not found; shrunk for random and pct walks)
   * @param states distinct states explored
   * @param cpuSeconds explore's CPU time
   * @param seedsNeeded the first failing seed of {@code kvlab sim} (seeds 1, 2, ...), or 0 if none up to maxSeeds
   * @param seedCpuSeconds CPU time of those seeds
   * @param opsBefore the failing seed's operations (0 if none failed)
   * @param opsAfter the operations of the run {@code kvlab sim --shrink} shrinks it to (0 if none failed)
   */
  public record Row(String mutant, Boolean found, int depth, long states, double cpuSeconds, int seedsNeeded,
      int maxSeeds, double seedCpuSeconds, int opsBefore, int opsAfter) {
    /** One markdown table row. */
    public String markdown() {
      boolean yes = Boolean.TRUE.equals(found);
      return String.format("| %s | %s | %s | %s | %s | %s | %.2f | %s |", mutant, found == null ? "not driven" : yes
          ? "yes" : "no", yes ? Integer.toString(depth) : "-", found == null ? "-" : String.format("%,d", states),
          found == null ? "-" : String.format("%.2f", cpuSeconds),
          seedsNeeded > 0 ? Integer.toString(seedsNeeded) : "none in " + maxSeeds, seedCpuSeconds,
          seedsNeeded > 0 ? String.format("%,d → %,d", opsBefore, opsAfter) : "-");
    }
  }

  public static final String HEADER = "| mutant | found by explore | depth | states | explore CPU s | random seeds"
      + " `kvlab sim` needs | seeds CPU s | operations, `--shrink` |\n|---|---|---|---|---|---|---|---|";

  /** The table of {@code cases}: {@link #HEADER} and one row per case, measured in order. */
  public static String table(List<Case> cases) {
    StringBuilder out = new StringBuilder(HEADER).append('\n');
    cases.forEach(c -> out.append(measure(c).markdown()).append('\n'));
    return out.toString();
  }

  /** Seeds the shrinker searches per smaller input ({@code kvlab sim --shrink-seeds}'s default). */
  static final int SHRINK_SEEDS = 30;

  private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

  public static Row measure(Case c) {
    long t0 = MX.getCurrentThreadCpuTime();
    Explorer.Result r = c.exploration() == null ? null : new Explorer(c.exploration(), c.bounds()).run();
    boolean found = r != null && r.found() != null;
    int depth = found ? r.found().choices().size() : 0;
    if (found && !c.bounds().mode().equals("bfs")) { // as kvlab explore does: the shrunk schedule's length
      depth = ScheduleShrinker.shrink(c.exploration(), r.found().choices(), r.found().verdict().check(), 5_000).after()
          .size();
    }
    double exploreCpu = (MX.getCurrentThreadCpuTime() - t0) / 1e9;
    long t1 = MX.getCurrentThreadCpuTime();
    SeedReport failing = null;
    for (int seed = 1; seed <= c.maxSeeds() && failing == null; seed++) {
      SeedReport s = SimRunner.run(c.seedSpec().withTrace(false), c.protocol(), seed, c.seedChecks());
      failing = s.ok() ? null : s;
    }
    double seedCpu = (MX.getCurrentThreadCpuTime() - t1) / 1e9;
    int after = failing == null ? 0 : shrink(c, failing).report().result().history().size();
    return new Row(c.mutant(), r == null ? null : found, depth, r == null ? 0 : r.states(),
        exploreCpu, failing == null ? 0 : (int) failing.seed(), c.maxSeeds(), seedCpu,
        failing == null ? 0 : failing.result().history().size(), after);
  }

  /** {@code kvlab sim --shrink} on the failing seed: smaller sessions per datacenter, keys, duration, fault kinds. */
  static Shrinker.Shrunk shrink(Case c, SeedReport failing) {
    SimSpec base = c.seedSpec().withTrace(false);
    Shrinker.Knobs start = new Shrinker.Knobs(base.workload().sessionsPerDc(), base.workload().keys(),
        base.durationMicros(), base.faultKinds());
    return Shrinker.shrink(k -> base.withDuration(k.durationMicros()).withFaultKinds(k.faultKinds())
        .withWorkload(base.workload().withSessionsPerDc(k.sessionsPerDc()).withKeys(k.keys())), c.protocol(), start,
        failing, c.seedChecks(), SHRINK_SEEDS, line -> { });
  }

  /**
   * States per CPU-second of a BFS of {@code e} up to {@code maxStates} states (no self-check).
   *
   * @return the result and the CPU seconds it took
   */
  public record Throughput(String name, Explorer.Result result, double cpuSeconds) {
    public double statesPerCpuSecond() {
      return cpuSeconds == 0 ? 0 : result.states() / cpuSeconds;
    }

    public String markdown() {
      return String.format("| %s | %,d | %,d | %,d | %.2f | %,.0f |", name, result.states(), result.transitions(),
          result.events(), cpuSeconds, statesPerCpuSecond());
    }
  }

  public static final String THROUGHPUT_HEADER = "| configuration | states | transitions | events run (with replays) |"
      + " CPU s | states per CPU-second |\n|---|---|---|---|---|---|";

  public static Throughput throughput(String name, Exploration e, int maxDepth, long maxStates) {
    long t0 = MX.getCurrentThreadCpuTime();
    Explorer.Result r = new Explorer(e, new Explorer.Bounds("bfs", maxDepth, maxStates, 0, 1, false)).run();
    return new Throughput(name, r, (MX.getCurrentThreadCpuTime() - t0) / 1e9);
  }

  /**
   * The fast path against the reference path (every state restored by replaying its schedule from the initial
   * state) on a BFS of {@code e} up to {@code maxStates} states, interleaved {@code repetitions} times in this
   * thread: per path the median states per CPU-second, and the ratio. Both must visit the same states.
   */
  public static String speed(String name, Exploration e, int maxDepth, long maxStates, int repetitions) {
    List<Double> fast = new java.util.ArrayList<>();
    List<Double> reference = new java.util.ArrayList<>();
    Explorer.Result last = null;
    for (int i = -1; i < repetitions; i++) { // round -1 warms the JIT up and is not counted
      for (boolean ref : i % 2 == 0 ? new boolean[] {true, false} : new boolean[] {false, true}) {
        long t0 = MX.getCurrentThreadCpuTime();
        Explorer.Result r = new Explorer(e, new Explorer.Bounds("bfs", maxDepth, maxStates, 0, 1, false))
            .referencePath(ref).run();
        double cpu = (MX.getCurrentThreadCpuTime() - t0) / 1e9;
        if (last != null && (r.states() != last.states() || r.transitions() != last.transitions())) {
          throw new IllegalStateException("the fast and the reference path explored differently: " + r + " vs " + last);
        }
        last = r;
        if (i >= 0) {
          (ref ? reference : fast).add(r.states() / cpu);
        }
      }
    }
    java.util.Collections.sort(fast);
    java.util.Collections.sort(reference);
    double f = fast.get(fast.size() / 2);
    double ref = reference.get(reference.size() / 2);
    return String.format("| %s | %,d | %,d | %d | %,.0f | %,.0f | %.1f |", name, last.states(), last.transitions(),
        repetitions, ref, f, f / ref);
  }

  public static final String SPEED_HEADER = "| configuration | states | transitions | repetitions | reference: states per"
      + " CPU-second (median) | fast path: states per CPU-second (median) | ratio |\n|---|---|---|---|---|---|---|";

  /**
   * The states of a BFS of {@code e}, and the median states per CPU-second of {@code repetitions} of it after one not
   * counted, on the default path. It calls only the explorer's API of before the fast path (Explorer, its Bounds and
   * Result), so that a build of an older commit's explorer classes can run it too: two commits compared one JVM each,
   * interleaved.
   */
  public static String plain(Exploration e, int maxDepth, long maxStates, int repetitions) {
    List<Double> rates = new java.util.ArrayList<>();
    long states = 0;
    for (int i = -1; i < repetitions; i++) {
      long t0 = MX.getCurrentThreadCpuTime();
      states = new Explorer(e, new Explorer.Bounds("bfs", maxDepth, maxStates, 0, 1, false)).run().states();
      double cpu = (MX.getCurrentThreadCpuTime() - t0) / 1e9;
      if (i >= 0) {
        rates.add(states / cpu);
      }
    }
    java.util.Collections.sort(rates);
    return String.format("states %d, median states per CPU-second %.0f", states, rates.get(rates.size() / 2));
  }
}
