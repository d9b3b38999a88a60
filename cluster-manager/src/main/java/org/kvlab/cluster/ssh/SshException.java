package org.kvlab.cluster.ssh;

/**
 * An SSH operation on one host failed. The message is meant for people: it names the host, what went
 * wrong and how to fix it ({@code "10.0.0.5:22: host key mismatch ... Fix: ..."}).
 */
public final class SshException extends Exception {
  private final String host;
  private final String fix;

  public SshException(String host, String problem, String fix) {
    this(host, problem, fix, null);
  }

  public SshException(String host, String problem, String fix, Throwable cause) {
    super(host + ": " + problem + (fix == null || fix.isEmpty() ? "" : ". Fix: " + fix), cause);
    this.host = host;
    this.fix = fix;
  }

  /** The host (address:port) the problem concerns. */
  public String host() {
    return host;
  }

  /** What the user can do about it. */
  public String fix() {
    return fix;
  }
}
