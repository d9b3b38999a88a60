package org.kvlab.api;

/**
 * A client operation did not complete normally. The message names the cause and, where there is one,
 * the fix. It carries the operation's outcome, as whoever raised it knows it:
 *
 * <ul>
 *   <li><b>failed</b> ({@link #outcomeUnknown()} false, the constructors): the operation definitely did
 *       not take effect and never will (a server answered {@link Request#fail}, the request was refused
 *       or never sent). Histories record it as {@code FAIL}.
 *   <li><b>outcome unknown</b> ({@link #unknown}): it may have taken effect, or may still take effect
 *       later (a server answered {@link Request#unknown}, the client gave up waiting, the connection was
 *       lost with the request on it). Histories record it as {@code INFO}.
 * </ul>
 *
 * <p>The words of the message never change the outcome: only the flag does (see
 * {@code org.kvlab.history.History#outcomeOf}).
 */
public class OperationException extends RuntimeException {
  private final boolean outcomeUnknown;

  /** A definite failure: the operation did not take effect. */
  public OperationException(String message) {
    this(message, null, false);
  }

  /** A definite failure: the operation did not take effect. */
  public OperationException(String message, Throwable cause) {
    this(message, cause, false);
  }

  protected OperationException(String message, Throwable cause, boolean outcomeUnknown) {
    super(message, cause);
    this.outcomeUnknown = outcomeUnknown;
  }

  /**
   * The operation may or may not have taken effect (and may still take effect later): a timeout, a
   * lost connection, a server that answered {@link Request#unknown}. Protocol clients use it for their
   * own timeouts.
   */
  public static OperationException unknown(String message) {
    return new OperationException(message, null, true);
  }

  /** As {@link #unknown(String)}, with the exception that caused it. */
  public static OperationException unknown(String message, Throwable cause) {
    return new OperationException(message, cause, true);
  }

  /** True if the operation may have taken effect; false if it definitely did not. */
  public boolean outcomeUnknown() {
    return outcomeUnknown;
  }
}
