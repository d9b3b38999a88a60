package org.kvlab.cluster;

/** A backend operation failed; the message names the cause and the fix (and the host when there is one). */
public final class BackendException extends Exception {
  private final boolean cancelled;

  public BackendException(String message) {
    this(message, null, false);
  }

  public BackendException(String message, Throwable cause) {
    this(message, cause, false);
  }

  public BackendException(String message, Throwable cause, boolean cancelled) {
    super(message, cause);
    this.cancelled = cancelled;
  }

  /** True if the operation ended because it was cancelled (Ctrl-C), not because something failed. */
  public boolean cancelled() {
    return cancelled;
  }
}
