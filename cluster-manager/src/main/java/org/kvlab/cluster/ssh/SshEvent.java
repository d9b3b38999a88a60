package org.kvlab.cluster.ssh;

/**
 * Something that happened on one host during an SSH operation, reported as it happens (the CLI prints
 * them, a GUI shows them). Never carries a secret.
 *
 * @param host the host as written in the cluster file
 * @param node the server id the event concerns, or null for the host as a whole
 * @param kind what happened
 * @param message details for people (for {@link Kind#FAILED}: the cause and the fix)
 */
public record SshEvent(String host, String node, Kind kind, String message) {
  public enum Kind {
    CONNECTED, NEW_HOST_KEY, JAVA_CHECKED, UPLOADED, UPLOAD_SKIPPED, CONFIG_UPLOADED, SECRET_UPLOADED,
    STARTED, ALREADY_RUNNING, RUNNING, NOT_RUNNING, STOPPED, KILLED, LOG_FETCHED, FAILED
  }

  /** Receives events; called from the per-host worker threads (implementations must be thread-safe). */
  @FunctionalInterface
  public interface Listener {
    void on(SshEvent event);
  }

  @Override
  public String toString() {
    return host + (node == null ? "" : " " + node) + ": " + kind + (message == null || message.isEmpty() ? "" : " " + message);
  }
}
