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

  /** Handles server-to-server messages of type {@code type}. */
  <M extends Message> void message(Class<M> type, MessageHandler<M> handler);

  /**
   * Runs {@code task} every {@code period}, starting one to two periods after the node starts. The real
   * runtime aligns the runs to multiples of the period on the machine's monotonic clock, so timers of
   * commensurate periods run in the same event-loop turn (the simulator runs them one period apart from
   * the start, as before).
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
