package org.kvlab.api;

/** A bounded queue is full; the message names the queue, its limit and what to do. */
public final class BackPressureException extends RuntimeException {
  public BackPressureException(String message) {
    super(message);
  }
}
