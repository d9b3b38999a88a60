package org.kvlab.api;

import com.google.protobuf.Message;
import java.time.Duration;

/**
 * Where a server declares its whole event interface, in one place ({@link Server#register}).
 * All handlers of one node run on that node's single event-loop thread, one at a time, to completion.
 */
public interface Handlers {
  /** Handles client requests of type {@code type}. */
  <Q extends Message> void request(Class<Q> type, RequestHandler<Q> handler);

  /**
   * Answers calls of type {@code type} from other servers ({@link ServerContext#call}) with the same
   * {@link Request} API as client requests: {@code reply}, {@code fail} or {@code unknown}, exactly once.
   */
  default <Q extends Message> void call(Class<Q> type, RequestHandler<Q> handler) {
    throw new UnsupportedOperationException("calls between servers are part of the protocol kit, which this "
        + getClass().getName() + " does not implement. Fix: run the server on the runtime or the simulator");
  }

  /** Handles server-to-server messages of type {@code type}. */
  <M extends Message> void message(Class<M> type, MessageHandler<M> handler);

  /**
   * Runs {@code task} every {@code period} (positive), the first run one period after the node starts. Both
   * drivers run it every period after that on the node's timer clock (see {@link ServerContext#every}). Registering
   * two handlers for one type, or a period that is not positive, is refused (an invariant violation).
   */
  void every(Duration period, Runnable task);

  @FunctionalInterface
  interface RequestHandler<Q extends Message> {
    void handle(Request<Q> request);
  }

  @FunctionalInterface
  interface MessageHandler<M extends Message> {
    void handle(M message, NodeId from);
  }
}
