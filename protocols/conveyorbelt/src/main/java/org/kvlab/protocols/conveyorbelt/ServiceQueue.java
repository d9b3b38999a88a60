package org.kvlab.protocols.conveyorbelt;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.function.BiConsumer;

/**
 * A server's executor with a service time: operations run one at a time, first in first out, each
 * {@code serviceMicros} after the previous one finished (the seed's micro-benchmark operation "takes 5 ms"). A timer of
 * the server's event loop models the time, so the same queue holds in the simulator (virtual time) and on the runtime
 * (the loop stays free meanwhile: messages and requests keep arriving). With 0 an operation runs at once, inline.
 */
final class ServiceQueue {
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private final Duration service;
  private final BiConsumer<Duration, Runnable> after;
  private boolean busy;

  /** @param after the server's timer: runs the task after the duration, on the event loop */
  ServiceQueue(long serviceMicros, BiConsumer<Duration, Runnable> after) {
    this.service = Duration.ofNanos(serviceMicros * 1_000);
    this.after = after;
  }

  /** Runs {@code task} once every task submitted before it ran and its own service time passed. */
  void submit(Runnable task) {
    if (service.isZero()) {
      task.run();
      return;
    }
    tasks.add(task);
    if (!busy) {
      next();
    }
  }

  private void next() {
    Runnable t = tasks.poll();
    busy = t != null;
    if (t != null) {
      after.accept(service, () -> {
        t.run();
        next();
      });
    }
  }

  /** Operations waiting or in service. */
  int backlog() {
    return tasks.size() + (busy ? 1 : 0);
  }
}
