package org.kvlab.cluster;

import java.util.Map;

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

  /**
   * What the files of directory {@code dir} of its working directory (e.g. {@code hdr}) hold beyond
   * {@code offsets} (per file name; a file not in it: from its start), at most {@code maxBytes} per file, read while
   * it runs and after it ended until {@link #collect()}: how the logs it writes are followed live (the bench's
   * latency charts). Files that gained nothing, and names other than letters, digits, {@code .}, {@code _} and
   * {@code -}, are left out; a missing directory gives nothing. Local: read from its directory; remote: one command
   * over its connection, bounded by the backend's command timeout. Any thread.
   */
  Map<String, byte[]> readNew(String dir, Map<String, Long> offsets, int maxBytes) throws BackendException;

  /** Copies its files (stdout.txt, stderr.txt and what it wrote) into the spec's local directory; local: nothing. */
  void collect() throws BackendException;
}
