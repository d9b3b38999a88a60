package org.kvlab.cluster.ssh;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * How to reach the hosts of a cluster over SSH: the {@code ssh:} section of a cluster file (see
 * {@code docs/ssh.md}), plus the options a front end sets. Keys or an SSH agent only: there is no
 * password field, by design.
 *
 * @param user login name on every host
 * @param keyFile private key file (OpenSSH or PEM format, not encrypted), or null when {@code agent}
 * @param agent authenticate through the SSH agent at {@code agentSocket} (SSH_AUTH_SOCK)
 * @param agentSocket the agent's socket, or null for the environment's SSH_AUTH_SOCK
 * @param knownHosts the known_hosts file host keys are checked against
 * @param hostKeys what to do with a host whose key is not in {@code knownHosts} yet
 * @param port SSH port on every host
 * @param remoteDir kvlab's directory on each host; relative paths are under the login's home; {@code {host}}
 *     is replaced by the host's address (for home directories shared between hosts)
 * @param java the java command on the hosts (17 or later)
 * @param jvmOptions options of each server JVM, one line
 * @param connectTimeout bound on connecting and authenticating to one host
 * @param commandTimeout bound on one remote command
 * @param addresses server host (as written in the cluster file) to the address SSH connects to, when they
 *     differ (e.g. EC2 private vs public addresses); hosts not listed are reached at their own address
 * @param listen the address servers listen on instead of their host in the cluster file ({@code kvlab server
 *     --listen}), or null: for hosts whose cluster-file address is not on any of their interfaces (an EC2
 *     instance's public address is translated by AWS, so its servers listen on {@code 0.0.0.0})
 */
public record SshSettings(
    String user,
    Path keyFile,
    boolean agent,
    Path agentSocket,
    Path knownHosts,
    HostKeyPolicy hostKeys,
    int port,
    String remoteDir,
    String java,
    String jvmOptions,
    Duration connectTimeout,
    Duration commandTimeout,
    Map<String, String> addresses,
    String listen) {

  public static final int DEFAULT_PORT = 22;
  public static final String DEFAULT_REMOTE_DIR = "kvlab";
  public static final String DEFAULT_JVM_OPTIONS = org.kvlab.cluster.ServerJvm.DEFAULT_OPTIONS;
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(60);

  /** Host keys not yet in known_hosts: refused ({@link #STRICT}), or recorded and reported ({@link #ACCEPT_NEW}). */
  public enum HostKeyPolicy { STRICT, ACCEPT_NEW }

  public SshSettings {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(knownHosts, "knownHosts");
    Objects.requireNonNull(hostKeys, "hostKeys");
    Objects.requireNonNull(remoteDir, "remoteDir");
    Objects.requireNonNull(java, "java");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(commandTimeout, "commandTimeout");
    if (keyFile == null && !agent) {
      throw new IllegalArgumentException("SSH needs a key file or the agent");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " is not a port");
    }
    jvmOptions = jvmOptions == null ? DEFAULT_JVM_OPTIONS : jvmOptions;
    addresses = addresses == null ? Map.of() : Map.copyOf(addresses);
  }

  /** Key-file settings with the defaults: port 22, directory ~/kvlab, {@code java}, strict host keys. */
  public static SshSettings withKey(String user, Path keyFile, Path knownHosts) {
    return new SshSettings(user, keyFile, false, null, knownHosts, HostKeyPolicy.STRICT, DEFAULT_PORT,
        DEFAULT_REMOTE_DIR, "java", DEFAULT_JVM_OPTIONS, DEFAULT_CONNECT_TIMEOUT, DEFAULT_COMMAND_TIMEOUT, Map.of(),
        null);
  }

  public SshSettings withPort(int port) {
    return new SshSettings(user, keyFile, agent, agentSocket, knownHosts, hostKeys, port, remoteDir, java,
        jvmOptions, connectTimeout, commandTimeout, addresses, listen);
  }

  public SshSettings withHostKeys(HostKeyPolicy policy) {
    return new SshSettings(user, keyFile, agent, agentSocket, knownHosts, policy, port, remoteDir, java,
        jvmOptions, connectTimeout, commandTimeout, addresses, listen);
  }

  public SshSettings withRemoteDir(String dir) {
    return new SshSettings(user, keyFile, agent, agentSocket, knownHosts, hostKeys, port, dir, java,
        jvmOptions, connectTimeout, commandTimeout, addresses, listen);
  }

  public SshSettings withJava(String javaCommand) {
    return new SshSettings(user, keyFile, agent, agentSocket, knownHosts, hostKeys, port, remoteDir, javaCommand,
        jvmOptions, connectTimeout, commandTimeout, addresses, listen);
  }

  public SshSettings withKnownHosts(Path file) {
    return new SshSettings(user, keyFile, agent, agentSocket, file, hostKeys, port, remoteDir, java,
        jvmOptions, connectTimeout, commandTimeout, addresses, listen);
  }

  public SshSettings withTimeouts(Duration connect, Duration command) {
    return new SshSettings(user, keyFile, agent, agentSocket, knownHosts, hostKeys, port, remoteDir, java,
        jvmOptions, connect, command, addresses, listen);
  }

  public SshSettings withJvmOptions(String options) {
    return new SshSettings(user, keyFile, agent, agentSocket, knownHosts, hostKeys, port, remoteDir, java,
        options, connectTimeout, commandTimeout, addresses, listen);
  }

  /** Authenticate through the agent at {@code socket} (null: SSH_AUTH_SOCK) instead of a key file. */
  public SshSettings withAgent(Path socket) {
    return new SshSettings(user, null, true, socket, knownHosts, hostKeys, port, remoteDir, java,
        jvmOptions, connectTimeout, commandTimeout, addresses, listen);
  }

  public SshSettings withAddresses(Map<String, String> serverHostToSshAddress) {
    return new SshSettings(user, keyFile, agent, agentSocket, knownHosts, hostKeys, port, remoteDir, java,
        jvmOptions, connectTimeout, commandTimeout, serverHostToSshAddress, listen);
  }

  /** Servers listen on {@code address} (e.g. {@code 0.0.0.0}) instead of their host in the cluster file. */
  public SshSettings withListen(String address) {
    return new SshSettings(user, keyFile, agent, agentSocket, knownHosts, hostKeys, port, remoteDir, java,
        jvmOptions, connectTimeout, commandTimeout, addresses, address);
  }

  /** The address SSH connects to for a server host of the cluster file. */
  public String sshAddress(String serverHost) {
    return addresses.getOrDefault(serverHost, serverHost);
  }

  /** The remote directory for a host: {@code {host}} replaced by the host's address. */
  public String remoteDirFor(String serverHost) {
    return remoteDir.replace("{host}", serverHost);
  }
}
