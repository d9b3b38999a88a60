package org.kvlab.api;

import com.google.protobuf.Message;
import java.util.Optional;

/**
 * A client request being handled by a server. Answer it exactly once, now or later: where a paper
 * says "wait until", keep the request (e.g. in a timer or a queue) and reply when the condition holds.
 *
 * @param <Q> the request message type
 */
public interface Request<Q extends Message> {
  Q body();

  /**
   * The server that sent this request with {@code call(...)}, for a call handler (e.g. to check that a dependency
   * check comes from this server's own datacenter); empty for a client's request, also when another server
   * {@code forward}ed it here (a forwarded request runs as if its client had sent it).
   */
  default Optional<NodeId> from() {
    return Optional.empty();
  }

  /** Sends {@code reply} to the client. Under {@code sync} durability the runtime delays it until
   * every write made so far is on disk. Answering twice is an invariant violation. */
  void reply(Message reply);

  /**
   * Answers with an error: the operation <b>definitely did not take effect</b> and never will (nothing
   * was written, nothing was sent that could still make it visible). The client sees an
   * {@link OperationException} with {@link OperationException#outcomeUnknown()} false; histories record
   * the operation as {@code FAIL}, and checkers may then rely on its value never being read. Use
   * {@link #unknown} whenever that is not certain.
   */
  void fail(String reason);

  /**
   * Answers with an error whose outcome is <b>unknown</b>: the operation may have taken effect, or may
   * still take effect later (for example the server gave up waiting on a peer after it had already
   * stored or forwarded the write). The client sees an {@link OperationException} with
   * {@link OperationException#outcomeUnknown()} true; histories record the operation as {@code INFO}.
   * The words of {@code reason} do not matter to the outcome (a reason saying "timed out" passed to
   * {@link #fail} is still a definite failure).
   */
  void unknown(String reason);

  boolean answered();
}
