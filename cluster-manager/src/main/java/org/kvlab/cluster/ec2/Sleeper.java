package org.kvlab.cluster.ec2;

import java.time.Duration;

/**
 * The monotonic time and the sleep every wait of the EC2 backend uses (instance states, eventual consistency,
 * spot capacity, deletable groups). {@link #REAL} outside tests; tests pass one whose sleep only advances its own
 * time, so waits of minutes take no real time.
 */
public interface Sleeper {
  Sleeper REAL = new Sleeper() {
    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public void sleep(Duration d) throws InterruptedException {
      Thread.sleep(d.toMillis());
    }
  };

  /** A monotonic time in nanoseconds (as {@link System#nanoTime()}). */
  long nanoTime();

  void sleep(Duration d) throws InterruptedException;
}
