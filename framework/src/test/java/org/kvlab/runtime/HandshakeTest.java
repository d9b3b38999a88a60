package org.kvlab.runtime;

import static org.kvlab.testing.RawWire.assertClosedByServer;
import static org.kvlab.testing.RawWire.connect;
import static org.kvlab.testing.RawWire.read;
import static org.kvlab.testing.RawWire.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.NodeId;
import org.kvlab.api.OperationException;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.Limits;
import org.kvlab.config.ClusterConfig.SecuritySpec;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.config.ClusterSecret;
import org.kvlab.testing.TestClusters;
import org.kvlab.testing.Testkit;
import org.kvlab.testing.kit.Echo;
import org.kvlab.testing.kit.EchoReply;
import org.kvlab.wire.Auth;
import org.kvlab.wire.Challenge;
import org.kvlab.wire.Control;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Hello;
import org.kvlab.wire.Role;
import org.kvlab.wire.ShutdownRequest;
import org.kvlab.wire.Status;

/**
 * A cluster obeys only its own tools and admits only its own servers: control and peer handshakes
 * succeed only with the cluster's name, protocol and secret, and every refusal names its cause on both
 * sides; clients need the client token when the cluster has one.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class HandshakeTest {
  /**
   * Bounds of waits that take milliseconds on an idle machine, generous because a loaded one (load 35 on two cores
   * has been seen) stalls this JVM and the servers for seconds: a wait never passes for an answer, it only stops a
   * hung test. The same for the servers' handshake deadline, which these tests do not test.
   */
  private static final Duration T = Duration.ofSeconds(60);
  private static final long CALL_SECONDS = 60;
  private static final Limits PATIENT = Limits.defaults().withTimeouts(120_000, Limits.CLIENT_IDLE_SECONDS_DEFAULT);
  private static final NodeId A = new NodeId(0, 0);
  private static final NodeId B = new NodeId(1, 0);

  @Test
  void when_toolHasTheClusterSecret_then_statusWorks_andOtherNameSecretOrNoSecretIsRefused(@TempDir Path dir)
      throws Exception {
    ClusterConfig config = TestClusters.loopback("testkit", 2, 1, TestClusters.memory(), PATIENT);
    try (LocalCluster cluster = LocalCluster.start(config, new Testkit())) {
      assertTrue(cluster.awaitConnected(T));
      ServerSpec a = config.server(A);
      Status st = ControlClient.status(config, a, T);
      assertEquals(config.name(), st.getCluster());
      assertEquals("", st.getRole(), "a protocol without roles (Server.role() null) answers none: local status shows -");

      // Another cluster's file naming the same ports ("local down" with another checkout's file).
      ClusterConfig other = new ClusterConfig("other.yaml", "other", "testkit", config.params(), config.topology(),
          config.servers(), config.storage(), config.emulation(), config.limits(),
          new SecuritySpec(dir.resolve("other-secret"), ClusterSecret.generate(), null));
      ControlClient.RefusedException e = assertThrows(ControlClient.RefusedException.class,
          () -> ControlClient.shutdown(other, a, T));
      assertTrue(e.getMessage().contains("belongs to cluster '" + config.name() + "', not 'other'"), e.getMessage());
      assertTrue(e.getMessage().contains("Fix:"), e.getMessage());

      // The same name, but another secret (a cluster of the same name started from another directory).
      ClusterConfig sameNameOtherSecret = config.withSecurity(
          new SecuritySpec(dir.resolve("secret"), ClusterSecret.generate(), null));
      e = assertThrows(ControlClient.RefusedException.class, () -> ControlClient.shutdown(sameNameOtherSecret, a, T));
      assertTrue(e.getMessage().contains("does not know the secret"), e.getMessage());

      // No secret at all in this directory.
      ClusterConfig noSecret = config.withSecurity(new SecuritySpec(dir.resolve("missing"), null, null));
      e = assertThrows(ControlClient.RefusedException.class, () -> ControlClient.shutdown(noSecret, a, T));
      assertTrue(e.getMessage().contains("no cluster secret at " + dir.resolve("missing")), e.getMessage());

      // The server logs each refusal too: the other name it refused, the secrets the tools gave up on.
      awaitCounter(cluster.node(A), "security.handshakesRefused", 1);
      awaitCounter(cluster.node(A), "security.handshakesAbandoned", 2);
      // Nothing was stopped.
      assertEquals(config.name(), ControlClient.status(config, a, T).getCluster());
      assertEquals(1, ControlClient.status(config, config.server(B), T).getPeersConnected());
    }
  }

  @Test
  void when_controlConnectionSkipsOrForgesTheProof_then_refusedAndNothingStops() throws Exception {
    ClusterConfig config = TestClusters.loopback("testkit", 1, 1, TestClusters.memory(), PATIENT);
    try (LocalCluster cluster = LocalCluster.start(config, new Testkit())) {
      ServerSpec a = config.server(A);
      Frame shutdown = Frame.newBuilder().setControl(Control.newBuilder().setShutdown(ShutdownRequest.getDefaultInstance()))
          .build();
      // 1. Shutdown right after the challenge, without answering it.
      try (Socket s = connect(a)) {
        write(s, Frame.newBuilder().setHello(controlHello(config)).build());
        assertTrue(read(s).hasChallenge());
        write(s, shutdown);
        String error = read(s).getWelcome().getError();
        assertTrue(error.contains("expected auth"), error);
        assertClosedByServer(s);
      }
      // 2. A made-up proof.
      try (Socket s = connect(a)) {
        write(s, Frame.newBuilder().setHello(controlHello(config)).build());
        assertTrue(read(s).hasChallenge());
        write(s, Frame.newBuilder().setAuth(Auth.newBuilder().setProof(Handshake.nonce())).build());
        String error = read(s).getWelcome().getError();
        assertTrue(error.contains("does not know the secret of cluster '" + config.name() + "'"), error);
        try {
          write(s, shutdown); // ignored: the server is closing the connection
        } catch (java.io.IOException closedAlready) {
          // the server may have closed it already (a broken pipe): then the shutdown never even arrived
        }
        assertClosedByServer(s);
      }
      // 3. A replayed proof: the right one for an earlier connection.
      Hello hello = controlHello(config);
      ByteString replayed;
      ClusterSecret secret = config.security().load();
      try (Socket s = connect(a)) {
        write(s, Frame.newBuilder().setHello(hello).build());
        Challenge c = read(s).getChallenge();
        replayed = Handshake.connectorProof(secret, hello, A.toString(), c.getNonce());
      }
      try (Socket s = connect(a)) {
        write(s, Frame.newBuilder().setHello(hello).build());
        assertTrue(read(s).hasChallenge());
        write(s, Frame.newBuilder().setAuth(Auth.newBuilder().setProof(replayed)).build());
        assertTrue(read(s).getWelcome().getError().contains("does not know the secret"));
      }
      awaitCounter(cluster.node(A), "security.handshakesRefused", 3);
      assertTrue(ControlClient.status(config, a, T).getUptimeMillis() > 0, "the server is still running");
    }
  }

  @Test
  void when_serversHaveDifferentSecrets_then_theyNeverConnect() throws Exception {
    ClusterConfig config = TestClusters.loopback("testkit", 2, 1, TestClusters.memory(), PATIENT);
    Node a = Node.start(config, A, new Testkit(), ClusterSecret.generate());
    try {
      Node b = Node.start(config, B, new Testkit(), ClusterSecret.generate());
      try {
        // Each side gives up on the other once its proof fails; wait until both have tried at least twice.
        while (counter(a, "security.handshakesAbandoned") < 2 || counter(b, "security.handshakesAbandoned") < 2) {
          Thread.sleep(20);
        }
        assertEquals(0, a.status().get(CALL_SECONDS, TimeUnit.SECONDS).getPeersConnected());
        assertEquals(0, b.status().get(CALL_SECONDS, TimeUnit.SECONDS).getPeersConnected());
      } finally {
        b.close();
      }
    } finally {
      a.close();
    }
  }

  @Test
  void when_clusterHasAClientToken_then_onlyClientsWithItConnect(@TempDir Path dir) throws Exception {
    ClusterConfig base = TestClusters.loopback("testkit", 1, 1, TestClusters.memory(), PATIENT);
    ClusterConfig config = base.withSecurity(new SecuritySpec(base.security().secretFile(), null, "token-0123456789abcdef"));
    try (LocalCluster cluster = LocalCluster.start(config, new Testkit())) {
      Echo echo = Echo.newBuilder().setPayload(ByteString.copyFromUtf8("hi")).build();
      try (ClientRuntime client = new ClientRuntime(config, new Testkit(), 1)) {
        assertEquals("hi", client.call(A, echo, EchoReply.class).get(CALL_SECONDS, TimeUnit.SECONDS).getPayload().toStringUtf8());
      }
      try (ClientRuntime client = new ClientRuntime(base, new Testkit(), 1)) {
        ExecutionException e = assertThrows(ExecutionException.class,
            () -> client.call(A, echo, EchoReply.class).get(CALL_SECONDS, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof OperationException);
        assertTrue(e.getCause().getMessage().contains("requires a client token"), e.getCause().getMessage());
      }
      ClusterConfig wrong = base.withSecurity(new SecuritySpec(base.security().secretFile(), null, "wrong-token-0123456789"));
      try (ClientRuntime client = new ClientRuntime(wrong, new Testkit(), 1)) {
        ExecutionException e = assertThrows(ExecutionException.class,
            () -> client.call(A, echo, EchoReply.class).get(CALL_SECONDS, TimeUnit.SECONDS));
        assertTrue(e.getCause().getMessage().contains("does not know this client token"), e.getCause().getMessage());
      }
      // A raw client that skips the challenge gets nothing served.
      try (Socket s = connect(config.server(A))) {
        write(s, Frame.newBuilder().setHello(Hello.newBuilder().setRole(Role.CLIENT).setCluster(config.name())
            .setProtocol("testkit").setFingerprint(Testkit.MESSAGES.fingerprint()).setNonce(Handshake.nonce())).build());
        assertTrue(read(s).hasChallenge());
        write(s, Frame.newBuilder().setRequest(org.kvlab.wire.Request.newBuilder().setId(1)
            .setType(Testkit.MESSAGES.idOf(Echo.class)).setBody(echo.toByteString())).build());
        Frame answer = read(s);
        assertTrue(answer.getWelcome().getError().contains("expected auth"), answer.toString());
        assertClosedByServer(s);
      }
      awaitCounter(cluster.node(A), "security.handshakesAbandoned", 2);
      awaitCounter(cluster.node(A), "security.handshakesRefused", 1);
    }
  }

  @Test
  void when_clientConnectionIsIdle_then_serverClosesIt_andTheClientReconnects() throws Exception {
    ClusterConfig config = TestClusters.loopback("testkit", 1, 1, TestClusters.memory(),
        PATIENT.withTimeouts(PATIENT.handshakeMillis(), 1));
    try (LocalCluster cluster = LocalCluster.start(config, new Testkit());
         ClientRuntime client = new ClientRuntime(config, new Testkit(), 1)) {
      assertEquals("x", echoAcrossIdleClose(client, "x"));
      Node node = cluster.node(A);
      while (counter(node, "security.clientsIdleClosed") < 1) {
        Thread.sleep(50);
      }
      while (node.status().get(CALL_SECONDS, TimeUnit.SECONDS).getClients() != 0) {
        Thread.sleep(10);
      }
      assertEquals("y", echoAcrossIdleClose(client, "y"));
    }
  }

  /**
   * An echo on a connection that the server closes after 1 s without traffic: a request that meets the close (the
   * server's idle timer fired in a stall of the machine between the handshake and the request, or the client has not
   * yet seen the close) fails as a lost connection, and the next one opens a new connection. A few tries, not one:
   * a client that never reconnects still fails.
   */
  private static String echoAcrossIdleClose(ClientRuntime client, String payload) throws Exception {
    Echo echo = Echo.newBuilder().setPayload(ByteString.copyFromUtf8(payload)).build();
    for (int attempt = 1; ; attempt++) {
      try {
        return client.call(A, echo, EchoReply.class).get(CALL_SECONDS, TimeUnit.SECONDS).getPayload().toStringUtf8();
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof OperationException) || !e.getCause().getMessage().contains("connection")
            || attempt == 3) {
          throw e;
        }
      }
    }
  }

  private static Hello controlHello(ClusterConfig config) {
    return Hello.newBuilder().setRole(Role.CONTROL).setCluster(config.name()).setProtocol("testkit")
        .setNonce(Handshake.nonce()).build();
  }

  private static long counter(Node node, String name) {
    return node.metrics().counters().getOrDefault(name, 0L);
  }

  /** Waits (bounded by the class timeout) until the counter reaches {@code value}, then checks it is exactly that. */
  private static void awaitCounter(Node node, String name, long value) throws InterruptedException {
    while (counter(node, name) < value) {
      Thread.sleep(10);
    }
    Thread.sleep(100); // nothing more arrives
    assertEquals(value, counter(node, name));
  }
}
