package org.kvlab.api;

/**
 * Why a {@link Call} or {@link QuorumCall} ended without its answer.
 *
 * @param kind what happened
 * @param reason for people: who did not answer, the callee's reason, the full queue
 */
public record CallFailure(Kind kind, String reason) {
  public enum Kind {
    /** No answer within the timeout (the callee may still have acted on the request). */
    TIMEOUT,
    /** The callee answered {@link Request#fail}: the request definitely had no effect there. */
    FAILED,
    /** The callee answered {@link Request#unknown}, or its handler threw: the request may have had an effect. */
    UNKNOWN,
    /** The channel to the callee was full, so the request was not sent ({@link BackPressureException}). */
    BACK_PRESSURE
  }

  @Override
  public String toString() {
    return kind + ": " + reason;
  }
}
