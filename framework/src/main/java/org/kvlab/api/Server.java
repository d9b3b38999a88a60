package org.kvlab.api;

import com.google.protobuf.Message;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.kvlab.store.VersionedStore;
import org.slf4j.Logger;

/**
 * Base class of a protocol's server side: one instance per server node.
 *
 * <p>Declare every handler in {@link #register(Handlers)}. The runtime calls all handlers of one node
 * on one thread, so protocol state needs no locks, and handlers must never block. The protected
 * methods below are shortcuts to the {@link ServerContext}, which is all protocol code may touch.
 *
 * @param <R> the record type this protocol stores (see {@link Protocol#record()})
 */
public abstract class Server<R extends Message> {
  private ServerContext context;
  private List<NodeId> peers; // the topology of a server never changes: computed once

  /** Declares the protocol's requests, messages and periodic tasks. Called once, before any event. */
  protected abstract void register(Handlers on);

  /** Called once on the event loop after {@link #register}, before the first event. */
  protected void onStart() {}

  /** Runtime entry point: binds the context and collects the handlers. Not for protocol code. */
  public final void bind(ServerContext context, Handlers handlers) {
    Invariants.check(this.context == null, "server %s bound twice", context.self());
    this.context = context;
    register(handlers);
  }

  /** Runtime entry point: runs {@link #onStart()}. Not for protocol code. */
  public final void start() {
    onStart();
  }

  /**
   * This server's role in the protocol, for people: {@code kvlab local status} shows it in its ROLE column (e.g.
   * {@code "leader t=3"} or {@code "follower t=3"} for a Raft replica and its term). Null (the default) for a protocol
   * whose servers have no roles, shown as "-". Called by the runtime on the node's event loop, as handlers are; keep
   * it short (a few words) and cheap. Never part of the protocol's behaviour.
   */
  public String role() {
    return null;
  }

  protected final ServerContext context() {
    return context;
  }

  protected final NodeId self() {
    return context.self();
  }

  /** This server's datacenter id. */
  protected final int dc() {
    return context.self().dc();
  }

  /** This server's partition id. */
  protected final int partition() {
    return context.self().partition();
  }

  protected final Topology topology() {
    return context.topology();
  }

  /** The replicas of this partition in the other datacenters. */
  protected final List<NodeId> peers() {
    if (peers == null) {
      peers = List.copyOf(context.topology().peersOf(context.self()));
    }
    return peers;
  }

  protected final Params params() {
    return context.params();
  }

  protected final void send(NodeId to, Message message) {
    context.send(to, message);
  }

  /** Sends {@code message} to every replica of this partition in the other datacenters. */
  protected final void sendToPeers(Message message) {
    for (NodeId peer : peers()) {
      context.send(peer, message);
    }
  }

  protected final Timer after(Duration delay, Runnable task) {
    return context.after(delay, task);
  }

  /** This node's physical clock in milliseconds (with the node's configured skew). */
  protected final long now() {
    return context.clock().millis();
  }

  /** This node's physical clock in microseconds (with the node's configured skew). */
  protected final long nowMicros() {
    return context.clock().micros();
  }

  protected final Clock clock() {
    return context.clock();
  }

  protected final Random random() {
    return context.random();
  }

  protected final VersionedStore<R> store() {
    return context.store();
  }

  protected final Metrics metrics() {
    return context.metrics();
  }

  protected final Logger log() {
    return context.log();
  }

  // The protocol kit (docs/spi.md): shortcuts to the context.

  /** How many times this server has started on its store (1 on a fresh store); see {@link ServerContext#incarnation}. */
  protected final long incarnation() {
    return context.incarnation();
  }

  /** "Wait until {@code condition}", then {@code action}; see {@link ServerContext#waitUntil(BooleanSupplier, Runnable)}. */
  protected final Wait waitUntil(BooleanSupplier condition, Runnable action) {
    return context.waitUntil(condition, action);
  }

  /** As {@link #waitUntil(BooleanSupplier, Runnable)}, giving up after {@code timeout} with {@code onTimeout}. */
  protected final Wait waitUntil(BooleanSupplier condition, Duration timeout, Runnable action, Runnable onTimeout) {
    return context.waitUntil(condition, timeout, action, onTimeout);
  }

  /** "Wait until the clock reads {@code micros}"; see {@link ServerContext#waitUntilClock}. */
  protected final Wait waitUntilClock(long micros, Runnable action) {
    return context.waitUntilClock(micros, action);
  }

  /** A request to another server, answered by its {@link Handlers#call} handler; see {@link Call}. */
  protected final <P extends Message> Call<P> call(NodeId to, Message request, Class<P> replyType, Duration timeout) {
    return context.call(to, request, replyType, timeout);
  }

  /** A request to several servers, done on {@code needed} replies; see {@link QuorumCall}. */
  protected final <P extends Message> QuorumCall<P> callAll(Collection<NodeId> to, Message request,
      Class<P> replyType, int needed, Duration timeout) {
    return context.callAll(to, request, replyType, needed, timeout);
  }

  /** Hands a client request to another server's handler; see {@link ServerContext#forward}. */
  protected final <Q extends Message> void forward(NodeId to, Request<Q> request, Duration timeout) {
    context.forward(to, request, timeout);
  }

  /** The durable slot for {@code defaultInstance}'s type; see {@link Slot}. */
  protected final <S extends Message> Slot<S> slot(S defaultInstance) {
    return context.slot(defaultInstance);
  }

  /** The durable map {@code name} of {@code defaultInstance}'s type; see {@link SlotMap}. */
  protected final <S extends Message> SlotMap<S> slotMap(String name, S defaultInstance) {
    return context.slotMap(name, defaultInstance);
  }

  /** Runs a pure computation off the event loop, its result back as a later event; see {@link ServerContext#offload}. */
  protected final <T> void offload(java.util.function.Supplier<T> work, java.util.function.Consumer<T> then) {
    context.offload(work, then);
  }

  /** This event costs {@code micros} more in the simulator's CPU model; see {@link ServerContext#chargeMicros}. */
  protected final void chargeMicros(long micros) {
    context.chargeMicros(micros);
  }
}
