package org.kvlab.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.kvlab.api.Clock;
import org.kvlab.api.ServerContext;
import org.kvlab.api.Timer;
import org.junit.jupiter.api.Test;

/** The idle back-off on a virtual clock: fast while engaged, slow when idle, at once when woken by a lease. */
class PacerTest {
  /** A virtual-time event queue standing in for the server's context (time and timers only). */
  private static final class VirtualTime {
    record Event(long at, long seq, Runnable task, boolean[] cancelled) {}

    long nowMicros;
    long seq;
    final PriorityQueue<Event> queue = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at)
        : Long.compare(a.seq, b.seq));

    ServerContext context() {
      Clock clock = new Clock() {
        @Override
        public long millis() {
          return nowMicros / 1000;
        }

        @Override
        public long micros() {
          return nowMicros;
        }
      };
      return (ServerContext) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ServerContext.class},
          (proxy, method, args) -> switch (method.getName()) {
            case "clock" -> clock;
            case "after" -> {
              boolean[] cancelled = {false};
              queue.add(new Event(nowMicros + ((Duration) args[0]).toNanos() / 1000, seq++, (Runnable) args[1], cancelled));
              yield (Timer) () -> cancelled[0] = true;
            }
            default -> throw new UnsupportedOperationException(method.getName());
          });
    }

    void runUntil(long micros) {
      while (!queue.isEmpty() && queue.peek().at <= micros) {
        Event e = queue.poll();
        nowMicros = e.at;
        if (!e.cancelled[0]) {
          e.task.run();
        }
      }
      nowMicros = micros;
    }
  }

  private static final long MS = 1000;

  @Test
  void when_noWorkArrives_then_itStepsFastForIdleAfterThenOncePerIdlePeriod() {
    VirtualTime vt = new VirtualTime();
    List<Long> steps = new ArrayList<>();
    Pacer pacer = new Pacer(vt.context(), Duration.ofMillis(10), Duration.ofSeconds(1), Duration.ofSeconds(1), steps::add);
    pacer.start();
    vt.runUntil(1_000 * MS);
    assertEquals(100, steps.size(), "every 10 ms during the first second (engaged from the start): " + steps);
    assertTrue(pacer.lease() == 0, "idle after idleAfter: no lease to hand out");
    steps.clear();
    vt.runUntil(11_000 * MS);
    assertTrue(steps.size() >= 9 && steps.size() <= 11, "about once a second while idle: " + steps);
  }

  @Test
  void when_idle_then_stepsLandOnMultiplesOfTheIdlePeriodOfTheClock() {
    VirtualTime vt = new VirtualTime();
    vt.nowMicros = 12_345_678; // started at an arbitrary moment
    List<Long> steps = new ArrayList<>();
    Pacer pacer = new Pacer(vt.context(), Duration.ofMillis(10), Duration.ofSeconds(1), Duration.ofSeconds(1), steps::add);
    pacer.start();
    vt.runUntil(20_000 * MS);
    List<Long> idle = steps.stream().filter(t -> t > 12_345_678 + 1_000 * MS).toList();
    assertTrue(idle.size() >= 5, "idle steps: " + idle);
    for (long t : idle) {
      assertEquals(0, t % (1_000 * MS), "idle step at a multiple of 1 s: " + idle);
    }
    for (int i = 1; i < idle.size(); i++) {
      assertEquals(1_000 * MS, idle.get(i) - idle.get(i - 1), "one idle period apart: " + idle);
    }
    // the last fast step and the first idle step are at least one fast period apart
    long lastFast = steps.stream().filter(t -> t <= 12_345_678 + 1_000 * MS).mapToLong(Long::longValue).max().orElseThrow();
    assertTrue(idle.get(0) - lastFast >= 10 * MS, "first idle step " + idle.get(0) + " after last fast step " + lastFast);
  }

  @Test
  void when_busyOrAPeersLeaseArrives_then_anIdleServerStepsAtOnceAndFastUntilTheLeaseEnds() {
    VirtualTime vt = new VirtualTime();
    List<Long> steps = new ArrayList<>();
    Pacer pacer = new Pacer(vt.context(), Duration.ofMillis(10), Duration.ofSeconds(1), Duration.ofSeconds(1), steps::add);
    pacer.start();
    vt.runUntil(5_500 * MS); // idle by now
    steps.clear();
    pacer.engage(vt.nowMicros + 200 * MS); // a peer's lease: engaged for 200 ms more
    assertEquals(List.of(5_500 * MS), steps, "stepped at once when woken");
    assertEquals(vt.nowMicros + 200 * MS, pacer.lease(), "passes the lease on");
    vt.runUntil(5_700 * MS);
    assertEquals(21, steps.size(), "fast (10 ms) while the lease lasts: " + steps);
    steps.clear();
    pacer.engage(vt.nowMicros - 1); // an expired lease wakes nothing
    assertEquals(List.of(), steps);
    pacer.busy(); // own work: engaged for idleAfter
    assertEquals(1, steps.size());
    vt.runUntil(6_700 * MS);
    assertTrue(steps.size() >= 100, "fast for idleAfter after busy(): " + steps.size());
  }
}
