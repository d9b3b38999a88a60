package org.kvlab.cluster.ec2;

import java.time.Duration;

/** A {@link Sleeper} whose sleep only advances its own time (waits of minutes take none); counts what was slept. */
final class FakeSleeper implements Sleeper {
  long now;
  Duration slept = Duration.ZERO;
  int sleeps;
  /** Run at each sleep (e.g. to move a fake instance to its next state). */
  Runnable onSleep = () -> { };

  @Override
  public long nanoTime() {
    return now;
  }

  @Override
  public void sleep(Duration d) {
    now += d.toNanos();
    slept = slept.plus(d);
    sleeps++;
    onSleep.run();
  }
}
