package org.kvlab.openloop;

import com.google.protobuf.ByteString;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.kvlab.api.Session;

/**
 * Open-loop load: requests are issued on a fixed schedule (request i is due at start + i / rate), whatever
 * the replies do, through the asynchronous session API, so many requests are in flight on each connection.
 * Latency is measured from each request's <b>intended</b> send time, not from when it was actually sent:
 * a server that stalls delays the requests due during the stall, and they are charged for it (no
 * coordinated omission, as in wrk2). The scheduling thread sleeps until the next request is due and, when
 * it wakes, sends every request that is due by then at once, in one task per session thread.
 */
public final class OpenLoopLoad {
  /** Requests in flight at which the run gives up: the server is far behind the offered rate. */
  static final int IN_FLIGHT_MAX = 100_000;

  /** Requests sent in one task to a session thread, at most. */
  static final int BATCH_MAX = 256;

  private OpenLoopLoad() {}

  /** What each completed request updates (one object per run; per request only the callback holding its due time). */
  private record Completion(long start, long measureFrom, AtomicLongArray perSecond, AtomicLong errors,
      String[] firstError, Recorder recorder, AtomicLong measured, AtomicLong lastMeasuredDone, AtomicLong inFlight) {
    void done(long intended, Throwable e) {
      long done = System.nanoTime();
      int second = (int) ((done - start) / 1_000_000_000L);
      if (second >= 0 && second < perSecond.length()) {
        perSecond.incrementAndGet(second);
      }
      if (e != null) {
        if (errors.getAndIncrement() == 0) {
          firstError[0] = String.valueOf(e.getMessage());
        }
      } else if (intended >= measureFrom) {
        recorder.recordValue(Math.max(1, (done - intended) / 1000)); // microseconds; HdrHistogram does not box
        measured.incrementAndGet();
        lastMeasuredDone.accumulateAndGet(done, Math::max);
      }
      inFlight.decrementAndGet();
    }
  }

  /**
   * The requests due at one wake-up of the scheduling thread for one session thread, as arrays (not one task
   * object per request): run there in one task, so their writes leave in one flush.
   */
  private static final class Batch implements Runnable {
    final Session[] sessions;
    final int[] keys;
    final long[] due;
    final boolean[] read;
    final String[] keyNames;
    final ByteString value;
    final Completion completion;
    int n;

    Batch(int capacity, String[] keyNames, ByteString value, Completion completion) {
      sessions = new Session[capacity];
      keys = new int[capacity];
      due = new long[capacity];
      read = new boolean[capacity];
      this.keyNames = keyNames;
      this.value = value;
      this.completion = completion;
    }

    @Override
    public void run() {
      for (int j = 0; j < n; j++) {
        Session s = sessions[j];
        String key = keyNames[keys[j]];
        long intended = due[j];
        CompletableFuture<?> f = read[j] ? s.getAsync(key) : s.putAsync(key, value);
        f.whenComplete((r, e) -> completion.done(intended, e));
      }
    }
  }

  /** The keys user0..user(records-1), built once per run rather than once per request. */
  static String[] keyNames(int records) {
    String[] k = new String[records];
    for (int i = 0; i < records; i++) {
      k[i] = "user" + i;
    }
    return k;
  }

  /** The workload of every request: uniform keys user0..user(records-1), reads or writes of a fixed value. */
  public record Workload(int records, double readProportion, int valueBytes, long seed) {}

  /**
   * One run at one offered rate.
   *
   * @param latency microseconds from intended send time to completion, of measured requests that succeeded
   * @param perSecond requests completed in each second since the start (warm-up included), for the
   *     throughput-over-time chart
   * @param abandoned true if the run stopped issuing because IN_FLIGHT_MAX requests were in flight
   * @param windowFromMillis wall-clock start of the measured window (for matching JVM logs' pauses to it)
   * @param windowToMillis wall-clock end of the window, or the last measured completion if later
   * @param generator the load generator's (this JVM's) collections and allocation per request in the window
   */
  public record Outcome(double targetRate, long issued, long measured, long errors, double achievedOpsPerSec,
      Histogram latency, long[] perSecond, boolean abandoned, String firstError, long windowFromMillis,
      long windowToMillis, JvmPauses.Pauses generator) {}

  /** Writes every record once (closed loop, a bounded number in flight) so that reads find them. */
  public static void load(List<Session> sessions, Workload w) throws InterruptedException {
    Semaphore window = new Semaphore(256);
    ByteString value = ByteString.copyFrom(new byte[w.valueBytes()]);
    AtomicLong failed = new AtomicLong();
    StringBuilder firstError = new StringBuilder();
    for (int i = 0; i < w.records(); i++) {
      window.acquire();
      sessions.get(i % sessions.size()).putAsync("user" + i, value).whenComplete((r, e) -> {
        if (e != null && failed.getAndIncrement() == 0) {
          synchronized (firstError) {
            firstError.append(e.getMessage());
          }
        }
        window.release();
      });
    }
    window.acquire(256);
    if (failed.get() > 0) {
      synchronized (firstError) {
        throw new IllegalStateException("loading the records failed for " + failed.get() + " of " + w.records()
            + " keys, e.g.: " + firstError);
      }
    }
  }

  /**
   * Offers {@code rate} requests per second for {@code warmupNanos + durationNanos}; requests due during the
   * warm-up are sent but not measured. Waits up to {@code drainNanos} for the last replies.
   */
  public static Outcome run(List<Session> sessions, Workload w, double rate, long warmupNanos, long durationNanos,
      long drainNanos) throws InterruptedException {
    if (!(rate > 0)) {
      throw new IllegalArgumentException("rate must be positive, got " + rate);
    }
    JvmPauses.Pauses generator = null;
    double nanosPerRequest = 1e9 / rate;
    ByteString value = ByteString.copyFrom(new byte[w.valueBytes()]);
    String[] keyNames = keyNames(w.records());
    SplittableRandom random = new SplittableRandom(w.seed());
    Recorder recorder = new Recorder(3);
    AtomicLong inFlight = new AtomicLong();
    AtomicLong measured = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    AtomicLong lastMeasuredDone = new AtomicLong();
    String[] firstError = new String[1];
    int seconds = (int) ((warmupNanos + durationNanos + drainNanos) / 1_000_000_000L) + 2;
    AtomicLongArray perSecond = new AtomicLongArray(seconds);
    long wall0 = System.currentTimeMillis();
    long start = System.nanoTime() + 1_000_000; // 1 ms from now
    long measureFrom = start + warmupNanos;
    long end = measureFrom + durationNanos;
    long issued = 0;
    boolean abandoned = false;
    Completion completion = new Completion(start, measureFrom, perSecond, errors, firstError, recorder, measured,
        lastMeasuredDone, inFlight);
    // The generator's own collections and allocation over the measured window (sampled when its first request is
    // due and when the schedule ends).
    JvmPauses.Sample atWindow = null;
    long issuedAtWindow = 0;
    // Every wake-up sends all requests due by then in one task per session thread (most sessions share
    // one), not one hand-off per request: at 100,000/s the per-request hand-offs and the wake-ups of the
    // client's event loop they cause cost more than the requests. The batch is bounded so that a late
    // wake-up still spreads its backlog over several tasks.
    Map<Executor, Batch> batches = new IdentityHashMap<>();
    try (JvmPauses.Longest longest = new JvmPauses.Longest()) {
      for (long i = 0; ; ) {
        long intended = start + (long) (i * nanosPerRequest);
        if (intended >= end) {
          break;
        }
        long now = System.nanoTime();
        if (now < intended) {
          LockSupport.parkNanos(intended - now);
          if (Thread.interrupted()) {
            throw new InterruptedException();
          }
          continue; // parkNanos may return early: look again, never send a request before it is due
        }
        if (inFlight.get() >= IN_FLIGHT_MAX) {
          abandoned = true;
          break;
        }
        if (atWindow == null && intended >= measureFrom) {
          atWindow = JvmPauses.Sample.now();
          issuedAtWindow = issued;
          longest.arm();
        }
        // Every request due by now (at least the one that woke us), at most BATCH_MAX of them.
        long dueByNow = (long) Math.floor((now - start) / nanosPerRequest) + 1; // requests 0..dueByNow-1 are due
        int count = (int) Math.max(1, Math.min(BATCH_MAX, dueByNow - i));
        for (int n = 0; n < count; n++, i++) {
          intended = start + (long) (i * nanosPerRequest);
          if (intended >= end || (n > 0 && intended > now)) {
            break;
          }
          Session s = sessions.get((int) (i % sessions.size()));
          Batch b = batches.get(s.executor());
          if (b == null) {
            b = new Batch(count, keyNames, value, completion);
            batches.put(s.executor(), b);
          }
          b.sessions[b.n] = s;
          b.keys[b.n] = random.nextInt(w.records());
          b.read[b.n] = random.nextDouble() < w.readProportion();
          b.due[b.n] = intended;
          b.n++;
          inFlight.incrementAndGet();
          issued++;
        }
        for (Map.Entry<Executor, Batch> b : batches.entrySet()) {
          b.getKey().execute(b.getValue());
        }
        batches.clear();
      }
      JvmPauses.Sample atEnd = JvmPauses.Sample.now();
      double longestMillis = longest.disarm();
      if (atWindow != null) {
        generator = atEnd.since(atWindow, issued - issuedAtWindow, longestMillis);
      }
    }
    long drainUntil = System.nanoTime() + drainNanos;
    while (inFlight.get() > 0 && System.nanoTime() < drainUntil) {
      Thread.sleep(5);
    }
    long lost = inFlight.get(); // no reply within the drain time: counted as errors
    Histogram h = recorder.getIntervalHistogram();
    // Achieved: measured completions over the time from the measured window's start to the last of them
    // (at least the window): a server that falls behind stretches it, and achieves less than offered.
    double window = Math.max(durationNanos, lastMeasuredDone.get() - measureFrom) / 1e9;
    long[] ps = new long[seconds];
    for (int k = 0; k < seconds; k++) {
      ps[k] = perSecond.get(k);
    }
    long windowFrom = wall0 + (measureFrom - start) / 1_000_000 + 1;
    long windowTo = wall0 + (Math.max(end, lastMeasuredDone.get()) - start) / 1_000_000 + 1;
    return new Outcome(rate, issued, measured.get(), errors.get() + lost, measured.get() / window, h, ps,
        abandoned, firstError[0] != null ? firstError[0] : lost > 0 ? lost + " requests had no reply" : null,
        windowFrom, windowTo, generator);
  }
}
