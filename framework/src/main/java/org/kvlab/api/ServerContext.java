package org.kvlab.api;

import com.google.protobuf.Message;
import java.time.Duration;
import java.util.Random;
import org.kvlab.store.VersionedStore;
import org.slf4j.Logger;

/**
 * Everything a protocol server may touch. The real runtime and the simulator each implement it; protocol
 * code never reads the system clock, creates threads or opens sockets, so the same code runs in both.
 * All methods must be called from the node's event loop (i.e. from handlers and timers).
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

  /** Runs {@code task} every {@code period} on this node's event loop. */
  Timer every(Duration period, Runnable task);

  Clock clock();

  Random random();

  <R extends Message> VersionedStore<R> store();

  Metrics metrics();

  Logger log();
}
