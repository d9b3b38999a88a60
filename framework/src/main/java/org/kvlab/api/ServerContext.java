package org.kvlab.api;

import com.google.protobuf.Message;
import java.time.Duration;
import java.util.Collection;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.kvlab.store.VersionedStore;
import org.slf4j.Logger;

/**
 * Everything a protocol server may touch. The real runtime and the simulator each implement it; protocol
 * code never reads the system clock, creates threads or opens sockets, so the same code runs in both.
 * All methods must be called from the node's event loop (i.e. from handlers and timers).
 *
 * <p>The protocol kit (incarnation, waits, calls, forwards, slots; docs/spi.md "The kit") has default methods that
 * throw {@link UnsupportedOperationException}: the runtime's and the simulator's contexts implement them, a
 * hand-made context of a unit test need not.
 */
public interface ServerContext {
  NodeId self();

  Topology topology();

  Params params();

  /**
   * Sends {@code message} to server {@code to} over a reliable FIFO channel: messages from this node to
   * {@code to} are delivered in order, exactly once while both stay up, across reconnects.
   *
   * @throws BackPressureException if the channel's queue is full (the peer is down or too slow)
   */
  void send(NodeId to, Message message);

  /** Runs {@code task} once after {@code delay} on this node's event loop. */
  Timer after(Duration delay, Runnable task);

  /**
   * Runs {@code task} every {@code period} (positive) on this node's event loop. The runs fall on multiples of the
   * period on the node's timer clock, the first at least one period from now: the runtime's timer clock is the
   * machine's monotonic clock (so a node's timers of commensurate periods run in the same event-loop turn), the
   * simulator's is virtual time since the node (re)started (timers registered at start run one period after it).
   */
  Timer every(Duration period, Runnable task);

  Clock clock();

  Random random();

  <R extends Message> VersionedStore<R> store();

  Metrics metrics();

  Logger log();

  /**
   * How many times a server has started on this store: 1 on a fresh store, one more on every restart. Kept in the
   * framework's own part of the store, never among the protocol's keys. Ids of calls and timers of an earlier
   * incarnation never match those of a later one.
   */
  default long incarnation() {
    throw kitMissing("incarnation");
  }

  /**
   * Runs {@code action} once {@code condition} holds: at once if it holds now, else after the first event of this
   * node (a message, a request, a call's reply, a timer, another wait's action) after which it holds. Waiting
   * conditions are checked in the order they were registered, after every event, never by a periodic poll: a
   * condition must depend only on this server's state (for the clock, use {@link #waitUntilClock}).
   */
  default Wait waitUntil(BooleanSupplier condition, Runnable action) {
    throw kitMissing("waitUntil");
  }

  /** As {@link #waitUntil(BooleanSupplier, Runnable)}; if it has not held within {@code timeout}, runs {@code onTimeout} instead. */
  default Wait waitUntil(BooleanSupplier condition, Duration timeout, Runnable action, Runnable onTimeout) {
    throw kitMissing("waitUntil");
  }

  /**
   * Runs {@code action} once this node's clock ({@link #clock()}, with its skew) reads at least {@code micros}
   * ("wait until PC &gt; dt": {@code waitUntilClock(dt + 1, ...)}): at once if it does now, else by a timer computed
   * from the clock (exact in the simulator).
   */
  default Wait waitUntilClock(long micros, Runnable action) {
    throw kitMissing("waitUntilClock");
  }

  /**
   * Sends {@code request} to server {@code to}, whose {@link Handlers#call} handler for its type answers it; see
   * {@link Call}. Errors in the arguments (an unknown server, an unregistered type) throw at once; a full channel
   * is reported to {@link Call#onFailure} as BACK_PRESSURE (after this handler returns).
   */
  default <P extends Message> Call<P> call(NodeId to, Message request, Class<P> replyType, Duration timeout) {
    throw kitMissing("call");
  }

  /** Sends {@code request} to every server of {@code to} and waits for {@code needed} replies; see {@link QuorumCall}. */
  default <P extends Message> QuorumCall<P> callAll(Collection<NodeId> to, Message request, Class<P> replyType,
      int needed, Duration timeout) {
    throw kitMissing("callAll");
  }

  /**
   * Hands the client request {@code request} to server {@code to}, which runs it through its own request handler
   * for its type as if its own client had sent it; that server's reply, failure or unknown outcome answers
   * {@code request}. {@code request} is answered {@code unknown} if no answer comes within {@code timeout}, if the
   * target restarts before answering, or if the channel is full (then {@code fail}: it was surely not sent).
   */
  default <Q extends Message> void forward(NodeId to, Request<Q> request, Duration timeout) {
    throw kitMissing("forward");
  }

  /**
   * This server's durable slot for messages of {@code defaultInstance}'s type (one per type; ask again for the same
   * slot): its value survives restarts on the same store; see {@link Slot}.
   */
  default <S extends Message> Slot<S> slot(S defaultInstance) {
    throw kitMissing("slot");
  }

  /**
   * This server's durable map {@code name} of {@code defaultInstance}'s type (ask again with the same name for the
   * same map; names are letters, digits, '-', '_' and '.'): its entries survive restarts on the same store; see
   * {@link SlotMap}.
   */
  default <S extends Message> SlotMap<S> slotMap(String name, S defaultInstance) {
    throw kitMissing("slotMap");
  }

  /**
   * Runs {@code work}, a pure computation (it must not touch this context, the store or the server's state: it runs
   * beside the loop), off the event loop, and then {@code then} with its result on the loop, as a later event of this
   * node (never after a restart: a result computed for an earlier incarnation is dropped). Events keep being handled
   * meanwhile, so a long computation (a graph partitioner over a big graph) does not pause the server. The runtime
   * runs it on a worker thread of the node; the simulator runs it at once and delivers the result as a later event,
   * after the service-time model's offload duration ({@code ServiceTime}, 0 by default). If {@code work} throws, the
   * failure is the node's as a handler's would be ("offloaded computation") and {@code then} does not run.
   */
  default <T> void offload(java.util.function.Supplier<T> work, java.util.function.Consumer<T> then) {
    throw kitMissing("offload");
  }

  /**
   * Tells the simulator's CPU model that the event being handled costs {@code micros} more than its type's service
   * time (a command that moves many variables costs more): the server stays busy for it, so the inputs queued behind
   * it wait, and the sends made after the charge leave when it is spent. Only with a service-time model
   * ({@code kvlab sim --service-time}); the runtime, whose CPU is real, and a hand-made context ignore it.
   */
  default void chargeMicros(long micros) {}

  private UnsupportedOperationException kitMissing(String what) {
    return new UnsupportedOperationException(what + " is part of the protocol kit, which this context ("
        + getClass().getName() + ") does not implement. Fix: run the server on the runtime or the simulator");
  }
}
