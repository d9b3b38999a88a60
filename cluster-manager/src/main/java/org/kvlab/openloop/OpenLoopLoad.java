package org.kvlab.openloop;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.kvlab.api.Session;

/**
 * Open-loop load: requests are issued on a fixed schedule (request i is due at start + i / rate), whatever
 * the replies do, through the asynchronous session API, so many requests are in flight on each connection.
 * Latency is measured from each request's <b>intended</b> send time, not from when it was actually sent:
 * a server that stalls delays the requests due during the stall, and they are charged for it (no
 * coordinated omission, as in wrk2). The schedule runs on the session threads themselves (one {@link Driver}
 * per client event loop): a driver sends every request of its sessions that is due and asks its thread to run
 * it again when the next one is due, so the requests leave between the thread's reads of the replies, with no
 * scheduling thread and no hand-off between threads per wake-up.
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
   * The schedule of the sessions that share one session thread (an event loop of the client), run on that
   * thread itself: each run sends every request of its sessions that is due by now (at most {@link #BATCH_MAX},
   * then the thread's I/O gets its turn before the next batch), and then asks the thread to run it again when
   * its next request is due. No scheduling thread of its own and no hand-off per wake-up: the thread that reads
   * the replies sends the requests between its reads, and sleeps in its own poll until the next is due.
   * Request {@code i} of the run (due at {@code start + i / rate}) goes to session {@code i % sessions}; this
   * driver sends those whose session is on its thread, in the order of {@code i}.
   */
  private static final class Driver implements Runnable {
    final ScheduledExecutorService thread;
    final int[] mine; // indices into the run's sessions of the sessions on this thread, ascending
    final SplittableRandom random;
    final Run shared;
    long round; // request index = round * sessions + mine[pos]
    int pos;
    boolean done;

    Driver(ScheduledExecutorService thread, int[] mine, SplittableRandom random, Run shared) {
      this.thread = thread;
      this.mine = mine;
      this.random = random;
      this.shared = shared;
    }

    @Override
    public void run() {
      try {
        step();
      } catch (RuntimeException e) { // e.g. the thread was shut down under the run: the run ends, not the JVM
        finish();
        throw e;
      }
    }

    private void step() {
      if (done) {
        return;
      }
      if (shared.stop().get()) {
        finish();
        return;
      }
      long now = System.nanoTime();
      for (int sent = 0; ; sent++) {
        long i = round * shared.sessions().size() + mine[pos];
        long intended = shared.start() + (long) (i * shared.nanosPerRequest());
        if (intended >= shared.end()) {
          finish();
          return;
        }
        if (intended > now) { // never send a request before it is due
          thread.schedule(this, intended - now, TimeUnit.NANOSECONDS);
          return;
        }
        if (sent == BATCH_MAX) { // a late wake-up: the rest of the backlog after the thread's I/O
          thread.execute(this);
          return;
        }
        if (shared.completion().inFlight().get() >= IN_FLIGHT_MAX) {
          shared.abandoned().set(true);
          finish();
          return;
        }
        Session s = shared.sessions().get(mine[pos]);
        String key = shared.keyNames()[shared.workload().nextKey(random, s.dc(), shared.datacenters())];
        boolean read = random.nextDouble() < shared.workload().readProportion();
        shared.completion().inFlight().incrementAndGet();
        shared.issued().incrementAndGet();
        CompletableFuture<?> f = read ? s.getAsync(key) : s.putAsync(key, shared.value());
        f.whenComplete((r, e) -> shared.completion().done(intended, e));
        if (++pos == mine.length) {
          pos = 0;
          round++;
        }
      }
    }

    private void finish() {
      if (!done) {
        done = true;
        shared.finished().countDown();
      }
    }
  }

  /** What the drivers of one run share: the schedule, the workload, and the run's counters and signals. */
  private record Run(List<Session> sessions, double nanosPerRequest, long start, long end, String[] keyNames,
      ByteString value, Workload workload, Completion completion, AtomicLong issued, AtomicBoolean stop,
      AtomicBoolean abandoned, CountDownLatch finished) {
    /** The datacenters the sessions are attached to (the client spreads them over every datacenter). */
    int datacenters() {
      return datacentersOf(sessions);
    }
  }

  static int datacentersOf(List<Session> sessions) {
    return sessions.stream().mapToInt(Session::dc).max().orElse(0) + 1;
  }

  /** The keys user0..user(records-1), built once per run rather than once per request. */
  static String[] keyNames(int records) {
    String[] k = new String[records];
    for (int i = 0; i < records; i++) {
      k[i] = "user" + i;
    }
    return k;
  }

  /**
   * The workload of every request: uniform keys user0..user(records-1), reads or writes of a fixed value; or, with
   * {@code objectsPerReplica} above 0, the consensus workload of seed 001 §10.3 (the simulator's
   * {@link org.kvlab.workload.ReplicaObjects}, hashed layout): session k is attached to datacenter k mod D, and each of
   * its requests draws an object of its own datacenter's {@code objectsPerReplica} with probability {@code locality},
   * else one of another datacenter's ({@code records} is then unused: the objects are the keys).
   */
  public record Workload(int records, double readProportion, int valueBytes, long seed, int objectsPerReplica,
      double locality) {
    public Workload(int records, double readProportion, int valueBytes, long seed) {
      this(records, readProportion, valueBytes, seed, 0, 1.0);
    }

    /** The layout of the objects (null without them). */
    org.kvlab.workload.ReplicaObjects objects() {
      return objectsPerReplica == 0 ? null : new org.kvlab.workload.ReplicaObjects(objectsPerReplica, locality, true);
    }

    /** The keys requests draw from: user0.., or every datacenter's objects in order (datacenter d's from d·per). */
    String[] keyNames(int datacenters) {
      if (objectsPerReplica == 0) {
        return OpenLoopLoad.keyNames(records);
      }
      org.kvlab.workload.ReplicaObjects o = objects();
      String[] k = new String[objectsPerReplica * datacenters];
      for (int i = 0; i < k.length; i++) {
        k[i] = o.key(i, datacenters);
      }
      return k;
    }

    /** The index into {@link #keyNames} of the next request of a session attached to {@code dc}. */
    int nextKey(SplittableRandom random, int dc, int datacenters) {
      return objectsPerReplica == 0 ? random.nextInt(records) : objects().draw(random, dc, datacenters);
    }
  }

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
    String[] keyNames = w.keyNames(datacentersOf(sessions));
    AtomicLong failed = new AtomicLong();
    StringBuilder firstError = new StringBuilder();
    for (int i = 0; i < keyNames.length; i++) {
      window.acquire();
      sessions.get(i % sessions.size()).putAsync(keyNames[i], value).whenComplete((r, e) -> {
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
        throw new IllegalStateException("loading the records failed for " + failed.get() + " of " + keyNames.length
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
    String[] keyNames = w.keyNames(datacentersOf(sessions));
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
    Completion completion = new Completion(start, measureFrom, perSecond, errors, firstError, recorder, measured,
        lastMeasuredDone, inFlight);
    // One driver per session thread, run on that thread (see Driver); this thread only samples the generator's
    // collections and allocation at the start and the end of the measured window.
    Map<ScheduledExecutorService, List<Integer>> byThread = new IdentityHashMap<>();
    for (int k = 0; k < sessions.size(); k++) {
      if (!(sessions.get(k).executor() instanceof ScheduledExecutorService thread)) {
        throw new IllegalArgumentException("the sessions' executor must be a ScheduledExecutorService (a client "
            + "event loop), got " + sessions.get(k).executor().getClass().getName());
      }
      byThread.computeIfAbsent(thread, x -> new ArrayList<>()).add(k);
    }
    AtomicLong issued = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicBoolean abandoned = new AtomicBoolean();
    CountDownLatch finished = new CountDownLatch(byThread.size());
    Run shared = new Run(sessions, nanosPerRequest, start, end, keyNames, value, w, completion, issued, stop,
        abandoned, finished);
    try (JvmPauses.Longest longest = new JvmPauses.Longest()) {
      for (Map.Entry<ScheduledExecutorService, List<Integer>> t : byThread.entrySet()) {
        int[] mine = t.getValue().stream().mapToInt(Integer::intValue).toArray();
        Driver d = new Driver(t.getKey(), mine, random.split(), shared);
        t.getKey().schedule(d, Math.max(0, start - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
      JvmPauses.Sample atWindow = null;
      long issuedAtWindow = 0;
      try {
        while (System.nanoTime() < measureFrom && finished.getCount() > 0) {
          finished.await(Math.min(measureFrom - System.nanoTime(), 10_000_000L), TimeUnit.NANOSECONDS);
        }
        if (finished.getCount() > 0) {
          atWindow = JvmPauses.Sample.now();
          issuedAtWindow = issued.get();
          longest.arm();
        }
        // The drivers end at the end of the schedule; a session thread stalled far beyond it ends the run too.
        long limit = end + drainNanos;
        while (finished.getCount() > 0 && System.nanoTime() < limit) {
          finished.await(10, TimeUnit.MILLISECONDS);
        }
      } finally {
        stop.set(true); // an interrupted or stalled run: the drivers stop at their next wake-up
      }
      if (finished.getCount() > 0) {
        abandoned.set(true);
      }
      JvmPauses.Sample atEnd = JvmPauses.Sample.now();
      double longestMillis = longest.disarm();
      if (atWindow != null) {
        generator = atEnd.since(atWindow, issued.get() - issuedAtWindow, longestMillis);
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
    return new Outcome(rate, issued.get(), measured.get(), errors.get() + lost, measured.get() / window, h, ps,
        abandoned.get(), firstError[0] != null ? firstError[0] : lost > 0 ? lost + " requests had no reply" : null,
        windowFrom, windowTo, generator);
  }
}
