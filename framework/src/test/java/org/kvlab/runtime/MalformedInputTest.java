package org.kvlab.runtime;

import static org.kvlab.testing.RawWire.assertClosedByServer;
import static org.kvlab.testing.RawWire.read;
import static org.kvlab.testing.RawWire.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvlab.testing.RawWire;
import org.kvlab.api.NodeId;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.Limits;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.testing.TestClusters;
import org.kvlab.testing.Testkit;
import org.kvlab.testing.kit.Echo;
import org.kvlab.testing.kit.EchoReply;
import org.kvlab.wire.Data;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Hello;
import org.kvlab.wire.Request;
import org.kvlab.wire.Role;

/**
 * Bad input never stops a server: each kind of malformed traffic closes only the connection that sent
 * it, and the node keeps serving real clients and its peers.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS) // stops a hang only
class MalformedInputTest {
  private static final int FRAME_MAX = 64 * 1024;
  private static final int HANDSHAKE_MILLIS = 1000;
  private static ClusterConfig config;
  private static LocalCluster cluster;
  private static ClientRuntime client;
  private static ServerSpec target;

  @BeforeAll
  static void start() throws Exception {
    config = TestClusters.loopback("testkit", 2, 1, TestClusters.memory(),
        new Limits(FRAME_MAX, Limits.PEER_QUEUE_MESSAGES_MAX_DEFAULT, Limits.CLIENT_REQUESTS_IN_FLIGHT_MAX_DEFAULT,
            HANDSHAKE_MILLIS, Limits.CLIENT_IDLE_SECONDS_DEFAULT));
    cluster = LocalCluster.start(config, new Testkit());
    assertTrue(cluster.awaitConnected(Duration.ofSeconds(60)));
    client = new ClientRuntime(config, new Testkit(), 1);
    target = config.server(new NodeId(0, 0));
  }

  @AfterAll
  static void stop() {
    client.close();
    cluster.close();
  }

  @Test
  void when_randomBytesArrive_then_connectionClosesAndNodeServes() throws Exception {
    Random random = new Random(42);
    for (int i = 0; i < 20; i++) {
      byte[] junk = new byte[1 + random.nextInt(4096)];
      random.nextBytes(junk);
      try (Socket s = connect()) {
        s.getOutputStream().write(junk);
        s.getOutputStream().flush();
        assertClosedByServer(s);
      }
    }
    assertServing();
  }

  @Test
  void when_frameIsTruncated_then_itIsLoggedAndNodeServes() throws Exception {
    long truncated = counter("wire.truncatedFrames");
    try (Socket s = connect()) {
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      out.writeInt(1000);
      out.write(new byte[10]);
      out.flush();
    } // closed mid-frame
    awaitCounter("wire.truncatedFrames", truncated + 1); // logged (and counted), as docs/runtime.md says
    assertServing();
  }

  @Test
  void when_lengthPrefixIsHuge_then_connectionClosesBeforeReadingAndNodeServes() throws Exception {
    for (int length : new int[] {Integer.MAX_VALUE, -1, 64 * 1024 + 1}) {
      try (Socket s = connect()) {
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(length);
        out.flush();
        assertClosedByServer(s);
      }
    }
    assertServing();
  }

  @Test
  void when_firstFrameIsNotHello_then_connectionCloses() throws Exception {
    try (Socket s = connect()) {
      write(s, Frame.newBuilder().setData(Data.newBuilder().setSeq(1).setType(0)).build());
      assertClosedByServer(s);
    }
    assertServing();
  }

  @Test
  void when_helloNamesAnotherProtocol_then_welcomeCarriesTheErrorAndConnectionCloses() throws Exception {
    try (Socket s = connect()) {
      write(s, Frame.newBuilder().setHello(Hello.newBuilder().setRole(Role.CLIENT).setCluster(config.name())
          .setProtocol("gentlerain").setFingerprint(1)).build());
      Frame welcome = read(s);
      assertTrue(welcome.getWelcome().getError().contains("protocol mismatch"), welcome.toString());
      assertClosedByServer(s);
    }
    assertServing();
  }

  @Test
  void when_peerHelloNamesUnknownServer_then_refused() throws Exception {
    try (Socket s = connect()) {
      write(s, Frame.newBuilder().setHello(clientHello().setRole(Role.PEER).setNode("7_7").setIncarnation(1)).build());
      Frame welcome = read(s);
      assertTrue(welcome.getWelcome().getError().contains("no server 7_7"), welcome.toString());
      assertClosedByServer(s);
    }
    assertServing();
  }

  @Test
  void when_requestHasUnknownTypeOrGarbageBody_then_clientGetsAnErrorReply() throws Exception {
    try (Socket s = connect()) {
      write(s, Frame.newBuilder().setHello(clientHello()).build());
      assertEquals("", read(s).getWelcome().getError());
      write(s, Frame.newBuilder().setRequest(Request.newBuilder().setId(1).setType(999)
          .setBody(ByteString.copyFromUtf8("x"))).build());
      Frame reply = read(s);
      assertEquals(1, reply.getReply().getId());
      assertTrue(reply.getReply().getError().contains("no handler"), reply.toString());
      int echo = Testkit.MESSAGES.idOf(Echo.class);
      write(s, Frame.newBuilder().setRequest(Request.newBuilder().setId(2).setType(echo)
          .setBody(ByteString.copyFrom(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff}))).build());
      reply = read(s);
      assertEquals(2, reply.getReply().getId());
      assertTrue(reply.getReply().getError().contains("malformed"), reply.toString());
      // The same connection still works for a good request.
      write(s, Frame.newBuilder().setRequest(Request.newBuilder().setId(3).setType(echo)
          .setBody(Echo.newBuilder().setPayload(ByteString.copyFromUtf8("ok")).build().toByteString())).build());
      reply = read(s);
      assertEquals("", reply.getReply().getError());
      assertEquals("ok", EchoReply.parseFrom(reply.getReply().getBody()).getPayload().toStringUtf8());
    }
  }

  @Test
  void when_clientSendsPeerFrames_then_connectionCloses() throws Exception {
    try (Socket s = connect()) {
      write(s, Frame.newBuilder().setHello(clientHello()).build());
      read(s);
      write(s, Frame.newBuilder().setData(Data.newBuilder().setSeq(1)).build());
      assertClosedByServer(s);
    }
    assertServing();
  }

  @Test
  void when_requestTypeIsAtLeast2pow31_then_errorReplyAndConnectionStays() throws Exception {
    try (Socket s = connect()) {
      write(s, Frame.newBuilder().setHello(clientHello()).build());
      assertEquals("", read(s).getWelcome().getError());
      for (long type : new long[] {1L << 31, 0xffffffffL}) {
        write(s, Frame.newBuilder().setRequest(Request.newBuilder().setId(type).setType((int) type)
            .setBody(ByteString.copyFromUtf8("x"))).build());
        Frame reply = read(s);
        assertEquals(type, reply.getReply().getId());
        assertTrue(reply.getReply().getError().contains("no handler for request type #" + type), reply.toString());
      }
      int echo = Testkit.MESSAGES.idOf(Echo.class);
      write(s, Frame.newBuilder().setRequest(Request.newBuilder().setId(3).setType(echo)
          .setBody(Echo.newBuilder().setPayload(ByteString.copyFromUtf8("still here")).build().toByteString())).build());
      assertEquals("still here", EchoReply.parseFrom(read(s).getReply().getBody()).getPayload().toStringUtf8());
    }
    assertServing();
  }

  @Test
  void when_authenticatedPeerSendsTypeAtLeast2pow31_then_onlyThatChannelCloses() throws Exception {
    long refusedBefore = counter("security.handshakesRefused");
    try (Socket s = connect()) {
      Hello hello = Hello.newBuilder().setRole(Role.PEER).setCluster(config.name()).setProtocol("testkit")
          .setFingerprint(Testkit.MESSAGES.fingerprint()).setNode("1_0").setIncarnation(7).setNonce(Handshake.nonce())
          .build();
      write(s, Frame.newBuilder().setHello(hello).build());
      org.kvlab.wire.Challenge c = read(s).getChallenge();
      var secret = config.security().load();
      assertTrue(Handshake.checkServer(secret, hello, target.id().toString(), c.getNonce(), c.getProof()));
      write(s, Frame.newBuilder().setAuth(org.kvlab.wire.Auth.newBuilder()
          .setProof(Handshake.connectorProof(secret, hello, target.id().toString(), c.getNonce()))).build());
      assertEquals("", read(s).getWelcome().getError());
      write(s, Frame.newBuilder().setData(Data.newBuilder().setSeq(1).setType((int) 0x80000001L)).build());
      assertClosedByServer(s);
    }
    assertEquals(refusedBefore, counter("security.handshakesRefused"));
    assertServing();
  }

  @Test
  void when_connectionSendsNothing_then_closedAtTheHandshakeDeadline() throws Exception {
    long timeouts = counter("security.handshakeTimeouts");
    try (Socket s = connect()) { // half-open: connected, silent
      assertClosedByServer(s);
    }
    awaitCounter("security.handshakeTimeouts", timeouts + 1);
    assertServing();
  }

  @Test
  void when_helloTricklesInByteByByte_then_closedAtTheHandshakeDeadline() throws Exception {
    long timeouts = counter("security.handshakeTimeouts");
    byte[] hello = Frame.newBuilder().setHello(clientHello()).build().toByteArray();
    byte[] framed = java.nio.ByteBuffer.allocate(4 + hello.length).putInt(hello.length).put(hello).array();
    boolean closed = false;
    try (Socket s = connect()) { // slowloris: one byte every 100 ms never completes the frame in time
      for (int i = 0; i < framed.length - 1 && !closed; i++) {
        try {
          s.getOutputStream().write(framed[i]);
          s.getOutputStream().flush();
          Thread.sleep(100);
        } catch (java.net.SocketException e) {
          closed = true;
        }
      }
      if (!closed) {
        assertClosedByServer(s);
      }
    }
    assertTrue(framed.length * 100 > HANDSHAKE_MILLIS * 2, "the frame must take longer than the deadline to trickle");
    awaitCounter("security.handshakeTimeouts", timeouts + 1);
    assertServing();
  }

  @Test
  void when_frameBeforeHelloExceedsTheHandshakeLimit_then_refusedOnItsLengthAlone() throws Exception {
    long tooLarge = counter("wire.framesTooLarge");
    try (Socket s = connect()) {
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      out.writeInt(Limits.HANDSHAKE_FRAME_BYTES_MAX + 1); // far below frameBytesMax; nothing of the body follows
      out.flush();
      assertClosedByServer(s);
    }
    assertEquals(tooLarge + 1, counter("wire.framesTooLarge"));
    assertServing();
  }

  @Test
  void when_frameBodyIsExactlyFrameBytesMax_then_accepted_andOneMoreByteIsRefused() throws Exception {
    long tooLarge = counter("wire.framesTooLarge");
    try (Socket s = connect()) {
      write(s, Frame.newBuilder().setHello(clientHello()).build());
      assertEquals("", read(s).getWelcome().getError());
      write(s, requestOfSize(1, FRAME_MAX));
      assertTrue(read(s).getReply().getError().contains("no handler"));
      write(s, requestOfSize(2, FRAME_MAX + 1));
      assertClosedByServer(s);
    }
    assertEquals(tooLarge + 1, counter("wire.framesTooLarge"));
    assertServing();
  }

  @Test
  void when_helloClusterNameHoldsANewline_then_theRefusalEscapesIt() throws Exception {
    try (Socket s = connect()) {
      write(s, Frame.newBuilder().setHello(clientHello().setCluster("x\n[main] INFO forged line")).build());
      String error = read(s).getWelcome().getError();
      assertTrue(error.contains("not 'x\\n[main] INFO forged line'"), error);
      assertTrue(error.indexOf('\n') < 0, error);
      assertClosedByServer(s);
    }
    assertEquals("a\\nb\\u001b[31m \\\\ \\u00e9", Wire.printable("a\nb\u001b[31m \\ \u00e9"));
    assertTrue(Wire.printable("y".repeat(1000)).length() < 260);
    assertServing();
  }

  /** A request frame (unknown type 999) whose body is exactly {@code size} bytes. */
  private static Frame requestOfSize(long id, int size) {
    int pad = size;
    while (true) {
      Frame f = Frame.newBuilder().setRequest(Request.newBuilder().setId(id).setType(999)
          .setBody(ByteString.copyFrom(new byte[pad]))).build();
      int actual = f.getSerializedSize();
      if (actual == size) {
        return f;
      }
      pad -= actual - size;
    }
  }

  private static long counter(String name) {
    return cluster.node(target.id()).metrics().counters().getOrDefault(name, 0L);
  }

  /** Waits (bounded by the class timeout) until the server's counter reaches {@code value}. */
  private static void awaitCounter(String name, long value) throws InterruptedException {
    while (counter(name) < value) {
      Thread.sleep(10);
    }
    assertEquals(value, counter(name));
  }

  private static Hello.Builder clientHello() {
    return Hello.newBuilder().setRole(Role.CLIENT).setCluster(config.name()).setProtocol("testkit")
        .setFingerprint(Testkit.MESSAGES.fingerprint());
  }

  private static Socket connect() throws IOException {
    return RawWire.connect(target);
  }


  /** The node still answers a real client and is still connected to its peer. */
  private static void assertServing() throws Exception {
    EchoReply r = client.call(target.id(), Echo.newBuilder().setPayload(ByteString.copyFromUtf8("alive")).build(),
        EchoReply.class).get(10, TimeUnit.SECONDS);
    assertEquals("alive", r.getPayload().toStringUtf8());
    var status = cluster.node(target.id()).status().get(5, TimeUnit.SECONDS);
    assertEquals(status.getPeersExpected(), status.getPeersConnected());
  }
}
