package org.kvlab.sim.explore;

import java.util.ArrayList;
import java.util.List;
import org.kvlab.sim.ControlledRun;

/**
 * Shrinks a failing schedule the way Hypothesis shrinks a choice sequence: it deletes chunks of the recorded choices
 * (halves, then smaller chunks, down to single events) and swaps neighbours into label order, and keeps a change when
 * the run still fails the same check. A shortened list is replayed leniently: a choice that is not enabled when its
 * turn comes is skipped; the run stops at the first failure of that check; if the choices run out first, the run goes
 * on with the first enabled event that is not a crash (deliveries before invocations before timers) until it
 * completes or fails. The schedule kept is the events actually taken, so it replays exactly. Each kept change makes the
 * schedule shorter, or as long and earlier in label order, so the search ends.
 */
public final class ScheduleShrinker {
  private ScheduleShrinker() {}

  /**
   * The outcome.
   *
   * @param before the schedule given
   * @param after the shrunk schedule (replays exactly with {@link Exploration#replay})
   * @param verdict what still fails at its end
   * @param run the shrunk run (history and trace for the diagram)
   * @param replays runs tried
   */
  public record Shrunk(List<String> before, List<String> after, Exploration.Verdict verdict, ControlledRun run,
      int replays) {}

  /** Most events a lenient replay adds after the choices run out, per choice given. */
  static final int COMPLETION_FACTOR = 4;

  public static Shrunk shrink(Exploration e, List<String> failing, String check, int maxReplays) {
    int[] replays = {0};
    Attempt current = attempt(e, failing, check, replays);
    if (current == null) {
      throw new IllegalArgumentException("the schedule does not fail " + check + " when replayed: there is nothing to"
          + " shrink");
    }
    boolean improved = true;
    while (improved && replays[0] < maxReplays) {
      improved = false;
      for (int size = Math.max(1, current.taken.size() / 2); size >= 1 && !improved; size /= 2) {
        for (int i = 0; i + size <= current.taken.size() && replays[0] < maxReplays; i++) {
          List<String> candidate = new ArrayList<>(current.taken.subList(0, i));
          candidate.addAll(current.taken.subList(i + size, current.taken.size()));
          Attempt a = attempt(e, candidate, check, replays);
          if (a != null && smaller(a.taken, current.taken)) {
            current = a;
            improved = true;
            break;
          }
        }
      }
      for (int i = 0; i + 1 < current.taken.size() && !improved && replays[0] < maxReplays; i++) {
        if (current.taken.get(i + 1).compareTo(current.taken.get(i)) < 0) {
          List<String> candidate = new ArrayList<>(current.taken);
          candidate.set(i, current.taken.get(i + 1));
          candidate.set(i + 1, current.taken.get(i));
          Attempt a = attempt(e, candidate, check, replays);
          if (a != null && smaller(a.taken, current.taken)) {
            current = a;
            improved = true;
          }
        }
      }
    }
    return new Shrunk(List.copyOf(failing), current.taken, current.verdict, current.run, replays[0]);
  }

  /** Shortlex: fewer events, or as many and earlier in label order. */
  static boolean smaller(List<String> a, List<String> b) {
    if (a.size() != b.size()) {
      return a.size() < b.size();
    }
    for (int i = 0; i < a.size(); i++) {
      int c = a.get(i).compareTo(b.get(i));
      if (c != 0) {
        return c < 0;
      }
    }
    return false;
  }

  private record Attempt(List<String> taken, Exploration.Verdict verdict, ControlledRun run) {}

  /** The lenient replay of {@code choices}; null unless it fails {@code check}. */
  private static Attempt attempt(Exploration e, List<String> choices, String check, int[] replays) {
    replays[0]++;
    ControlledRun run = e.start();
    for (String c : choices) {
      if (run.take(c)) {
        Exploration.Verdict v = e.verdict(run);
        if (v != null) {
          return v.check().equals(check) ? new Attempt(run.taken(), v, run) : null;
        }
      }
    }
    int budget = COMPLETION_FACTOR * Math.max(choices.size(), 8);
    while (!run.complete() && budget-- > 0) {
      String next = run.enabled().stream().filter(l -> !l.startsWith("crash ")).findFirst().orElse(null);
      if (next == null) {
        return null;
      }
      run.take(next);
      Exploration.Verdict v = e.verdict(run);
      if (v != null) {
        return v.check().equals(check) ? new Attempt(run.taken(), v, run) : null;
      }
    }
    return null;
  }
}
