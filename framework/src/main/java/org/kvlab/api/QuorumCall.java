package org.kvlab.api;

import com.google.protobuf.Message;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One request to several servers, done when {@code needed} of them replied ({@link ServerContext#callAll}): "ask
 * N, proceed on k". Replies are per server (a second reply of one server, or a reply to a retry, counts once).
 * Set the callbacks in the handler that made the call; no callback runs before it returns, not even for
 * {@code needed == 0}. Exactly one callback runs, once, unless it is cancelled.
 *
 * <pre>{@code
 * callAll(replicas, Accept.newBuilder().setBallot(b).build(), Accepted.class, replicas.size() / 2 + 1, timeout)
 *     .onQuorum(acks -> req.reply(PutReply.getDefaultInstance()))
 *     .onFailure(f -> req.unknown("no majority: " + f.reason()));
 * }</pre>
 *
 * @param <P> the reply type
 */
public interface QuorumCall<P extends Message> {
  /** Runs {@code action} with the first {@code needed} replies, by server, in arrival order. */
  QuorumCall<P> onQuorum(Consumer<? super Map<NodeId, P>> action);

  /**
   * Runs {@code action} when the quorum became impossible (too many servers answered fail or unknown, or could not
   * be sent to) or on timeout (unless {@link #retryOnTimeout()}).
   */
  QuorumCall<P> onFailure(Consumer<? super CallFailure> action);

  /** On every timeout, resends to the servers that have not replied instead of failing (see {@link Call#retryOnTimeout}). */
  QuorumCall<P> retryOnTimeout();

  /** Stops waiting: no callback runs after this. Idempotent. */
  void cancel();

  /** Whether a callback ran or the call was cancelled. */
  boolean done();

  /** The replies so far, by server, in arrival order (read-only). */
  Map<NodeId, P> replies();
}
