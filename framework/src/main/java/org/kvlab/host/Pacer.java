package org.kvlab.host;

import java.time.Duration;
import java.util.function.LongConsumer;
import org.kvlab.api.Invariants;
import org.kvlab.api.ServerContext;
import org.kvlab.api.Timer;

/**
 * A periodic step with an idle back-off, for protocols whose servers exchange timer messages (heartbeats,
 * stable-time reports): the step runs every {@code fast} period while the server is <i>engaged</i> and every
 * {@code idle} period otherwise (at multiples of it on the server's clock, so an idle cluster's servers step
 * together). A server is engaged for {@code idleAfter} after its last own work ({@link #busy()})
 * and until any lease it heard from a peer ({@link #engage(long)}); timer messages carry {@link #lease()} so one
 * client operation anywhere wakes the whole cluster within a few message delays. An idle server that becomes
 * engaged runs its step at once. Uses only the server's context (time and timers), so the simulator replays it;
 * one event-loop thread only. The host runs paced timers ({@link Handlers#every(Duration, Duration, Duration, Runnable)})
 * with it, carrying the leases on its own peer frames; a protocol normally uses that instead.
 *
 * <pre>{@code
 * pacer = new Pacer(context(), Duration.ofMillis(5), Duration.ofSeconds(1), Duration.ofSeconds(1), now -> heartbeat());
 * pacer.start();                                   // in onStart
 * pacer.busy();                                    // in client request and replication handlers
 * send(peer, Heartbeat.newBuilder().setActiveUntil(pacer.lease())...);
 * pacer.engage(heartbeat.getActiveUntil());        // when a timer message arrives
 * }</pre>
 */
public final class Pacer {
  private final ServerContext context;
  private final Duration fast;
  private final Duration idle;
  private final long idleAfterMicros;
  private final LongConsumer step;
  private long activeUntil; // engaged while the clock reads less (physical microseconds)
  private Timer timer;

  /**
   * @param fast the period while engaged (positive)
   * @param idle the period while idle (raised to {@code fast} if shorter)
   * @param idleAfter how long the server stays engaged after its last {@link #busy()}
   * @param step what runs each period, given the clock's reading in microseconds
   */
  public Pacer(ServerContext context, Duration fast, Duration idle, Duration idleAfter, LongConsumer step) {
    Invariants.check(!fast.isNegative() && !fast.isZero(), "the pacer's fast period must be positive");
    this.context = context;
    this.fast = fast;
    this.idle = idle.compareTo(fast) > 0 ? idle : fast;
    this.idleAfterMicros = idleAfter.toNanos() / 1000;
    this.step = step;
  }

  /** Starts engaged (as a server without the back-off would run), the first step one fast period from now. */
  public void start() {
    activeUntil = now() + idleAfterMicros;
    timer = context.after(fast, this::tick);
  }

  private void tick() {
    long now = now();
    step.accept(now);
    timer = context.after(engaged(now) ? fast : untilNextIdleTick(now), this::tick);
  }

  /**
   * Idle steps land on multiples of the idle period on the server's clock, so the servers of an idle cluster
   * step at about the same moment: the timer messages a server receives arrive together with its own step and
   * are read, handled and acknowledged in one or two event-loop turns instead of one each (idle cost,
   * docs/benchmarks/idle-cost.md). At least one fast period from now, so going idle never steps twice in a row.
   */
  private Duration untilNextIdleTick(long nowMicros) {
    long period = idle.toNanos() / 1000;
    long wait = period - Math.floorMod(nowMicros, period);
    if (wait < fast.toNanos() / 1000) {
      wait += period;
    }
    return Duration.ofNanos(wait * 1000);
  }

  /** Whether the server is engaged at clock reading {@code nowMicros}. */
  public boolean engaged(long nowMicros) {
    return nowMicros < activeUntil;
  }

  /** The lease to put on outgoing timer messages: when this server's engagement ends, or 0 while idle. */
  public long lease() {
    return engaged(now()) ? activeUntil : 0;
  }

  /** Extends the engagement to {@code until} (a peer's lease); an idle server that becomes engaged steps at once. */
  public void engage(long until) {
    long now = now();
    boolean wasIdle = !engaged(now);
    activeUntil = Math.max(activeUntil, until);
    if (wasIdle && engaged(now) && timer != null) {
      timer.cancel();
      tick();
    }
  }

  /** This server did work (a client request, a replicated write): engaged for {@code idleAfter} from now. */
  public void busy() {
    engage(now() + idleAfterMicros);
  }

  private long now() {
    return context.clock().micros();
  }
}
