package org.kvlab.protocols.eventual;

import static org.kvlab.testing.RawWire.assertClosedByServer;
import static org.kvlab.testing.RawWire.read;
import static org.kvlab.testing.RawWire.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.net.Socket;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvlab.api.NodeId;
import org.kvlab.api.Session;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.testing.TestClusters;
import org.kvlab.wire.Auth;
import org.kvlab.wire.Data;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Hello;
import org.kvlab.wire.Role;

/**
 * The attack of issue 11, on a real loopback cluster: a process that does not know the cluster secret
 * connects to a datacenter-1 server as its datacenter-0 peer ({@code Hello{PEER, node 0_0}}, any
 * incarnation) and sends a Replicate with a huge timestamp. Before the handshake was authenticated it
 * displaced the real channel and its value won for good: a later acknowledged put of the same key was
 * never visible and the datacenters diverged. Now it is refused, delivers nothing, does not disturb
 * the real channel, and the cluster stays convergent.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS) // stops a hang only
class ForgedPeerTest {
  private static final NodeId DC0 = new NodeId(0, 0);
  private static final NodeId DC1 = new NodeId(1, 0);

  @Test
  void when_aProcessWithoutTheSecretPosesAsAPeer_then_itIsRefusedAndTheClusterConverges() throws Exception {
    ClusterConfig config = TestClusters.loopback("eventual", 2, 1, TestClusters.memory());
    Eventual eventual = new Eventual();
    try (LocalCluster cluster = LocalCluster.start(config, eventual);
         ClientRuntime clients = new ClientRuntime(config, eventual, 1)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(60)));
      ServerSpec victim = config.server(DC1);
      Replicate forged = Replicate.newBuilder().setKey("k").setRecord(Record.newBuilder()
          .setValue(ByteString.copyFromUtf8("forged")).setUt(Long.MAX_VALUE / 2).setSr(0)).build();
      Frame data = Frame.newBuilder().setData(Data.newBuilder().setSeq(1)
          .setType(eventual.messages().idOf(Replicate.class)).setBody(forged.toByteString())).build();

      for (int attempt = 0; attempt < 3; attempt++) {
        try (Socket s = new Socket(victim.host(), victim.port())) {
          s.setSoTimeout(5000);
          write(s, Frame.newBuilder().setHello(Hello.newBuilder().setRole(Role.PEER).setCluster(config.name())
              .setProtocol("eventual").setFingerprint(eventual.messages().fingerprint()).setNode(DC0.toString())
              .setIncarnation(attempt * 1_000_003L).setNonce(ByteString.copyFrom(random(32)))).build());
          Frame challenge = read(s);
          assertTrue(challenge.hasChallenge(), challenge.toString());
          switch (attempt) {
            case 0 -> write(s, data); // ignore the challenge, send at once
            case 1 -> { // a made-up proof, then the data
              write(s, Frame.newBuilder().setAuth(Auth.newBuilder().setProof(ByteString.copyFrom(random(32)))).build());
              write(s, data);
            }
            default -> { // echo the server's own proof back (reflection)
              write(s, Frame.newBuilder().setAuth(Auth.newBuilder().setProof(challenge.getChallenge().getProof())).build());
              write(s, data);
            }
          }
          Frame answer = read(s);
          assertFalse(answer.getWelcome().getError().isEmpty(), answer.toString());
          assertClosedByServer(s);
        }
      }
      assertEquals(3L, cluster.node(DC1).metrics().counters().getOrDefault("security.handshakesRefused", 0L));
      // The real channel was never displaced: neither side had to reconnect.
      assertEquals(0L, cluster.node(DC0).metrics().counters().getOrDefault("channel.reconnects", 0L));
      assertEquals(0L, cluster.node(DC1).metrics().counters().getOrDefault("channel.reconnects", 0L));

      // An acknowledged put afterwards is visible in both datacenters: nothing forged won.
      Session dc0 = clients.openSession(0);
      Session dc1 = clients.openSession(1);
      dc0.put("k", ByteString.copyFromUtf8("real"));
      while (!dc1.get("k").equals(java.util.Optional.of(ByteString.copyFromUtf8("real")))) {
        Thread.sleep(20); // replication; bounded by the class timeout
      }
      assertEquals(dc0.get("k"), dc1.get("k"));
    }
  }

  private static byte[] random(int n) {
    byte[] b = new byte[n];
    new SecureRandom().nextBytes(b);
    return b;
  }
}
