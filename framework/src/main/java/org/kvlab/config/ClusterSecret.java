package org.kvlab.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret of one cluster: the key with which servers and the cluster's tools prove to each other
 * that they belong to the same cluster (HMAC-SHA256 challenge-response in every peer and control
 * handshake, see docs/runtime.md, "Security"). The secret itself never goes on the wire, into a log or
 * onto a command line.
 *
 * <p>It lives in a file readable only by its owner (mode 0600): 32 random bytes written as 64 hex
 * digits. {@code kvlab local up} (and {@code bench}, and in-JVM test clusters) create it with
 * {@link #loadOrCreate}; by default it is {@code .kvlab/local/<cluster>/secret} under the working
 * directory (cluster file: {@code security.secretFile}). Servers read it with {@link #load}; a deployment
 * to other hosts copies the same file to each host (mode 0600) and points {@code kvlab server
 * --secret-file} at it.
 */
public final class ClusterSecret {
  /** Random bytes in a secret created here. */
  public static final int BYTES = 32;
  /** Fewest bytes accepted in a secret file written by hand. */
  public static final int BYTES_MIN = 16;
  private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec key;
  private final String origin;

  private ClusterSecret(byte[] key, String origin) {
    this.key = new SecretKeySpec(key, "HmacSHA256");
    this.origin = origin;
  }

  /** A fresh random secret held only in memory (single-JVM tests). */
  public static ClusterSecret generate() {
    byte[] b = new byte[BYTES];
    RANDOM.nextBytes(b);
    return new ClusterSecret(b, "an in-memory secret");
  }

  /**
   * A key derived from a client token of the cluster file ({@code security.clientToken}): client
   * handshakes use the same challenge-response, keyed with the token.
   */
  public static ClusterSecret ofClientToken(String token) {
    if (token == null || token.isEmpty()) {
      throw new IllegalArgumentException("empty client token");
    }
    return new ClusterSecret(token.getBytes(StandardCharsets.UTF_8), "security.clientToken");
  }

  /** Reads the secret in {@code file}; {@link SecretException} naming the cause and the fix. */
  public static ClusterSecret load(Path file) throws SecretException {
    String text;
    try {
      checkOwnerOnly(file);
      text = Files.readString(file, StandardCharsets.US_ASCII).trim();
    } catch (NoSuchFileException e) {
      throw new SecretException("no cluster secret at " + file + ". Fix: start the cluster with ./kvlab local up "
          + "from this directory (it creates the secret), or copy the cluster's secret file there with mode 0600",
          true);
    } catch (AccessDeniedException e) {
      throw new SecretException("cannot read the cluster secret " + file + " (permission denied). Fix: run as the "
          + "user who started the cluster", false);
    } catch (IOException e) {
      throw new SecretException("cannot read the cluster secret " + file + ": " + e.getMessage(), false);
    }
    byte[] bytes;
    try {
      bytes = HexFormat.of().parseHex(text);
    } catch (IllegalArgumentException e) {
      bytes = null;
    }
    if (bytes == null || bytes.length < BYTES_MIN) {
      throw new SecretException("the cluster secret " + file + " is not " + BYTES_MIN + " or more bytes written as "
          + "hex digits. Fix: delete it and run ./kvlab local up again (which writes a new one), or write "
          + BYTES * 2 + " random hex digits into it (e.g. openssl rand -hex " + BYTES + ")", false);
    }
    return new ClusterSecret(bytes, file.toString());
  }

  /**
   * Reads the secret in {@code file}, creating it first (32 random bytes, mode 0600, parent
   * directories as needed) if it does not exist. Safe against concurrent creators: the file appears
   * atomically, and whoever loses the race reads the winner's secret.
   */
  public static ClusterSecret loadOrCreate(Path file) throws SecretException {
    if (!Files.exists(file)) {
      byte[] b = new byte[BYTES];
      RANDOM.nextBytes(b);
      try {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = createOwnerOnly(dir);
        try {
          Files.writeString(tmp, HexFormat.of().formatHex(b) + "\n", StandardCharsets.US_ASCII);
          try {
            Files.createLink(file, tmp); // atomic, and fails if the file exists (a rename would replace it)
          } catch (FileAlreadyExistsException raced) {
            // another process created it first: use theirs
          } catch (UnsupportedOperationException | IOException noLinks) {
            if (!Files.exists(file)) {
              Files.move(tmp, file); // no hard links here: not atomic, fails if the file appeared meanwhile
            }
          }
        } finally {
          Files.deleteIfExists(tmp);
        }
      } catch (IOException e) {
        throw new SecretException("cannot create the cluster secret " + file + ": " + e + ". Fix: check that the "
            + "directory is writable, or set security.secretFile in the cluster file", false);
      }
    }
    return load(file);
  }

  private static Path createOwnerOnly(Path dir) throws IOException {
    if (Files.getFileAttributeView(dir, PosixFileAttributeView.class) != null) {
      return Files.createTempFile(dir, ".secret-", ".tmp", PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    }
    return Files.createTempFile(dir, ".secret-", ".tmp"); // not POSIX: the platform's default ACL
  }

  private static void checkOwnerOnly(Path file) throws IOException {
    PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class);
    if (view == null) {
      return;
    }
    Set<PosixFilePermission> perms = view.readAttributes().permissions();
    if (perms.stream().anyMatch(p -> !OWNER_ONLY.contains(p) && p != PosixFilePermission.OWNER_EXECUTE)) {
      throw new SecretException("the cluster secret " + file + " is accessible to other users (mode "
          + PosixFilePermissions.toString(perms) + "). Fix: chmod 600 " + file, false);
    }
  }

  /** HMAC-SHA256 of {@code message} under this secret. */
  public byte[] hmac(byte[] message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      return mac.doFinal(message);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  /** True if {@code proof} is the HMAC of {@code message} (constant time). */
  public boolean verify(byte[] message, byte[] proof) {
    return MessageDigest.isEqual(hmac(message), proof);
  }

  /** Where the secret came from, never the secret. */
  @Override
  public String toString() {
    return "cluster secret from " + origin;
  }

  /** The secret cannot be read or created; the message names the cause and the fix. */
  public static final class SecretException extends IOException {
    private final boolean missing;

    SecretException(String message, boolean missing) {
      super(message);
      this.missing = missing;
    }

    /** True if the file does not exist (as opposed to unreadable or malformed). */
    public boolean missing() {
      return missing;
    }
  }
}
