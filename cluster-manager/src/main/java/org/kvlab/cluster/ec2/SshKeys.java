package org.kvlab.cluster.ec2;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPublicKey;
import java.util.Base64;

/**
 * The cluster's SSH key: an RSA key generated here, whose public half is imported into every region as the
 * cluster's key pair, and whose private half is written only to a file of mode 0600 under the cluster's state
 * directory (never logged, never sent anywhere). RSA because JSch reads and writes it everywhere; 4096 bits because
 * ImportKeyPair documents RSA lengths 1024, 2048 and 4096 only.
 */
final class SshKeys {
  static final int BITS = 4096;

  private SshKeys() {}

  static KeyPair generate() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(BITS);
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JDK cannot generate RSA keys", e);
    }
  }

  /** The public key in OpenSSH's one-line format ({@code ssh-rsa AAAA... comment}), as ImportKeyPair takes it. */
  static String openSshPublicKey(KeyPair pair, String comment) {
    RSAPublicKey pub = (RSAPublicKey) pair.getPublic();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      writeString(out, "ssh-rsa".getBytes(StandardCharsets.US_ASCII));
      writeString(out, pub.getPublicExponent().toByteArray());
      writeString(out, pub.getModulus().toByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return "ssh-rsa " + Base64.getEncoder().encodeToString(bytes.toByteArray()) + " " + comment;
  }

  private static void writeString(DataOutputStream out, byte[] b) throws IOException {
    out.writeInt(b.length);
    out.write(b);
  }

  /**
   * Writes the private key as PKCS#8 PEM ({@code BEGIN PRIVATE KEY}, read by OpenSSH and JSch) to {@code file},
   * created with mode 0600 from the start (its directory 0700), replacing an older key file.
   */
  static void writePrivateKey(KeyPair pair, Path file) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Files.deleteIfExists(file);
    String pem = "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(pair.getPrivate().getEncoded())
        + "\n-----END PRIVATE KEY-----\n";
    try {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (FileAlreadyExistsException e) {
      throw new IOException("key file " + file + " appeared while writing it", e);
    }
    Files.writeString(file, pem, StandardCharsets.US_ASCII);
  }

  /** The modulus size of an RSA public key in OpenSSH format (for tests). */
  static int modulusBits(String openSsh) {
    byte[] blob = Base64.getDecoder().decode(openSsh.split(" ")[1]);
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(blob);
    b.position(b.position() + 4 + b.getInt(0));
    int eLen = b.getInt();
    b.position(b.position() + eLen);
    byte[] n = new byte[b.getInt()];
    b.get(n);
    return new BigInteger(n).bitLength();
  }
}
