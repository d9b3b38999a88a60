package org.kvlab.cluster.ssh;

import com.jcraft.jsch.AgentIdentityRepository;
import com.jcraft.jsch.AgentProxyException;
import com.jcraft.jsch.ChannelExec;
import com.jcraft.jsch.ChannelSftp;
import com.jcraft.jsch.HostKeyRepository;
import com.jcraft.jsch.JSch;
import com.jcraft.jsch.JSchChangedHostKeyException;
import com.jcraft.jsch.JSchException;
import com.jcraft.jsch.JSchUnknownHostKeyException;
import com.jcraft.jsch.KeyPair;
import com.jcraft.jsch.SSHAgentConnector;
import com.jcraft.jsch.Session;
import com.jcraft.jsch.SftpException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.Set;

/**
 * One authenticated SSH connection to a host (JSch): remote commands with a timeout and their exit
 * status, and file transfer over SFTP. Not thread-safe: one connection per host and thread.
 *
 * <p>Authentication is by key file or SSH agent only. The host key is verified against the known_hosts
 * file; an unknown or changed key is refused with the host, the key's fingerprint and the fix.
 */
public final class SshConnection implements AutoCloseable {
  /** What a remote command printed and how it ended. */
  public record ExecResult(int exitStatus, String stdout, String stderr) {
    public boolean ok() {
      return exitStatus == 0;
    }
  }

  private final String host;
  private final String label;
  private final Session session;
  private final Duration commandTimeout;
  private ChannelSftp sftp;

  private SshConnection(String host, String label, Session session, Duration commandTimeout) {
    this.host = host;
    this.label = label;
    this.session = session;
    this.commandTimeout = commandTimeout;
  }

  /** The host as reported in messages: {@code user@address:port}. */
  public String label() {
    return label;
  }

  public String host() {
    return host;
  }

  /**
   * Connects to {@code address} and authenticates, within {@code settings.connectTimeout()}.
   *
   * @throws SshException naming the host, the problem and the fix: unreachable, host key unknown or
   *     changed, key file missing or readable by others, authentication refused
   */
  public static SshConnection open(String address, SshSettings settings, KnownHostsFile knownHosts) throws SshException {
    String label = settings.user() + "@" + address + ":" + settings.port();
    JSch jsch = new JSch();
    if (settings.agent()) {
      useAgent(jsch, settings, label);
    } else {
      useKeyFile(jsch, settings.keyFile(), label);
    }
    jsch.setHostKeyRepository(knownHosts.repository());
    Session session;
    try {
      session = jsch.getSession(settings.user(), address, settings.port());
    } catch (JSchException e) {
      throw new SshException(label, "cannot set up an SSH session: " + e.getMessage(), "check the user and host");
    }
    session.setConfig("StrictHostKeyChecking", "yes");
    session.setConfig("HashKnownHosts", "no");
    session.setConfig("PreferredAuthentications", "publickey");
    int connectMillis = (int) Math.max(1, settings.connectTimeout().toMillis());
    try {
      session.setServerAliveInterval(Math.max(1000, connectMillis));
      session.setServerAliveCountMax(3);
      session.connect(connectMillis);
    } catch (JSchUnknownHostKeyException e) {
      throw hostKeyError(label, address, settings, knownHosts, false, e);
    } catch (JSchChangedHostKeyException e) {
      throw hostKeyError(label, address, settings, knownHosts, true, e);
    } catch (JSchException e) {
      throw connectError(label, settings, e);
    }
    return new SshConnection(address, label, session, settings.commandTimeout());
  }

  private static void useKeyFile(JSch jsch, Path keyFile, String label) throws SshException {
    if (!Files.isRegularFile(keyFile)) {
      throw new SshException(label, "the key file " + keyFile + " does not exist",
          "give the path of your private key in the ssh section ('keyFile: ~/.ssh/id_ed25519'), or use 'agent: true'");
    }
    try {
      Set<PosixFilePermission> perms = Files.getPosixFilePermissions(keyFile);
      for (PosixFilePermission p : perms) {
        if (p.name().startsWith("GROUP") || p.name().startsWith("OTHERS")) {
          throw new SshException(label, "the key file " + keyFile + " is accessible by others (permissions "
              + java.nio.file.attribute.PosixFilePermissions.toString(perms) + "); like OpenSSH, kvlab does not use"
              + " an unprotected private key", "chmod 600 " + keyFile);
        }
      }
    } catch (UnsupportedOperationException notPosix) {
      // Not a POSIX file system: nothing to check.
    } catch (IOException e) {
      throw new SshException(label, "cannot read the key file " + keyFile + ": " + e.getMessage(), "check the path");
    }
    try {
      KeyPair kp = KeyPair.load(jsch, keyFile.toString());
      boolean encrypted = kp.isEncrypted();
      kp.dispose();
      if (encrypted) {
        throw new SshException(label, "the key file " + keyFile + " is protected by a passphrase; kvlab takes no"
            + " passwords or passphrases", "load the key into your SSH agent (ssh-add " + keyFile
            + ") and write 'agent: true' in the ssh section instead of keyFile");
      }
      jsch.addIdentity(keyFile.toString());
    } catch (JSchException e) {
      throw new SshException(label, "cannot use the key file " + keyFile + ": " + e.getMessage(),
          "give an OpenSSH or PEM private key (ssh-keygen -t ed25519 -f FILE), or use 'agent: true'");
    }
  }

  private static void useAgent(JSch jsch, SshSettings settings, String label) throws SshException {
    Path socket = settings.agentSocket();
    if (socket == null) {
      String env = System.getenv("SSH_AUTH_SOCK");
      if (env == null || env.isBlank()) {
        throw new SshException(label, "'agent: true' but SSH_AUTH_SOCK is not set, so there is no SSH agent to ask",
            "start an agent and add your key (eval $(ssh-agent); ssh-add ~/.ssh/id_ed25519), or give 'keyFile:'"
                + " in the ssh section");
      }
      socket = Path.of(env);
    }
    try {
      SSHAgentConnector connector = new SSHAgentConnector(socket);
      AgentIdentityRepository repo = new AgentIdentityRepository(connector);
      if (repo.getIdentities().isEmpty()) {
        throw new SshException(label, "the SSH agent at " + socket + " holds no keys", "add one: ssh-add ~/.ssh/id_ed25519");
      }
      jsch.setIdentityRepository(repo);
    } catch (AgentProxyException e) {
      throw new SshException(label, "cannot reach the SSH agent at " + socket + ": " + e.getMessage(),
          "start an agent (eval $(ssh-agent); ssh-add), or give 'keyFile:' in the ssh section");
    }
  }

  private static SshException hostKeyError(String label, String address, SshSettings settings,
      KnownHostsFile knownHosts, boolean changed, JSchException e) {
    String entry = settings.port() == 22 ? address : "[" + address + "]:" + settings.port();
    KnownHostsFile.Seen seen = knownHosts.seen(entry);
    String key = seen == null ? "" : " (" + seen.keyType() + " key " + seen.fingerprint() + ")";
    if (changed || (seen != null && seen.result() == HostKeyRepository.CHANGED)) {
      return new SshException(label, "HOST KEY MISMATCH: the host presented" + key + ", which differs from the key"
          + " recorded for " + entry + " in " + knownHosts.file() + ". Someone may be intercepting the connection,"
          + " or the host was reinstalled", "check the fingerprint on the host itself (ssh-keygen -lf"
          + " /etc/ssh/ssh_host_ed25519_key.pub); if the host really changed, remove the old entry (ssh-keygen -R '"
          + entry + "' -f " + knownHosts.file() + ") and connect again", e);
    }
    return new SshException(label, "unknown host key: " + entry + " is not in " + knownHosts.file() + key,
        "verify the fingerprint on the host (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub), then add it"
            + " (ssh-keyscan -p " + settings.port() + " " + address + " >> " + knownHosts.file()
            + "), or run with --accept-new-host-keys to record new hosts' keys", e);
  }

  private static SshException connectError(String label, SshSettings settings, JSchException e) {
    Throwable cause = e.getCause();
    String msg = e.getMessage() == null ? "" : e.getMessage();
    if (cause instanceof SocketTimeoutException || msg.contains("timeout") || msg.contains("timed out")) {
      return new SshException(label, "no answer within " + settings.connectTimeout().toMillis() + " ms (host down,"
          + " wrong address, or a firewall dropping the connection)", "check that the host is up and that its SSH"
          + " port " + settings.port() + " is reachable from here (ssh -p " + settings.port() + " " + label.replace(":"
          + settings.port(), "") + ")", e);
    }
    if (cause instanceof ConnectException) {
      return new SshException(label, "connection refused: nothing listens on port " + settings.port(),
          "start the SSH server on the host, or set 'port:' in the ssh section", e);
    }
    if (cause instanceof NoRouteToHostException) {
      return new SshException(label, "no route to the host", "check the address and that the host is up", e);
    }
    if (cause instanceof UnknownHostException) {
      return new SshException(label, "unknown host name", "check the host name in the cluster file", e);
    }
    if (msg.contains("Auth fail") || msg.contains("Auth cancel")) {
      return new SshException(label, "authentication refused for user '" + settings.user() + "' with "
          + (settings.agent() ? "the agent's keys" : "key " + settings.keyFile()),
          "add the public key to ~" + settings.user() + "/.ssh/authorized_keys on the host (ssh-copy-id), or fix"
              + " 'user:' in the ssh section", e);
    }
    return new SshException(label, "cannot connect: " + msg + (cause == null ? "" : " (" + cause + ")"),
        "check the host, its SSH server and the ssh section", e);
  }

  /** Runs {@code command} with the connection's command timeout. */
  public ExecResult exec(String command) throws SshException {
    return exec(command, commandTimeout);
  }

  /**
   * Runs {@code command} through the login shell and waits for it, at most {@code timeout}. Never put a
   * secret in {@code command}: command lines are visible to other users of the host (ps).
   */
  public ExecResult exec(String command, Duration timeout) throws SshException {
    ChannelExec channel = null;
    try {
      channel = (ChannelExec) session.openChannel("exec");
      channel.setCommand(command);
      channel.setInputStream(null);
      InputStream out = channel.getInputStream();
      InputStream err = channel.getErrStream();
      long deadline = System.nanoTime() + timeout.toNanos();
      channel.connect((int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())));
      ByteArrayOutputStream stdout = new ByteArrayOutputStream();
      ByteArrayOutputStream stderr = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      while (true) {
        boolean read = drain(out, stdout, buf) | drain(err, stderr, buf);
        if (channel.isClosed()) {
          drain(out, stdout, buf);
          drain(err, stderr, buf);
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new SshException(label, "the command did not finish within " + timeout.toMillis() + " ms: "
              + firstWords(command), "check the host's load and the command; a longer timeout may be needed");
        }
        if (!read) {
          Thread.sleep(10);
        }
      }
      return new ExecResult(channel.getExitStatus(), stdout.toString(StandardCharsets.UTF_8),
          stderr.toString(StandardCharsets.UTF_8));
    } catch (JSchException | IOException e) {
      throw new SshException(label, "remote command failed to run: " + e.getMessage(),
          "check that the connection to the host is still up", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SshException(label, "interrupted while running a command", "", e);
    } finally {
      if (channel != null) {
        channel.disconnect();
      }
    }
  }

  private static boolean drain(InputStream in, ByteArrayOutputStream to, byte[] buf) throws IOException {
    boolean any = false;
    while (in.available() > 0) {
      int n = in.read(buf);
      if (n < 0) {
        break;
      }
      to.write(buf, 0, n);
      any = true;
    }
    return any;
  }

  private static String firstWords(String command) {
    return command.length() <= 80 ? command : command.substring(0, 80) + "...";
  }

  private ChannelSftp sftp() throws SshException {
    if (sftp == null || !sftp.isConnected()) {
      try {
        sftp = (ChannelSftp) session.openChannel("sftp");
        sftp.connect((int) Math.max(1, commandTimeout.toMillis()));
      } catch (JSchException e) {
        throw new SshException(label, "cannot open an SFTP channel: " + e.getMessage(),
            "enable SFTP on the host's SSH server (Subsystem sftp in sshd_config)", e);
      }
    }
    return sftp;
  }

  /** Writes {@code data} to {@code remotePath} (replacing it), then sets its mode (e.g. 0600). */
  public void upload(InputStream data, String remotePath, int mode) throws SshException {
    try {
      ChannelSftp s = sftp();
      s.put(data, remotePath, ChannelSftp.OVERWRITE);
      s.chmod(mode, remotePath);
    } catch (SftpException e) {
      throw new SshException(label, "cannot write " + remotePath + ": " + e.getMessage(),
          "check that the user may write the remote directory (the ssh section's 'dir')", e);
    }
  }

  /** Copies a local file to {@code remotePath} with mode {@code mode}. */
  public void upload(Path local, String remotePath, int mode) throws SshException {
    try (InputStream in = Files.newInputStream(local)) {
      upload(in, remotePath, mode);
    } catch (IOException e) {
      throw new SshException(label, "cannot read " + local + ": " + e.getMessage(), "check the local file");
    }
  }

  /** Copies {@code remotePath} to {@code local}. */
  public void download(String remotePath, Path local) throws SshException {
    try (OutputStream out = Files.newOutputStream(local)) {
      sftp().get(remotePath, out);
    } catch (SftpException e) {
      throw new SshException(label, "cannot read " + remotePath + ": " + e.getMessage(),
          "check that the file exists on the host", e);
    } catch (IOException e) {
      throw new SshException(label, "cannot write " + local + ": " + e.getMessage(), "check the local directory");
    }
  }

  /** A shell word that stands for {@code s} literally (single-quoted). */
  public static String quote(String s) {
    return "'" + s.replace("'", "'\"'\"'") + "'";
  }

  @Override
  public void close() {
    if (sftp != null) {
      sftp.disconnect();
    }
    session.disconnect();
  }
}
