package org.kvlab.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * The closed-loop load: {@code sessions} threads, each issuing one blocking operation after the other with no
 * think time. Operations completing during the warm-up are discarded; those completing inside the measurement
 * window are counted and their latency (microseconds, from call to return) recorded.
 */
final class ClosedLoop {
  /** One blocking operation of session {@code session}. */
  interface Op {
    void run(int session, SplittableRandom random) throws Exception;
  }

  record Result(long ops, long errors, String firstError, double seconds, Histogram latencyMicros) {
    double opsPerSecond() {
      return ops / seconds;
    }
  }

  private static final int WARMUP = 0;
  private static final int MEASURE = 1;
  private static final int AFTER = 2;
  private static final int STOP = 3;

  private ClosedLoop() {}

  static Result run(int sessions, Op op, Duration warmup, Duration measure, Runnable onMeasureStart,
      Runnable onMeasureEnd) throws InterruptedException {
    VolatilePhase p = new VolatilePhase();
    Histogram[] hist = new Histogram[sessions];
    long[] ops = new long[sessions];
    long[] errors = new long[sessions];
    AtomicReference<String> firstError = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int s = 0; s < sessions; s++) {
      final int session = s;
      hist[s] = new Histogram(3_600_000_000L, 3);
      Thread t = new Thread(() -> {
        SplittableRandom random = new SplittableRandom(0x5eed + 7919L * session);
        Histogram h = hist[session];
        long n = 0;
        long e = 0;
        while (true) {
          long t0 = System.nanoTime();
          boolean ok = true;
          try {
            op.run(session, random);
          } catch (Exception ex) {
            ok = false;
            firstError.compareAndSet(null, ex.toString());
          }
          long t1 = System.nanoTime();
          int now = p.value;
          if (now == STOP) {
            break;
          }
          if (now == MEASURE) {
            if (ok) {
              h.recordValue(Math.max(1, (t1 - t0) / 1000));
              n++;
            } else {
              e++;
            }
          }
          if (!ok) {
            try {
              Thread.sleep(10); // do not spin on a broken connection
            } catch (InterruptedException ie) {
              break;
            }
          }
        }
        ops[session] = n;
        errors[session] = e;
      }, "session-" + s);
      t.setDaemon(true);
      threads.add(t);
    }
    threads.forEach(Thread::start);
    Thread.sleep(warmup.toMillis());
    onMeasureStart.run();
    long t0 = System.nanoTime();
    p.value = MEASURE;
    Thread.sleep(measure.toMillis());
    p.value = AFTER; // threads keep the load on, uncounted, while the harness samples CPU at the window's end
    long t1 = System.nanoTime();
    onMeasureEnd.run();
    p.value = STOP;
    for (Thread t : threads) {
      t.join(30_000);
    }
    Histogram all = new Histogram(3_600_000_000L, 3);
    long totalOps = 0;
    long totalErrors = 0;
    for (int s = 0; s < sessions; s++) {
      all.add(hist[s]);
      totalOps += ops[s];
      totalErrors += errors[s];
    }
    return new Result(totalOps, totalErrors, firstError.get(), (t1 - t0) / 1e9, all);
  }

  private static final class VolatilePhase {
    volatile int value = WARMUP;
  }
}
