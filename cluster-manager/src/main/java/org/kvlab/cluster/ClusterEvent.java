package org.kvlab.cluster;

/**
 * Something that happened on one host (or this machine) during a backend operation: the CLI prints them, a GUI
 * shows them per host. Never carries a secret.
 *
 * @param backend the backend's name
 * @param host the host, or null for the backend as a whole
 * @param node the server id or client name the event concerns, or null
 * @param kind what happened
 * @param message details for people (for {@link Kind#FAILED}: the cause and the fix)
 */
public record ClusterEvent(String backend, String host, String node, Kind kind, String message) {
  public enum Kind {
    /** Provisioning (EC2): a resource created or deleted, instances running, SSH answering. */
    PROVISIONED, DELETED,
    /** Hosts: connected, new host key recorded, Java checked, distribution uploaded (or already there). */
    CONNECTED, NEW_HOST_KEY, JAVA_CHECKED, UPLOADED, UPLOAD_SKIPPED, CONFIG_UPLOADED, SECRET_UPLOADED,
    /** Servers. */
    STARTED, ALREADY_RUNNING, RUNNING, NOT_RUNNING, STOPPED, KILLED, LOG_FETCHED,
    /** Client processes. */
    CLIENT_STARTED, CLIENT_EXITED, CLIENT_KILLED, FILES_COLLECTED,
    FAILED
  }

  @Override
  public String toString() {
    return backend + (host == null ? "" : " " + host) + (node == null ? "" : " " + node) + ": " + kind
        + (message == null || message.isEmpty() ? "" : " " + message);
  }
}
