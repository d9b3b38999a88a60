package org.kvlab.sim;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Random;

/**
 * The open-loop generator of one datacenter ({@link Workload#openRatePerDc()}): operations arrive at a mean rate (a
 * Poisson process in virtual time, from its own seeded stream), each taken by one of the datacenter's idle sessions;
 * with every session busy the arrival is skipped, so the sessions are the cap on operations in flight (seed 001
 * §10.3). Each session stays sequential, so the checkers see one operation at a time per session, as in closed loop.
 * The run's counters get {@link #ISSUED} and {@link #SKIPPED}, summed over datacenters.
 */
final class OpenLoop {
  /** Counter: operations the open-loop generators issued. */
  static final String ISSUED = "sim.openLoop.issued";
  /** Counter: arrivals skipped because every session of the datacenter had an operation in flight. */
  static final String SKIPPED = "sim.openLoop.skipped";

  private final Simulation sim;
  private final ArrayDeque<SimSession> idle;
  private final double meanGapMicros;
  private final Random random;
  long issued;
  long skipped;

  OpenLoop(Simulation sim, List<SimSession> sessions, double perSecond) {
    this.sim = sim;
    this.idle = new ArrayDeque<>(sessions);
    this.meanGapMicros = 1e6 / perSecond;
    this.random = new SimRandom(sim.random.nextLong());
    sim.at(sim.now + gap(), this::arrive);
  }

  /** The next inter-arrival time: exponential with the mean gap, at least 1 µs. */
  private long gap() {
    return Math.max(1, Math.round(-Math.log(1 - random.nextDouble()) * meanGapMicros));
  }

  private void arrive() {
    if (sim.now >= sim.spec.durationMicros() || sim.stopped) {
      return;
    }
    SimSession s = idle.pollFirst();
    if (s == null) {
      skipped++;
    } else {
      issued++;
      s.issue(() -> idle.addLast(s));
    }
    sim.at(sim.now + gap(), this::arrive);
  }
}
