package org.kvlab.runtime;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import org.kvlab.wire.Control;
import org.kvlab.wire.ControlReply;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Hello;
import org.kvlab.wire.Role;
import org.kvlab.wire.ShutdownRequest;
import org.kvlab.wire.Status;
import org.kvlab.wire.StatusRequest;

/** Blocking client of a server's control endpoint (status and graceful shutdown). */
public final class ControlClient {
  private ControlClient() {}

  /** Asks the server at host:port for its status; IOException if it cannot be reached in time. */
  public static Status status(String host, int port, Duration timeout) throws IOException {
    return exchange(host, port, timeout, Control.newBuilder().setStatus(StatusRequest.getDefaultInstance()).build()).getStatus();
  }

  /** Asks the server to shut down gracefully; returns once it acknowledged. */
  public static boolean shutdown(String host, int port, Duration timeout) throws IOException {
    return exchange(host, port, timeout, Control.newBuilder().setShutdown(ShutdownRequest.getDefaultInstance()).build())
        .getShuttingDown();
  }

  private static ControlReply exchange(String host, int port, Duration timeout, Control control) throws IOException {
    try (Socket socket = new Socket()) {
      int millis = (int) timeout.toMillis();
      socket.connect(new InetSocketAddress(host, port), millis);
      socket.setSoTimeout(millis);
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      DataInputStream in = new DataInputStream(socket.getInputStream());
      write(out, Frame.newBuilder().setHello(Hello.newBuilder().setRole(Role.CONTROL)).build());
      Frame welcome = read(in);
      if (!welcome.hasWelcome() || !welcome.getWelcome().getError().isEmpty()) {
        throw new IOException("server at " + host + ":" + port + " refused the control connection: " + welcome);
      }
      write(out, Frame.newBuilder().setControl(control).build());
      Frame reply = read(in);
      if (!reply.hasControlReply()) {
        throw new IOException("server at " + host + ":" + port + " answered " + reply.getKindCase() + " to a control request");
      }
      return reply.getControlReply();
    }
  }

  private static void write(DataOutputStream out, Frame frame) throws IOException {
    byte[] bytes = frame.toByteArray();
    out.writeInt(bytes.length);
    out.write(bytes);
    out.flush();
  }

  private static Frame read(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0 || length > 64 * 1024 * 1024) {
      throw new IOException("bad frame length " + length);
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return Frame.parseFrom(bytes);
  }
}
