package org.kvlab.designer.sim;

import java.util.ArrayList;
import java.util.List;
import org.kvlab.sim.ControlledRun;
import org.kvlab.sim.explore.Exploration;
import org.kvlab.sim.explore.Schedule;

/**
 * The branches of one small run, as the Branch tab shows them (issue 35): each branch is a schedule of chosen events
 * ({@link ControlledRun} labels) of the same exploration. The user takes any enabled event next (a branch grows), or
 * goes back to any step and branches there (a new branch with the events before it); the run of a branch is its
 * schedule replayed, so every branch is exactly reproducible and saves as a schedule file. No JavaFX here.
 */
public final class Branches {
  /** A branch: its name and its events from the initial state. */
  public record Branch(String name, List<String> choices) {
    public Branch {
      choices = List.copyOf(choices);
    }
  }

  private final Exploration exploration;
  private final Schedule template;
  private final List<Branch> branches = new ArrayList<>();
  private int current;
  private ControlledRun run;

  /** The branches of {@code template}'s run; the first, "main", is its schedule. */
  public Branches(Exploration exploration, Schedule template) {
    this.exploration = exploration;
    this.template = template;
    branches.add(new Branch("main", template.choices()));
    run = exploration.replay(template.choices());
  }

  public List<Branch> branches() {
    return List.copyOf(branches);
  }

  public Branch current() {
    return branches.get(current);
  }

  public int currentIndex() {
    return current;
  }

  public void select(int index) {
    if (index != current) {
      current = index;
      run = exploration.replay(current().choices());
    }
  }

  /** The current branch's run at its end (history, trace, state). */
  public ControlledRun run() {
    return run;
  }

  /** The events enabled at the end of the current branch. */
  public List<String> enabled() {
    return run.enabled();
  }

  /** Takes enabled event {@code label} next: the current branch grows by it. */
  public void take(String label) {
    if (!run.take(label)) {
      throw new IllegalArgumentException("'" + label + "' is not enabled now (enabled: " + run.enabled() + ")");
    }
    branches.set(current, new Branch(current().name(), run.taken()));
  }

  /**
   * A new branch with the current branch's first {@code steps} events, made current: the run continues from there
   * with whatever is taken next.
   */
  public Branch branchAt(int steps) {
    List<String> prefix = current().choices().subList(0, Math.max(0, Math.min(steps, current().choices().size())));
    Branch b = new Branch("branch " + branches.size(), prefix);
    branches.add(b);
    current = branches.size() - 1;
    run = exploration.replay(prefix);
    return b;
  }

  /** What fails at the end of the current branch (a protocol invariant, a checker on a completed history), or null. */
  public Exploration.Verdict verdict() {
    return exploration.verdict(run);
  }

  /** The first step at which two branches took different events (the shorter one's length if one extends the other). */
  public static int divergence(Branch a, Branch b) {
    int n = Math.min(a.choices().size(), b.choices().size());
    for (int i = 0; i < n; i++) {
      if (!a.choices().get(i).equals(b.choices().get(i))) {
        return i;
      }
    }
    return n;
  }

  /** The current branch as a schedule file's content. */
  public Schedule schedule() {
    Exploration.Verdict v = verdict();
    return template.withChoices(current().choices(), v == null ? null : v.check() + ": " + v.description());
  }
}
