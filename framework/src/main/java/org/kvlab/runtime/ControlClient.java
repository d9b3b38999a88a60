package org.kvlab.runtime;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.config.ClusterSecret;
import org.kvlab.wire.Auth;
import org.kvlab.wire.Challenge;
import org.kvlab.wire.Control;
import org.kvlab.wire.ControlReply;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Hello;
import org.kvlab.wire.Role;
import org.kvlab.wire.ShutdownRequest;
import org.kvlab.wire.Status;
import org.kvlab.wire.StatusRequest;

/**
 * Blocking client of a server's control endpoint (status and graceful shutdown). It talks only to a
 * server of the given cluster: the handshake names the cluster and protocol, and both sides prove
 * they know the cluster's secret ({@code config.security()}, see {@link Handshake}). A server that
 * belongs to another cluster, or does not prove the secret, is refused with {@link RefusedException}.
 * (TLS seam: between hosts this socket becomes an {@code SSLSocket}; see {@link Wire}.)
 */
public final class ControlClient {
  private static final int REPLY_BYTES_MAX = 16 * 1024 * 1024;

  private ControlClient() {}

  /** Asks server {@code server} of {@code config} for its status; IOException if it cannot be reached in time. */
  public static Status status(ClusterConfig config, ServerSpec server, Duration timeout) throws IOException {
    return exchange(config, server, timeout, Control.newBuilder().setStatus(StatusRequest.getDefaultInstance()).build())
        .getStatus();
  }

  /** Asks the server to shut down gracefully; returns once it acknowledged. */
  public static boolean shutdown(ClusterConfig config, ServerSpec server, Duration timeout) throws IOException {
    return exchange(config, server, timeout, Control.newBuilder().setShutdown(ShutdownRequest.getDefaultInstance()).build())
        .getShuttingDown();
  }

  /**
   * Something answers on the server's address but is not that server of this cluster (another cluster,
   * another secret, another protocol), or refused this tool; the message names the cause and the fix.
   */
  public static final class RefusedException extends IOException {
    RefusedException(String message) {
      super(message);
    }
  }

  private static ControlReply exchange(ClusterConfig config, ServerSpec server, Duration timeout, Control control)
      throws IOException {
    String where = "server " + server.id() + " at " + server.host() + ":" + server.port();
    ClusterSecret secret = null;
    ClusterSecret.SecretException noSecret = null;
    try {
      secret = config.security().load();
    } catch (ClusterSecret.SecretException e) {
      noSecret = e; // still connect: a running server there gets a precise message
    }
    try (Socket socket = new Socket()) {
      int millis = (int) timeout.toMillis();
      socket.connect(new InetSocketAddress(server.host(), server.port()), millis);
      socket.setSoTimeout(millis);
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      DataInputStream in = new DataInputStream(socket.getInputStream());
      Hello hello = Hello.newBuilder().setRole(Role.CONTROL).setCluster(config.name()).setProtocol(config.protocol())
          .setNonce(Handshake.nonce()).build();
      write(out, Frame.newBuilder().setHello(hello).build());
      Frame answer = read(in);
      if (answer.hasWelcome()) {
        throw refusedBy(where, config, answer);
      }
      if (!answer.hasChallenge()) {
        throw new RefusedException(where + " answered " + Wire.kind(answer) + " to a control hello: it is not a kvlab "
            + "server of this version. Fix: check the address in " + config.source());
      }
      Challenge challenge = answer.getChallenge();
      String refusal = null;
      if (!challenge.getNode().equals(server.id().toString())) {
        refusal = where + " is server " + Wire.printable(challenge.getNode()) + " of cluster '" + config.name()
            + "', not " + server.id() + ". Fix: correct the servers list of " + config.source();
      } else if (secret == null) {
        refusal = where + " belongs to a cluster named '" + config.name() + "', but " + noSecret.getMessage();
      } else if (!Handshake.checkServer(secret, hello, server.id().toString(), challenge.getNonce(), challenge.getProof())) {
        refusal = where + " belongs to another cluster named '" + config.name() + "': it does not know the secret in "
            + config.security().secretFile() + " (it was started from another directory or checkout). Fix: run "
            + "this command where that cluster was started, or change the ports in " + config.source();
      }
      if (refusal != null) {
        write(out, Frame.newBuilder().setAuth(Auth.newBuilder().setError(
            "the control tool gives up: the server did not prove the cluster secret, or is not " + server.id())).build());
        throw new RefusedException(refusal);
      }
      write(out, Frame.newBuilder().setAuth(Auth.newBuilder().setProof(
          Handshake.connectorProof(secret, hello, server.id().toString(), challenge.getNonce()))).build());
      Frame welcome = read(in);
      if (!welcome.hasWelcome() || !welcome.getWelcome().getError().isEmpty()) {
        throw refusedBy(where, config, welcome);
      }
      write(out, Frame.newBuilder().setControl(control).build());
      Frame reply = read(in);
      if (!reply.hasControlReply()) {
        throw new IOException(where + " answered " + Wire.kind(reply) + " to a control request");
      }
      return reply.getControlReply();
    }
  }

  private static RefusedException refusedBy(String where, ClusterConfig config, Frame frame) {
    if (!frame.hasWelcome()) {
      return new RefusedException(where + " answered " + Wire.kind(frame) + " instead of completing the handshake");
    }
    String error = Wire.printable(frame.getWelcome().getError());
    String fix = error.contains("belongs to cluster")
        ? "Fix: use that cluster's own file, or change the ports in " + config.source()
        : error.contains("secret") ? "Fix: run this command in the directory that started the cluster (its secret is "
            + config.security().secretFile() + ")"
        : "Fix: use the cluster file and kvlab build the server was started with";
    return new RefusedException(where + " refused: " + error + ". " + fix);
  }

  private static void write(DataOutputStream out, Frame frame) throws IOException {
    byte[] bytes = frame.toByteArray();
    out.writeInt(bytes.length);
    out.write(bytes);
    out.flush();
  }

  private static Frame read(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0 || length > REPLY_BYTES_MAX) {
      throw new IOException("bad frame length " + length);
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return Frame.parseFrom(bytes);
  }
}
