package org.kvlab.host;

import java.time.Duration;
import java.util.ArrayList;
import java.util.function.BooleanSupplier;
import org.kvlab.api.Timer;
import org.kvlab.api.Wait;

/**
 * The waits of a {@link ProtocolHost}: conditions re-checked at the end of every event of the node (never by a
 * periodic poll), in the order they were made, and waits on the node's clock (a timer, re-armed if the clock's drift
 * fell short).
 */
final class Waits {
  private final ProtocolHost host;
  private final ArrayList<WaitImpl> waits = new ArrayList<>();

  Waits(ProtocolHost host) {
    this.host = host;
  }

  boolean isEmpty() {
    return waits.isEmpty();
  }

  /** A wait on {@code condition}; with a timeout, {@code onTimeout} runs if it does not hold in time. */
  Wait add(BooleanSupplier condition, Duration timeout, Runnable action, Runnable onTimeout) {
    java.util.Objects.requireNonNull(condition, "condition");
    java.util.Objects.requireNonNull(action, "action");
    WaitImpl w = new WaitImpl(condition, action);
    if (condition.getAsBoolean()) {
      w.done = true;
      action.run(); // at once, inside the caller's event
      return w;
    }
    waits.add(w);
    if (timeout != null) {
      w.timer = host.after(timeout, () -> {
        if (!w.done) {
          w.done = true;
          onTimeout.run();
        }
      });
    }
    return w;
  }

  /** One pass over the waits in registration order; true if an action ran. No allocation when none holds. */
  boolean check() {
    boolean ran = false;
    for (int i = 0; i < waits.size(); i++) {
      WaitImpl w = waits.get(i);
      if (w.done) {
        continue;
      }
      boolean holds;
      host.enter(ProtocolHost.WAIT, -1, null);
      try {
        holds = w.condition.getAsBoolean();
      } catch (RuntimeException e) {
        w.done = true;
        host.driver.failed("wait condition", e, null);
        continue;
      }
      if (holds) {
        w.done = true;
        if (w.timer != null) {
          w.timer.cancel();
        }
        ran = true;
        try {
          w.action.run();
        } catch (RuntimeException e) {
          host.driver.failed("wait action", e, null);
        }
      }
    }
    waits.removeIf(w -> w.done); // allocation-free when nothing is removed? removeIf allocates only a BitSet if needed
    return ran;
  }

  /** A wait on the node's clock ({@code ServerContext.waitUntilClock}). */
  Wait untilClock(long micros, Runnable action) {
    java.util.Objects.requireNonNull(action, "action");
    ClockWait w = new ClockWait(micros, action);
    long now = host.env.clock().micros();
    if (now >= micros) {
      w.done = true;
      action.run();
      return w;
    }
    w.arm(micros - now);
    return w;
  }

  private static final class WaitImpl implements Wait {
    final BooleanSupplier condition;
    final Runnable action;
    Timer timer;
    boolean done;

    WaitImpl(BooleanSupplier condition, Runnable action) {
      this.condition = condition;
      this.action = action;
    }

    @Override
    public void cancel() {
      if (!done) {
        done = true;
        if (timer != null) {
          timer.cancel();
        }
      }
    }

    @Override
    public boolean done() {
      return done;
    }
  }

  /** A wait on the node's clock: a timer for the remaining time, re-armed if the clock (its drift) fell short. */
  private final class ClockWait implements Wait {
    final long micros;
    final Runnable action;
    Timer timer;
    boolean done;

    ClockWait(long micros, Runnable action) {
      this.micros = micros;
      this.action = action;
    }

    void arm(long remainingMicros) {
      timer = host.after(Duration.ofNanos(Math.multiplyExact(remainingMicros, 1000L)), () -> {
        if (done) {
          return;
        }
        long now = host.env.clock().micros();
        if (now >= micros) {
          done = true;
          action.run();
        } else {
          arm(micros - now);
        }
      });
    }

    @Override
    public void cancel() {
      if (!done) {
        done = true;
        timer.cancel();
      }
    }

    @Override
    public boolean done() {
      return done;
    }
  }
}
