package org.kvlab.api;

import com.google.protobuf.Message;
import java.util.function.Consumer;

/**
 * A request from this server to another one ({@link ServerContext#call}), answered there by a
 * {@link Handlers#call} handler. Set the callbacks in the same handler that made the call: no callback
 * runs before that handler returns. Exactly one of them runs, once, on this node's event loop, unless
 * the call is cancelled first:
 *
 * <pre>{@code
 * call(primary, Prepare.newBuilder().setSlot(s).build(), Promise.class, Duration.ofMillis(200))
 *     .onReply(p -> promised(p))
 *     .onFailure(f -> log().debug("no promise: {}", f))
 *     .retryOnTimeout();
 * }</pre>
 *
 * <p>The framework matches the reply to the call by an id of the caller's incarnation and a sequence number
 * (deterministic, so the simulator replays it): a reply to a call of an earlier incarnation of this server, to a
 * cancelled call or to one already answered is dropped.
 *
 * @param <P> the reply type
 */
public interface Call<P extends Message> {
  /** Runs {@code action} with the callee's reply. */
  Call<P> onReply(Consumer<? super P> action);

  /**
   * Runs {@code action} when the call ends without a reply: a timeout (unless {@link #retryOnTimeout()}), the
   * callee's {@code fail} or {@code unknown}, a reply of another type (UNKNOWN), or a full channel (BACK_PRESSURE).
   * Without it a failure is only counted ({@code kit.callFailures}).
   */
  Call<P> onFailure(Consumer<? super CallFailure> action);

  /**
   * On every timeout, sends the request again with the same id instead of failing, until a reply comes or the call
   * is cancelled: the call survives the callee's crash and restart. The callee may then handle the request more
   * than once: its handler must be idempotent (or recognise the repeat).
   */
  Call<P> retryOnTimeout();

  /** Stops waiting: no callback runs after this. Idempotent. */
  void cancel();

  /** Whether a callback ran or the call was cancelled. */
  boolean done();
}
