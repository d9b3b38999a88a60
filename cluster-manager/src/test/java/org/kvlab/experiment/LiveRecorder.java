package org.kvlab.experiment;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

/**
 * An {@link ExperimentListener} that records what it is told, in order, and checks that each run's run phase was
 * drawn live: some interval told while its clients still ran (not the one told once they had all exited, which
 * reads what the logs gained last) had throughput, and some had latencies. Public for other modules' tests.
 */
public final class LiveRecorder implements ExperimentListener {
  /** An interval, or a run's end (interval null). */
  public record Event(Interval interval, Results.RunResult finished) {}

  private final List<Event> events = new ArrayList<>();

  @Override
  public synchronized void interval(Interval interval) {
    events.add(new Event(interval, null));
  }

  @Override
  public synchronized void runFinished(Results.RunResult result) {
    events.add(new Event(null, result));
  }

  public synchronized List<Event> events() {
    return List.copyOf(events);
  }

  /**
   * The run phase's intervals of run {@code index} told while its clients ran: all of them but the last, which
   * {@link ExperimentRunner} tells after every client exited (and before their files are collected).
   */
  public synchronized List<Interval> whileRunning(int index) {
    List<Interval> phase = new ArrayList<>();
    for (Event e : events) {
      if (e.interval() != null && e.interval().run().index() == index && e.interval().phase().equals("run")) {
        phase.add(e.interval());
      }
    }
    return phase.isEmpty() ? phase : phase.subList(0, phase.size() - 1);
  }

  /** Every finished run was drawn live: throughput and latencies arrived while its clients ran. */
  public synchronized void assertLiveDuringEachRun() {
    List<Results.RunResult> finished = events.stream().map(Event::finished).filter(r -> r != null).toList();
    assertFalse(finished.isEmpty(), "no run finished: " + events);
    for (Results.RunResult r : finished) {
      List<Interval> live = whileRunning(r.index());
      assertTrue(live.stream().anyMatch(i -> i.opsPerSecond() > 0),
          "run " + r.id() + ": no throughput while its clients ran: " + live);
      assertTrue(live.stream().anyMatch(i -> i.latencies().containsKey(Interval.ALL)
              && i.latencies().get(Interval.ALL).count() > 0 && i.latencies().get(Interval.ALL).p50Micros() > 0),
          "run " + r.id() + ": no latencies while its clients ran: " + live);
      // a run's intervals all come before its end
      int end = events.indexOf(new Event(null, r));
      assertTrue(events.subList(end + 1, events.size()).stream()
          .noneMatch(e -> e.interval() != null && e.interval().run().index() == r.index()), "intervals after the end");
    }
  }
}
