package org.kvlab.testing;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.wire.Frame;

/**
 * A raw socket speaking kvlab's framing (4-byte length, then a {@link Frame}) without the runtime's client:
 * for tests that play a misbehaving peer, tool or client (forged handshakes, malformed frames).
 */
public final class RawWire {
  private RawWire() {}

  /**
   * A socket to {@code s} whose reads give up after 60 s: an answer takes milliseconds, the bound only stops a hung
   * test (a loaded machine stalls the server or the test for seconds).
   */
  public static Socket connect(ServerSpec s) throws IOException {
    Socket socket = new Socket(s.host(), s.port());
    socket.setSoTimeout(60_000);
    return socket;
  }

  public static void write(Socket s, Frame f) throws IOException {
    DataOutputStream out = new DataOutputStream(s.getOutputStream());
    byte[] b = f.toByteArray();
    out.writeInt(b.length);
    out.write(b);
    out.flush();
  }

  public static Frame read(Socket s) throws IOException {
    DataInputStream in = new DataInputStream(s.getInputStream());
    byte[] b = new byte[in.readInt()];
    in.readFully(b);
    return Frame.parseFrom(b);
  }

  /** The server closed the connection: reads reach end of stream (or a reset) within the socket timeout. */
  public static void assertClosedByServer(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    try {
      while (in.read() >= 0) {
        // drain until the server closes
      }
    } catch (java.net.SocketException reset) {
      // a reset also means closed
    }
  }
}
