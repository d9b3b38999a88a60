package org.kvlab.api;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Base class of a protocol's client side: one instance per client session (one YCSB thread, one shell).
 * It turns operations into requests and keeps the session's metadata (dependency times, vectors).
 *
 * <p>Threading: all methods of one instance, and all completions of its {@link #call}s, run on the
 * session's single thread; no locks are needed. Applications use the blocking {@link Session} facade or
 * the futures directly.
 *
 * <p>Extra operations are offered by implementing capability interfaces such as
 * {@link ReadOnlyTransactions}.
 */
public abstract class Client {
  private ClientContext context;

  /** Runtime entry point: binds the context. Not for protocol code. */
  public final void bind(ClientContext context) {
    Invariants.check(this.context == null, "client session bound twice");
    this.context = context;
    onStart();
  }

  /** Called once after binding, on the session thread. */
  protected void onStart() {}

  /** Reads {@code key}; completes with empty if the key has no visible version. */
  public abstract CompletableFuture<Optional<ByteString>> get(String key);

  /** Writes {@code value} to {@code key}; completes when the protocol has acknowledged the write. */
  public abstract CompletableFuture<Void> put(String key, ByteString value);

  protected final ClientContext context() {
    return context;
  }

  /** The datacenter this session talks to. */
  protected final int dc() {
    return context.dc();
  }

  protected final Topology topology() {
    return context.topology();
  }

  /** The server of this session's datacenter that holds {@code key}. */
  protected final NodeId serverFor(String key) {
    return context.topology().serverFor(key, context.dc());
  }

  protected final Params params() {
    return context.params();
  }

  protected final <R extends Message> CompletableFuture<R> call(NodeId server, Message request, Class<R> replyType) {
    return context.call(server, request, replyType);
  }

  protected final Clock clock() {
    return context.clock();
  }
}
