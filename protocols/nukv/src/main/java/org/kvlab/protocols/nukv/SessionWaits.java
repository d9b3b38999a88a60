package org.kvlab.protocols.nukv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;
import org.kvlab.api.ServerContext;

/**
 * Alg 4.2's waits: a request runs once the replica's stable vector {@code sv} covers what the client's session
 * depends on (the maximum of its read and write vectors), and fails after {@code waitMax}. Re-checked after every
 * commit that raises sv ({@link #recheck}); never blocks the event loop.
 */
final class SessionWaits {
  /** A request waiting until sv covers a vector. */
  private record Wait(long[] need, Runnable run, Consumer<String> giveUp) {}

  private final ServerContext ctx;
  private final NuKVParams p;
  private final long[] sv;
  private final List<Wait> waiting = new ArrayList<>();

  SessionWaits(ServerContext ctx, NuKVParams p, long[] sv) {
    this.ctx = ctx;
    this.p = p;
    this.sv = sv;
  }

  /** The vector a session needs: the maximum of its read and write vectors, per datacenter. */
  long[] need(List<Long> a, List<Long> b) {
    long[] need = new long[sv.length];
    for (int i = 0; i < need.length; i++) {
      need[i] = Math.max(i < a.size() ? a.get(i) : 0, i < b.size() ? b.get(i) : 0);
    }
    return need;
  }

  /** Runs {@code run} once sv covers {@code need}, or {@code giveUp} after waitMax. */
  void whenCovered(String what, long[] need, Runnable run, Consumer<String> giveUp) {
    if (covered(need)) {
      run.run();
      return;
    }
    long since = ctx.clock().micros();
    Wait w = new Wait(need, () -> {
      ctx.metrics().record("nukv." + what + ".waitMicros", ctx.clock().micros() - since); // how long it was held
      run.run();
    }, giveUp);
    waiting.add(w);
    ctx.after(p.waitMax, () -> {
      if (waiting.remove(w)) {
        w.giveUp.accept("not caught up within " + p.waitMax.toMillis() + " ms: has sv=" + Arrays.toString(sv)
            + ", the session needs " + Arrays.toString(w.need) + " (a partition or a slow forwarder)");
      }
    });
  }

  /** sv rose: runs the requests it now covers. */
  void recheck() {
    if (waiting.isEmpty()) {
      return;
    }
    List<Wait> ready = new ArrayList<>();
    for (Iterator<Wait> it = waiting.iterator(); it.hasNext(); ) {
      Wait w = it.next();
      if (covered(w.need)) {
        it.remove();
        ready.add(w);
      }
    }
    for (Wait w : ready) {
      w.run.run();
    }
  }

  private boolean covered(long[] need) {
    for (int i = 0; i < sv.length; i++) {
      if (sv[i] < need[i]) {
        return false;
      }
    }
    return true;
  }
}
