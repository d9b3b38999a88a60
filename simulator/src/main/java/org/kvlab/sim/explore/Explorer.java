package org.kvlab.sim.explore;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.kvlab.sim.ControlledRun;

/**
 * Systematic exploration of an {@link Exploration}'s runs ({@code kvlab explore}): every enabled event of a state is a
 * branch ({@link ControlledRun#enabled()}); states already visited (same {@link ControlledRun#fingerprint()}) are not
 * expanded again; protocol invariants are checked at every state (a violated one fails the run), the checkers on every
 * completed history. Modes:
 * <ul>
 *   <li>{@code bfs}: breadth first, so the first violation found has a shortest schedule; exhaustive within the
 *       depth bound when it ends without a violation and without hitting the state or time bound.</li>
 *   <li>{@code random}: random walks from the initial state to the depth bound, a uniform choice at each step.</li>
 *   <li>{@code pct}: walks under a prioritized scheduler (PCT, Burckhardt et al. 2010): each actor (a server or a
 *       session, the receiver of a message) gets a random priority, the enabled event of the highest-priority actor
 *       runs, and at {@link #PCT_CHANGES} random steps the running actor drops to the lowest priority.</li>
 * </ul>
 * A state is restored by replaying its schedule from the initial state (the run is deterministic), so a state costs
 * its depth in events; with {@code selfCheck}, every replay is compared with the fingerprint the state had when it
 * was found, and a difference stops the exploration (the protocol or the simulator is not deterministic).
 */
public final class Explorer {
  /** Priority change points of a PCT walk (its bug depth d is one more). */
  public static final int PCT_CHANGES = 2;

  public static final List<String> MODES = List.of("bfs", "random", "pct");

  /**
   * The bounds of one exploration.
   *
   * @param mode bfs, random or pct
   * @param maxDepth events per schedule at most
   * @param maxStates distinct states at most (random, pct: also walks at most)
   * @param timeLimitMillis wall-clock bound, 0 for none
   * @param seed the random and pct modes' choices
   * @param selfCheck compare every replay's fingerprint with the recorded one
   */
  public record Bounds(String mode, int maxDepth, long maxStates, long timeLimitMillis, long seed, boolean selfCheck) {
    public Bounds {
      if (!MODES.contains(mode)) {
        throw new IllegalArgumentException("unknown mode '" + mode + "'. Fix: use bfs, random or pct");
      }
      if (maxDepth < 1) {
        throw new IllegalArgumentException("the depth bound must be at least 1, got " + maxDepth
            + ". Fix: e.g. --max-depth 30");
      }
      if (maxStates < 1) {
        throw new IllegalArgumentException("the state bound must be at least 1, got " + maxStates
            + ". Fix: e.g. --max-states 100000");
      }
      if (timeLimitMillis < 0) {
        throw new IllegalArgumentException("the time limit must not be negative. Fix: e.g. --time-limit 60s");
      }
    }
  }

  /**
   * A violation and the schedule that reaches it.
   *
   * @param choices the events, in order, from the initial state
   * @param verdict what is wrong there
   * @param run the run replayed to that state (its history and trace, for the diagram)
   */
  public record Found(List<String> choices, Exploration.Verdict verdict, ControlledRun run) {}

  /**
   * What an exploration did.
   *
   * @param states distinct states visited (the initial one included)
   * @param transitions events taken to reach them (replays not counted)
   * @param events every event run, replays included (the cost)
   * @param completed completed histories checked
   * @param maxDepth the deepest state reached
   * @param nanos wall-clock time
   * @param exhausted bfs: every state within the depth bound was visited (the result holds for all of them)
   * @param stop why it stopped: "violation", "exhausted", "max-states", "time-limit", "walks done"
   * @param found the first violation, or null
   * @param replaysChecked replays whose fingerprint was compared (selfCheck)
   */
  public record Result(long states, long transitions, long events, long completed, int maxDepth, long nanos,
      boolean exhausted, String stop, Found found, long replaysChecked) {
    /** States per second of wall-clock time. */
    public double statesPerSecond() {
      return nanos == 0 ? 0 : states * 1e9 / nanos;
    }
  }

  private final Exploration exploration;
  private final Bounds bounds;
  private final LongSet visited = new LongSet();
  private long transitions;
  private long events;
  private long completed;
  private int deepest;
  private long replaysChecked;
  private long start;

  public Explorer(Exploration exploration, Bounds bounds) {
    this.exploration = exploration;
    this.bounds = bounds;
  }

  private boolean referencePath;

  /**
   * With {@code true}, the reference path: the search records the trace, as before the fast path (for tests and the
   * speed benchmark, which compare the two). Both restore every state by replaying its schedule from the initial
   * state; the fast path runs without the trace and replays a violation's schedule with it.
   */
  public Explorer referencePath(boolean on) {
    this.referencePath = on;
    return this;
  }

  /** The fingerprints of the states visited so far (after {@link #run()}: all of them), sorted. */
  public long[] visitedFingerprints() {
    long[] out = visited.toArray();
    java.util.Arrays.sort(out);
    return out;
  }

  public Result run() {
    start = System.nanoTime();
    // the fast path searches without the trace (the diagram's record, not part of the state) and draws only the run
    // of a violation, replayed with it
    search = referencePath ? exploration : new Exploration(exploration.spec().withTrace(false),
        exploration.protocol(), exploration.scripts(), exploration.maxCrashes(), exploration.horizonMicros(),
        exploration.checks(), exploration.seed());
    ControlledRun root = search.start();
    visited.add(root.fingerprint());
    Exploration.Verdict v = search.verdict(root);
    if (v != null) {
      return result(false, "violation", found(List.of(), v, root));
    }
    return bounds.mode().equals("bfs") ? bfs(root) : walks();
  }

  /** The exploration searched: {@link #exploration}, on the fast path without the trace. */
  private Exploration search;

  /** The violation {@code v} after {@code choices}; on the fast path, the run is replayed with its trace. */
  private Found found(List<String> choices, Exploration.Verdict v, ControlledRun run) {
    return new Found(List.copyOf(choices), v, search == exploration ? run : exploration.replay(choices));
  }

  private record Node(List<String> choices, List<String> enabled, long fingerprint) {}

  /**
   * Breadth first; every expansion restores its state by replay. (Keeping the frontier's runs alive instead, so that a
   * state's last event is taken on its own run, measured slower: see docs/benchmarks/explore.md.)
   */
  private Result bfs(ControlledRun root) {
    ArrayDeque<Node> frontier = new ArrayDeque<>();
    frontier.add(new Node(List.of(), root.enabled(), root.fingerprint()));
    boolean cut = false;
    while (!frontier.isEmpty()) {
      Node node = frontier.pollFirst();
      if (node.choices().size() >= bounds.maxDepth()) {
        cut |= !node.enabled().isEmpty();
        continue;
      }
      for (String choice : node.enabled()) {
        String stop = stopReason();
        if (stop != null) {
          return result(false, stop, null);
        }
        ControlledRun run = replayChecked(node.choices(), node.fingerprint());
        run.take(choice);
        transitions++;
        events++;
        List<String> choices = new ArrayList<>(node.choices());
        choices.add(choice);
        deepest = Math.max(deepest, choices.size());
        Exploration.Verdict v = search.verdict(run);
        if (v != null) {
          return result(false, "violation", found(choices, v, run));
        }
        long fp = run.fingerprint();
        if (!visited.add(fp)) {
          continue;
        }
        if (run.complete()) {
          completed++;
          continue; // a leaf: its history is checked, the rest cannot change it
        }
        frontier.addLast(new Node(List.copyOf(choices), run.enabled(), fp));
      }
    }
    return result(!cut, cut ? "depth bound" : "exhausted", null);
  }

  /** The state after {@code choices}, replayed; with selfCheck, its fingerprint must be {@code expected}. */
  private ControlledRun replayChecked(List<String> choices, long expected) {
    ControlledRun run = search.replay(choices);
    events += choices.size();
    if (bounds.selfCheck()) {
      long fp = run.fingerprint();
      replaysChecked++;
      if (fp != expected) {
        java.util.Map<String, Long> before = run.fingerprintParts();
        java.util.Map<String, Long> now = search.replay(choices).fingerprintParts();
        List<String> differ = new ArrayList<>();
        before.forEach((k, x) -> {
          if (!x.equals(now.get(k))) {
            differ.add(k);
          }
        });
        throw new IllegalStateException("replaying " + choices + " reached another state than the first time"
            + " (fingerprint " + Long.toHexString(fp) + ", was " + Long.toHexString(expected) + "; differing between"
            + " two more replays: " + (differ.isEmpty() ? "none" : String.join(", ", differ)) + "): the protocol or"
            + " the simulator is not deterministic (a HashMap of objects without equals, the wall clock, a thread?)");
      }
    }
    return run;
  }

  private Result walks() {
    Random random = new Random(bounds.seed());
    boolean pct = bounds.mode().equals("pct");
    for (long walk = 0; walk < bounds.maxStates(); walk++) {
      ControlledRun run = search.start();
      Map<String, Double> priority = new HashMap<>();
      Set<Integer> changes = new HashSet<>();
      while (pct && changes.size() < Math.min(PCT_CHANGES, bounds.maxDepth())) {
        changes.add(1 + random.nextInt(bounds.maxDepth()));
      }
      List<Long> fingerprints = new ArrayList<>();
      for (int depth = 1; depth <= bounds.maxDepth(); depth++) {
        String stop = stopReason();
        if (stop != null) {
          return result(false, stop, null);
        }
        List<String> enabled = run.enabled();
        if (enabled.isEmpty()) {
          break;
        }
        String choice = pct ? highest(enabled, priority, random) : enabled.get(random.nextInt(enabled.size()));
        if (pct && changes.contains(depth)) {
          priority.put(actor(choice), -(double) depth); // the running actor drops below every other
        }
        run.take(choice);
        transitions++;
        events++;
        deepest = Math.max(deepest, depth);
        Exploration.Verdict v = search.verdict(run);
        if (v != null) {
          return result(false, "violation", found(run.taken(), v, run));
        }
        long fp = run.fingerprint();
        fingerprints.add(fp);
        visited.add(fp);
        if (run.complete()) {
          completed++;
          break;
        }
      }
      if (bounds.selfCheck()) {
        selfCheck(run.taken(), fingerprints);
      }
    }
    return result(false, "walks done", null);
  }

  /** Replays {@code choices} and compares the fingerprint after every event with {@code expected}. */
  private void selfCheck(List<String> choices, List<Long> expected) {
    List<Long> again = fingerprints(search, choices);
    events += choices.size();
    replaysChecked++;
    if (!again.equals(expected)) {
      throw new IllegalStateException("replaying " + choices + " gave other states than the first time: the protocol"
          + " or the simulator is not deterministic (a HashMap of objects without equals, the wall clock, a thread?)");
    }
  }

  /** The fingerprint after each event of {@code choices}, replayed from the initial state. */
  public static List<Long> fingerprints(Exploration exploration, List<String> choices) {
    ControlledRun run = exploration.start();
    List<Long> out = new ArrayList<>();
    for (String c : choices) {
      if (!run.take(c)) {
        throw new IllegalStateException("'" + c + "' not enabled on replay: enabled " + run.enabled());
      }
      out.add(run.fingerprint());
    }
    return out;
  }

  /** Who runs an event: a message's receiver, the owner of a timer, the session, the crashed server. */
  static String actor(String label) {
    int arrow = label.indexOf("->");
    return arrow >= 0 ? label.substring(arrow + 2) : label.substring(label.indexOf(' ') + 1);
  }

  private static String highest(List<String> enabled, Map<String, Double> priority, Random random) {
    String best = null;
    double top = Double.NEGATIVE_INFINITY;
    for (String e : enabled) {
      double p = priority.computeIfAbsent(actor(e), a -> random.nextDouble());
      if (p > top) {
        top = p;
        best = e;
      }
    }
    return best;
  }

  private String stopReason() {
    if (visited.size() >= bounds.maxStates()) {
      return "max-states";
    }
    if (bounds.timeLimitMillis() > 0 && System.nanoTime() - start > bounds.timeLimitMillis() * 1_000_000) {
      return "time-limit";
    }
    return null;
  }

  private Result result(boolean exhausted, String stop, Found found) {
    return new Result(visited.size(), transitions, events, completed, deepest, System.nanoTime() - start, exhausted,
        stop, found, replaysChecked);
  }
}
