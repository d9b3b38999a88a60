package org.kvlab.cluster.ssh;

import com.jcraft.jsch.HostKey;
import com.jcraft.jsch.HostKeyRepository;
import com.jcraft.jsch.JSch;
import com.jcraft.jsch.JSchException;
import com.jcraft.jsch.UserInfo;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An OpenSSH known_hosts file, shared by the connections of one deployment (thread-safe). Host keys are
 * checked against it; with {@link SshSettings.HostKeyPolicy#ACCEPT_NEW} a host not in it yet has its key
 * appended (and reported through the listener), while a host whose key differs is always refused.
 */
public final class KnownHostsFile {
  /** Reports each host key that was not known and has been recorded. */
  public interface NewHostKeyListener {
    void newHostKey(String host, String keyType, String fingerprint);
  }

  /** The outcome of the last check of one host (for error messages). */
  record Seen(String host, String keyType, String fingerprint, int result) {}

  private final Path file;
  private final SshSettings.HostKeyPolicy policy;
  private final NewHostKeyListener listener;
  private final HostKeyRepository known;
  private final ConcurrentHashMap<String, Seen> seen = new ConcurrentHashMap<>();

  public KnownHostsFile(Path file, SshSettings.HostKeyPolicy policy, NewHostKeyListener listener) throws SshException {
    this.file = file;
    this.policy = policy;
    this.listener = listener == null ? (h, t, f) -> { } : listener;
    JSch jsch = new JSch();
    try {
      byte[] text = Files.exists(file) ? Files.readAllBytes(file) : new byte[0];
      jsch.setKnownHosts(new ByteArrayInputStream(text));
    } catch (IOException | JSchException e) {
      throw new SshException(file.toString(), "cannot read the known_hosts file: " + e.getMessage(),
          "check the path of 'knownHosts' in the ssh section and that the file is readable");
    }
    if (!Files.exists(file) && policy == SshSettings.HostKeyPolicy.STRICT) {
      throw new SshException(file.toString(), "the known_hosts file does not exist, so no host key can be verified",
          "add the hosts' keys to it (ssh-keyscan -p PORT HOST >> " + file + ", then compare the fingerprints"
              + " with the hosts' own: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub), or run once with"
              + " --accept-new-host-keys to record them");
    }
    this.known = jsch.getHostKeyRepository();
  }

  public Path file() {
    return file;
  }

  /** The SHA-256 fingerprint of a public key blob as OpenSSH prints it ({@code SHA256:...}). */
  public static String fingerprint(byte[] key) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(key);
      return "SHA256:" + Base64.getEncoder().withoutPadding().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  Seen seen(String host) {
    return seen.get(host);
  }

  /** The repository one connection uses (JSch asks it about the host it connects to). */
  HostKeyRepository repository() {
    return new HostKeyRepository() {
      @Override
      public int check(String host, byte[] key) {
        synchronized (KnownHostsFile.this) {
          int result = known.check(host, key);
          String type = keyType(host, key);
          String fp = fingerprint(key);
          if (result == NOT_INCLUDED && policy == SshSettings.HostKeyPolicy.ACCEPT_NEW) {
            try {
              HostKey hk = new HostKey(host, key);
              append(host + " " + hk.getType() + " " + Base64.getEncoder().encodeToString(key));
              known.add(hk, null);
              listener.newHostKey(host, type, fp);
              result = OK;
            } catch (JSchException | IOException e) {
              seen.put(host, new Seen(host, type, fp + " (could not be recorded: " + e.getMessage() + ")", NOT_INCLUDED));
              return NOT_INCLUDED;
            }
          }
          seen.put(host, new Seen(host, type, fp, result));
          return result;
        }
      }

      @Override
      public void add(HostKey hostkey, UserInfo ui) {
        // Keys are added only by check() under ACCEPT_NEW.
      }

      @Override
      public void remove(String host, String type) {}

      @Override
      public void remove(String host, String type, byte[] key) {}

      @Override
      public String getKnownHostsRepositoryID() {
        return file.toString();
      }

      @Override
      public HostKey[] getHostKey() {
        synchronized (KnownHostsFile.this) {
          return known.getHostKey();
        }
      }

      @Override
      public HostKey[] getHostKey(String host, String type) {
        synchronized (KnownHostsFile.this) {
          return known.getHostKey(host, type);
        }
      }
    };
  }

  private static String keyType(String host, byte[] key) {
    try {
      return new HostKey(host, key).getType();
    } catch (JSchException e) {
      return "unknown";
    }
  }

  private void append(String line) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    String prefix = "";
    try {
      byte[] existing = Files.readAllBytes(file);
      if (existing.length > 0 && existing[existing.length - 1] != '\n') {
        prefix = "\n";
      }
    } catch (NoSuchFileException absent) {
      // created below
    }
    Files.writeString(file, prefix + line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
        StandardOpenOption.APPEND, StandardOpenOption.WRITE);
  }
}
