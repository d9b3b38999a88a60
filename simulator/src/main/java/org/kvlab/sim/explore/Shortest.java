package org.kvlab.sim.explore;

/**
 * A mutant's shortest counterexample, checked the way the explore tests and the evaluation programs report it: BFS
 * finds a violation; its schedule replays to the same verdict; a BFS one event shallower finds none (so the schedule
 * is shortest, not only the first found). Prints nothing.
 *
 * @param result the BFS that found it
 * @param replayed the verdict the schedule replays to (null if it replays to none)
 * @param shallower the BFS bounded one event shorter (its {@code found()} is null when the schedule is shortest)
 */
public record Shortest(Explorer.Result result, Exploration.Verdict replayed, Explorer.Result shallower) {

  /** BFS of {@code e} within {@code maxDepth} events and {@code maxStates} states, with the replay self-check. */
  public static Shortest search(Exploration e, int maxDepth, long maxStates) {
    Explorer.Result r = bfs(e, maxDepth, maxStates);
    if (r.found() == null) {
      return new Shortest(r, null, null);
    }
    int depth = r.found().choices().size();
    return new Shortest(r, e.verdict(e.replay(r.found().choices())), depth <= 1 ? null
        : bfs(e, depth - 1, maxStates));
  }

  static Explorer.Result bfs(Exploration e, int maxDepth, long maxStates) {
    return new Explorer(e, new Explorer.Bounds("bfs", maxDepth, maxStates, 0, 1, true)).run();
  }

  public boolean found() {
    return result.found() != null;
  }

  /** The schedule's length, 0 if nothing was found. */
  public int depth() {
    return found() ? result.found().choices().size() : 0;
  }

  /** The check that failed ({@code causal}, {@code run} for an invariant), null if nothing was found. */
  public String check() {
    return found() ? result.found().verdict().check() : null;
  }

  /** The schedule replays to the violation it was found with. */
  public boolean replays() {
    return found() && replayed != null && replayed.description().equals(result.found().verdict().description());
  }

  /** No schedule one event shorter fails: the shallower BFS visited every state within its depth and found none. */
  public boolean shortest() {
    return found() && (shallower == null || shallower.found() == null
        && (shallower.exhausted() || shallower.stop().equals("depth bound")));
  }

  /** For an assertion's message: the schedule and the verdict, or the search's counts. */
  @Override
  public String toString() {
    return found() ? result.found().choices() + " " + result.found().verdict() : result.toString();
  }
}
