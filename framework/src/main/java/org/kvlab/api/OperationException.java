package org.kvlab.api;

/**
 * A client operation failed: the server answered with an error, the server could not be reached, or
 * the operation timed out. The message names the cause and, where there is one, the fix.
 */
public class OperationException extends RuntimeException {
  public OperationException(String message) {
    super(message);
  }

  public OperationException(String message, Throwable cause) {
    super(message, cause);
  }
}
