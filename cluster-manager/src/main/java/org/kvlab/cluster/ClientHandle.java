package org.kvlab.cluster;

/** A client process started by {@link ClusterBackend#startClient}. */
public interface ClientHandle {
  /** The spec's name. */
  String name();

  /** Where it runs (host or "localhost"). */
  String host();

  /** Waits up to {@code millis} for it to end (and its standard error to be read); true if it has ended. */
  boolean waitFor(long millis) throws InterruptedException;

  /** Its exit code once it has ended ({@link #waitFor} returned true), else -1. */
  int exitCode();

  /** Kills it (and its children) at once; any thread. */
  void kill();

  /** Copies its files (stdout.txt, stderr.txt and what it wrote) into the spec's local directory; local: nothing. */
  void collect() throws BackendException;
}
