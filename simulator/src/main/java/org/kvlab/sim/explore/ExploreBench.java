package org.kvlab.sim.explore;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import org.kvlab.api.Protocol;
import org.kvlab.sim.SimRunner;
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
   * @param exploration the small configuration explore searches
   * @param bounds explore's bounds
   * @param protocol the mutant (for the random seeds)
   * @param seedSpec the configuration random seeds run ({@code kvlab sim}'s)
   * @param seedChecks the checkers of the seeds
   * @param maxSeeds seeds tried at most
   */
  public record Case(String mutant, Exploration exploration, Explorer.Bounds bounds, Protocol protocol,
      SimSpec seedSpec, List<String> seedChecks, int maxSeeds) {}

  /**
   * @param found explore found a violation
   * @param depth its schedule's length (0 if not found)
   * @param states distinct states explored
   * @param cpuSeconds explore's CPU time
   * @param seedsNeeded the first failing seed of {@code kvlab sim} (seeds 1, 2, ...), or 0 if none up to maxSeeds
   * @param seedCpuSeconds CPU time of those seeds
   */
  public record Row(String mutant, boolean found, int depth, long states, double cpuSeconds, int seedsNeeded,
      int maxSeeds, double seedCpuSeconds) {
    /** One markdown table row. */
    public String markdown() {
      return String.format("| %s | %s | %s | %,d | %.2f | %s | %.2f |", mutant, found ? "yes" : "no",
          found ? Integer.toString(depth) : "-", states, cpuSeconds,
          seedsNeeded > 0 ? Integer.toString(seedsNeeded) : "none in " + maxSeeds, seedCpuSeconds);
    }
  }

  public static final String HEADER = "| mutant | found by explore | depth | states | explore CPU s | random seeds"
      + " `kvlab sim` needs | seeds CPU s |\n|---|---|---|---|---|---|---|";

  private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

  public static Row measure(Case c) {
    long t0 = MX.getCurrentThreadCpuTime();
    Explorer.Result r = new Explorer(c.exploration(), c.bounds()).run();
    double exploreCpu = (MX.getCurrentThreadCpuTime() - t0) / 1e9;
    long t1 = MX.getCurrentThreadCpuTime();
    int needed = 0;
    for (int seed = 1; seed <= c.maxSeeds() && needed == 0; seed++) {
      if (!SimRunner.run(c.seedSpec().withTrace(false), c.protocol(), seed, c.seedChecks()).ok()) {
        needed = seed;
      }
    }
    double seedCpu = (MX.getCurrentThreadCpuTime() - t1) / 1e9;
    return new Row(c.mutant(), r.found() != null, r.found() == null ? 0 : r.found().choices().size(), r.states(),
        exploreCpu, needed, c.maxSeeds(), seedCpu);
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
