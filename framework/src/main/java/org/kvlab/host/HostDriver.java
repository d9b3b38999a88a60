package org.kvlab.host;

import com.google.protobuf.Message;
import org.kvlab.api.Clock;
import org.kvlab.api.Metrics;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.api.Timer;
import org.kvlab.api.Topology;
import java.util.Random;
import org.kvlab.store.KitState;
import org.kvlab.store.VersionedStore;
import org.slf4j.Logger;

/**
 * What a driver (the runtime's {@code Node}, the simulator's node) gives its {@link ProtocolHost}: the node's
 * place, clock, store and channels, and raw timers on its event loop. Everything is called on the node's loop.
 */
public interface HostDriver {
  /** What the node is and has; fixed for one start. */
  record Env(NodeId self, Topology topology, Params params, Clock clock, Random random, VersionedStore<Message> store,
      Metrics metrics, Logger log) {}

  /** Sends a protocol message on the reliable FIFO channel to {@code to} (throws BackPressureException when full). */
  void send(NodeId to, Message message);

  /** Sends a kit frame on the same channel (same order, same faults). */
  void sendKit(NodeId to, KitFrame frame);

  /** How many more messages the channel to {@code to} takes now (for sends the host holds to the turn's end). */
  int room(NodeId to);

  /** Runs {@code task} once after {@code delayNanos} on the loop (not after a restart); the host marks the event. */
  Timer schedule(long delayNanos, Runnable task);

  /** Runs {@code task} after {@code firstNanos}, then every {@code periodNanos} (not after a restart). */
  Timer scheduleRepeating(long firstNanos, long periodNanos, Runnable task);

  /** The node's timer clock in nanoseconds, on which periodic runs are aligned (see {@code ServerContext.every}). */
  long timerNanos();

  /**
   * Protocol code threw in {@code where} (e.g. "handler of PutReq", "timer"); {@code request} is the request it was
   * handling, or null. The runtime halts on an invariant violation and on any failure of the server's start
   * ({@link ProtocolHost#START_SITE}), and answers the request otherwise; the simulator fails the run.
   */
  void failed(String where, RuntimeException e, HostRequest request);

  /** The host finished one event (the simulator's state probe reports the node). */
  void eventDone();

  /** The framework's own durable state of this node (incarnation, slots). */
  KitState state();

  /** The host wrote to {@link #state()} (the runtime's group commit counts it). */
  void stateWritten();

  /**
   * Whether messages sent in a turn that wrote a slot must wait until the turn's end, behind the slot's write (the
   * runtime under durability sync, whose durable outbox would otherwise keep a message without the state it
   * follows).
   */
  boolean holdSendsBehindState();

  /**
   * Runs {@code work} (a pure computation) off the event loop, then {@code done} on the loop as a later event (not
   * after a restart): the runtime on a worker thread, posting {@code done} back; the simulator inline, delivering
   * {@code done} after its model's duration.
   */
  void offload(Runnable work, Runnable done);

  /**
   * The event being handled costs {@code micros} more CPU than its type's service time: the simulator's cost model
   * ({@code ServiceTime}) keeps the node busy for it; the runtime, whose CPU is real, ignores it.
   */
  default void charge(long micros) {}
}
