package org.kvlab.host;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import org.kvlab.api.Request;
import org.kvlab.api.ServerContext;
import org.kvlab.api.Timer;

/**
 * The idle back-off of a node's paced periodic tasks ({@code Handlers.every(fast, idle, idleAfter, task)}), kept by
 * the host so that no protocol message carries it. A task runs every {@code fast} period while the node is
 * <i>engaged</i> and every {@code idle} period otherwise ({@link Pacer}). The node is engaged for {@code idleAfter}
 * after each of its own client requests and while one is unanswered (a request that waits, e.g. for a stable time
 * the timer messages advance, keeps the cluster at full pace), and until the latest activity lease a peer announced.
 * A node announces its lease to every other server in a kit frame (LEASE, on the peer channel) when a client request
 * finds it idle, and then at most once per half {@code idleAfter} while it stays engaged by its own requests: an idle
 * cluster sends none, and one client operation anywhere engages every server one message delay later. One
 * event-loop thread only.
 */
final class IdleBackoff {
  private final ServerContext context;
  private final LongConsumer announce;
  private final List<Pacer> pacers = new ArrayList<>();
  private long announceEveryMicros = Long.MAX_VALUE;
  private long announced; // the last lease announced (microseconds on this node's clock)
  private final ArrayDeque<Request<?>> open = new ArrayDeque<>(); // client requests, some perhaps answered
  private Timer openCheck; // while some are open: every half idleAfter

  /** @param announce sends a lease (microseconds on this node's clock) to every other server */
  IdleBackoff(ServerContext context, LongConsumer announce) {
    this.context = context;
    this.announce = announce;
  }

  void add(Duration fast, Duration idle, Duration idleAfter, Runnable task) {
    pacers.add(new Pacer(context, fast, idle, idleAfter, now -> task.run()));
    announceEveryMicros = Math.min(announceEveryMicros, idleAfter.toNanos() / 2000);
  }

  /** Starts every paced task, engaged (a fresh node runs at full pace for {@code idleAfter}). */
  void start() {
    for (Pacer p : pacers) {
      p.start();
    }
  }

  /** A client request arrived: engaged for {@code idleAfter} and while it is unanswered. */
  void clientRequest(Request<?> request) {
    if (pacers.isEmpty() || announceEveryMicros <= 0) {
      return; // no paced timer, or idleAfter 0 (never engaged by requests)
    }
    while (!open.isEmpty() && open.peekFirst().answered()) {
      open.removeFirst();
    }
    open.addLast(request);
    if (openCheck == null) {
      openCheck = context.after(Duration.ofNanos(announceEveryMicros * 1000), this::checkOpen);
    }
    busy();
  }

  private void checkOpen() {
    open.removeIf(Request::answered);
    openCheck = open.isEmpty() ? null : context.after(Duration.ofNanos(announceEveryMicros * 1000), this::checkOpen);
    if (!open.isEmpty()) {
      busy();
    }
  }

  /** Engaged for {@code idleAfter} from now; the lease goes to the peers if they may not know it. */
  private void busy() {
    long lease = 0;
    for (Pacer p : pacers) {
      p.busy();
      lease = Math.max(lease, p.lease());
    }
    if (lease > 0 && lease - announced >= announceEveryMicros) {
      announced = lease;
      announce.accept(lease);
    }
  }

  /** A peer's lease arrived (microseconds on its clock, within the clock skew of this node's). */
  void peerLease(long until) {
    for (Pacer p : pacers) {
      p.engage(until);
    }
  }
}
