package org.kvlab.sim;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;
import org.kvlab.api.Protocol;
import org.kvlab.check.Result;
import org.kvlab.sim.SimRunner.SeedReport;

/**
 * Finds a smaller run that still fails the same check ({@code kvlab sim --shrink}; issue 35). The simulator draws a
 * seed's whole run (workload, faults, delays) from one random stream, so removing one operation or fault changes
 * everything after it; the shrinker therefore reduces the run's <em>inputs</em> — shorter workload, fewer sessions,
 * fewer keys, fewer fault kinds — and for each smaller input searches seeds for one whose run still fails a check that
 * failed before (or fails the run the same way: a protocol invariant, a start failure), keeping a reduction when it
 * does. Passes repeat until no reduction keeps the failure; then, among the seeds tried at the final inputs, the one
 * whose failing run has the fewest operations is kept. Every run is an ordinary seed of an ordinary spec, so the
 * result replays exactly with {@code kvlab sim}.
 */
public final class Shrinker {
  private Shrinker() {}

  /**
   * The inputs the shrinker reduces.
   *
   * @param sessionsPerDc client sessions per datacenter
   * @param keys the key space
   * @param durationMicros the workload's simulated time
   * @param faultKinds the fault kinds drawn
   */
  public record Knobs(int sessionsPerDc, int keys, long durationMicros, Set<String> faultKinds) {
    public Knobs {
      faultKinds = Set.copyOf(faultKinds);
    }

    /** E.g. {@code 1 session/dc, 1 key, 2ms, faults none}. */
    public String describe() {
      return String.format("%d session%s/dc, %d key%s, %s, faults %s", sessionsPerDc, sessionsPerDc == 1 ? "" : "s",
          keys, keys == 1 ? "" : "s", Fault.ms(durationMicros), faultKinds.isEmpty() ? "none"
              : String.join(",", new TreeSet<>(faultKinds)));
    }
  }

  /** The outcome: the smallest failing run found, the steps kept, and how many runs the search took. */
  public record Shrunk(Knobs before, SeedReport original, Knobs after, SeedReport report, List<String> steps,
      int runs) {}

  /** The shortest workload the shrinker tries. */
  static final long MIN_DURATION_MICROS = 2_000;

  /**
   * @param spec makes the spec of the given inputs (the caller's other settings unchanged)
   * @param original the failing run to shrink (its seed, its checks)
   * @param checks the checkers to run
   * @param seedsPerStep seeds searched per candidate input (besides the current seed)
   * @param progress one line per step (kept or not), for a front end to show; not printed here
   */
  public static Shrunk shrink(Function<Knobs, SimSpec> spec, Protocol protocol, Knobs start, SeedReport original,
      List<String> checks, int seedsPerStep, Consumer<String> progress) {
    if (original.ok()) {
      throw new IllegalArgumentException("seed " + original.seed() + " passed: there is nothing to shrink");
    }
    Set<String> target = failed(original);
    Knobs current = start;
    SeedReport best = original;
    List<String> steps = new ArrayList<>();
    int[] runs = {0};
    boolean progressed = true;
    while (progressed) {
      progressed = false;
      for (Knobs candidate : candidates(current)) {
        SeedReport found = search(spec.apply(candidate), protocol, best.seed(), checks, seedsPerStep, target, runs,
            false);
        String line = current.describe() + " -> " + candidate.describe();
        if (found != null) {
          steps.add(line + ": seed " + found.seed() + ", " + found.result().history().size() + " operations");
          progress.accept("kept " + steps.get(steps.size() - 1));
          current = candidate;
          best = found;
          progressed = true;
          break; // the next pass starts from the smaller inputs
        }
        progress.accept("no failing seed at " + candidate.describe());
      }
    }
    SeedReport smallest = search(spec.apply(current), protocol, best.seed(), checks, seedsPerStep, target, runs, true);
    if (smallest != null && smallest.result().history().size() < best.result().history().size()) {
      steps.add("seed " + best.seed() + " -> seed " + smallest.seed() + " at the same inputs: "
          + smallest.result().history().size() + " operations");
      best = smallest;
    }
    if (best != original) { // the searches run untraced; only the run a front end explains needs its trace
      best = SimRunner.run(spec.apply(current).withTrace(true), protocol, best.seed(), checks);
    }
    return new Shrunk(start, original, current, best, steps, runs[0]);
  }

  /**
   * What failed in {@code r}: the checkers that found a violation; "run" only when no checker did and the run itself
   * failed (a protocol invariant, an exception): a smaller run that fails differently is not the same bug.
   */
  static Set<String> failed(SeedReport r) {
    Set<String> out = new LinkedHashSet<>();
    for (Result c : r.checks()) {
      if (!c.valid()) {
        out.add(c.checker());
      }
    }
    if (out.isEmpty() && r.result().failed()) {
      out.add("run");
    }
    return out;
  }

  /** Smaller inputs to try, strongest reductions first (durations in whole milliseconds, as the CLI gives them). */
  static List<Knobs> candidates(Knobs k) {
    List<Knobs> out = new ArrayList<>();
    for (long d : new long[] {k.durationMicros() / 8 / 1000 * 1000, k.durationMicros() / 2 / 1000 * 1000,
        k.durationMicros() * 3 / 4 / 1000 * 1000}) {
      if (d >= MIN_DURATION_MICROS && d < k.durationMicros()) {
        out.add(new Knobs(k.sessionsPerDc(), k.keys(), d, k.faultKinds()));
      }
    }
    for (int s : new int[] {1, k.sessionsPerDc() - 1}) {
      if (s >= 1 && s < k.sessionsPerDc() && out.stream().noneMatch(o -> o.sessionsPerDc() == s)) {
        out.add(new Knobs(s, k.keys(), k.durationMicros(), k.faultKinds()));
      }
    }
    for (int n : new int[] {1, 2, k.keys() / 2}) {
      if (n >= 1 && n < k.keys() && out.stream().noneMatch(o -> o.keys() == n)) {
        out.add(new Knobs(k.sessionsPerDc(), n, k.durationMicros(), k.faultKinds()));
      }
    }
    for (String f : new TreeSet<>(k.faultKinds())) {
      Set<String> fewer = new TreeSet<>(k.faultKinds());
      fewer.remove(f);
      out.add(new Knobs(k.sessionsPerDc(), k.keys(), k.durationMicros(), fewer));
    }
    return out;
  }

  /**
   * The first seed (the current one, then 1..seedsPerStep) whose run fails a target check; with {@code smallest},
   * the failing one of them with the fewest operations. Null if none fails.
   */
  private static SeedReport search(SimSpec spec, Protocol protocol, long current, List<String> checks,
      int seedsPerStep, Set<String> target, int[] runs, boolean smallest) {
    SimSpec untraced = spec.withTrace(false);
    List<Long> seeds = new ArrayList<>();
    seeds.add(current);
    for (long s = 1; s <= seedsPerStep; s++) {
      if (s != current) {
        seeds.add(s);
      }
    }
    SeedReport best = null;
    for (long seed : seeds) {
      SeedReport r;
      try {
        r = SimRunner.run(untraced, protocol, seed, checks);
      } catch (IllegalArgumentException e) {
        return null; // the reduced inputs make no valid workload (e.g. too few keys for a transaction): not smaller
      }
      runs[0]++;
      if (!r.result().startFailures().isEmpty()) {
        return null; // the protocol refuses these inputs: no seed will do
      }
      boolean fails = failed(r).stream().anyMatch(target::contains);
      if (fails && (best == null || r.result().history().size() < best.result().history().size())) {
        best = r;
        if (!smallest) {
          break;
        }
      }
    }
    return best;
  }
}
