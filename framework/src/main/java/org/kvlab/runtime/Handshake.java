package org.kvlab.runtime;

import com.google.protobuf.ByteString;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.SecureRandom;
import org.kvlab.config.ClusterSecret;
import org.kvlab.wire.Hello;

/**
 * The challenge-response of kvlab handshakes (docs/runtime.md, "Security"). The connecting side sends
 * {@code Hello} with a fresh nonce; the server answers {@code Challenge} with its own nonce and its
 * proof; the connecting side checks that proof and answers {@code Auth} with its proof; the server
 * checks it and sends {@code Welcome}. A proof is HMAC-SHA256 under the key (the cluster secret, or the
 * client token) of a transcript holding a label for the direction, every field of the Hello, the
 * server's id and both nonces: it proves knowledge of the key for this one connection, so it cannot be
 * replayed, reflected to the other direction, or moved to another server or role, and the key itself
 * never goes on the wire. Mutual: each side proves, each side checks.
 */
final class Handshake {
  static final int NONCE_BYTES = 32;
  private static final String SERVER_LABEL = "kvlab-handshake-v1 server";
  private static final String CONNECTOR_LABEL = "kvlab-handshake-v1 connector";
  private static final SecureRandom RANDOM = new SecureRandom();

  private Handshake() {}

  static ByteString nonce() {
    byte[] b = new byte[NONCE_BYTES];
    RANDOM.nextBytes(b);
    return ByteString.copyFrom(b);
  }

  /** The server's proof for this connection. */
  static ByteString serverProof(ClusterSecret key, Hello hello, String serverNode, ByteString serverNonce) {
    return ByteString.copyFrom(key.hmac(transcript(SERVER_LABEL, hello, serverNode, serverNonce)));
  }

  /** The connecting side's proof for this connection. */
  static ByteString connectorProof(ClusterSecret key, Hello hello, String serverNode, ByteString serverNonce) {
    return ByteString.copyFrom(key.hmac(transcript(CONNECTOR_LABEL, hello, serverNode, serverNonce)));
  }

  static boolean checkServer(ClusterSecret key, Hello hello, String serverNode, ByteString serverNonce, ByteString proof) {
    return key.verify(transcript(SERVER_LABEL, hello, serverNode, serverNonce), proof.toByteArray());
  }

  static boolean checkConnector(ClusterSecret key, Hello hello, String serverNode, ByteString serverNonce,
      ByteString proof) {
    return key.verify(transcript(CONNECTOR_LABEL, hello, serverNode, serverNonce), proof.toByteArray());
  }

  /** An unambiguous encoding (length-prefixed fields) of what both proofs cover. */
  static byte[] transcript(String label, Hello hello, String serverNode, ByteString serverNonce) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeUTF(label);
      out.writeInt(hello.getRoleValue());
      out.writeUTF(hello.getCluster());
      out.writeUTF(hello.getProtocol());
      out.writeLong(hello.getFingerprint());
      out.writeUTF(hello.getNode());
      out.writeLong(hello.getIncarnation());
      out.writeUTF(serverNode);
      out.writeInt(hello.getNonce().size());
      out.write(hello.getNonce().toByteArray());
      out.writeInt(serverNonce.size());
      out.write(serverNonce.toByteArray());
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
  }
}
