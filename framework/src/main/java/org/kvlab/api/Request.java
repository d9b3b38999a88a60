package org.kvlab.api;

import com.google.protobuf.Message;

/**
 * A client request being handled by a server. Answer it exactly once, now or later: where a paper
 * says "wait until", keep the request (e.g. in a timer or a queue) and reply when the condition holds.
 *
 * @param <Q> the request message type
 */
public interface Request<Q extends Message> {
  Q body();

  /** Sends {@code reply} to the client. Under {@code sync} durability the runtime delays it until
   * every write made so far is on disk. Answering twice is an invariant violation. */
  void reply(Message reply);

  /** Answers with an error the client sees as a failed operation. */
  void fail(String reason);

  boolean answered();
}
