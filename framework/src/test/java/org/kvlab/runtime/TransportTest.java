package org.kvlab.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.kvlab.api.NodeId;
import org.kvlab.config.ClusterConfig;
import org.kvlab.testing.TestClusters;
import org.kvlab.testing.Testkit;
import org.kvlab.testing.kit.Echo;
import org.kvlab.testing.kit.EchoReply;
import org.kvlab.testing.kit.SendSeq;
import org.kvlab.testing.kit.SendSeqReply;

/**
 * The runtime works alike on every transport this machine has (Java NIO everywhere, Netty's epoll on Linux
 * x86-64): a loopback pair of servers and a client on one transport exchange requests (small and large) and a
 * peer channel delivers in order across a dropped connection. And the {@value Transport#PROPERTY} setting is
 * checked: an unknown value stops a server or client with a message naming the fix.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS) // stops a hang only
class TransportTest {
  private static final NodeId A = new NodeId(0, 0);
  private static final NodeId B = new NodeId(1, 0);

  @ParameterizedTest
  @EnumSource(Transport.class)
  void when_clusterRunsOnATransport_then_requestsAndPeerChannelsWork(Transport transport) throws Exception {
    assumeTrue(transport.isAvailable(), transport + " is not available on this machine");
    ClusterConfig config = TestClusters.loopback("testkit", 2, 1, TestClusters.memory());
    try (LocalCluster cluster = LocalCluster.start(config, new Testkit(), transport);
         ClientRuntime client = new ClientRuntime(config, new Testkit(), 1, transport)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(60)), "servers must connect to each other on " + transport);
      assertEquals(transport, cluster.node(A).transport());

      // Requests of a few bytes and of a megabyte (many reads and writes on both sides), pipelined.
      byte[] big = new byte[1 << 20];
      new Random(17).nextBytes(big);
      List<ByteString> payloads = List.of(ByteString.copyFromUtf8("x"), ByteString.copyFrom(big),
          ByteString.copyFromUtf8("after the large one"));
      var replies = payloads.stream()
          .map(p -> client.call(A, Echo.newBuilder().setPayload(p).build(), EchoReply.class)).toList();
      for (int i = 0; i < payloads.size(); i++) {
        assertEquals(payloads.get(i), replies.get(i).get(30, TimeUnit.SECONDS).getPayload(), "echo " + i);
      }

      // A peer channel: in order, once, also after its connection was dropped.
      send(client, 1000);
      cluster.node(B).dropPeerConnections().get(5, TimeUnit.SECONDS);
      send(client, 1000);
      assertEquals(LongStream.rangeClosed(1, 2000).boxed().toList(), ChannelTest.awaitReceived(client, 2000));
    }
  }

  @Test
  void when_settingIsUnknown_then_serverAndClientRefuseWithTheFix() {
    var e = assertThrows(IllegalArgumentException.class, () -> Transport.parse("epol"));
    assertTrue(e.getMessage().contains("-Dkvlab.transport=epol is not a transport"), e.getMessage());
    assertTrue(e.getMessage().contains("Fix: use -Dkvlab.transport=nio") && e.getMessage().contains("=epoll"),
        e.getMessage());
    assertEquals(Transport.EPOLL, Transport.parse(" EPOLL "));
    assertEquals(Transport.NIO, Transport.parse("nio"));
    assertEquals(Transport.DEFAULT, Transport.parse(null));
    assertEquals(Transport.DEFAULT, Transport.parse(""));

    ClusterConfig config = TestClusters.loopback("testkit", 1, 1, TestClusters.memory());
    String before = System.getProperty(Transport.PROPERTY);
    System.setProperty(Transport.PROPERTY, "netty");
    try {
      var s = assertThrows(Node.StartException.class, () -> Node.start(config, A, new Testkit()));
      assertTrue(s.getMessage().startsWith("server 0_0: -Dkvlab.transport=netty is not a transport. Fix: "),
          s.getMessage());
      var c = assertThrows(IllegalArgumentException.class, () -> new ClientRuntime(config, new Testkit(), 1));
      assertTrue(c.getMessage().contains("Fix: use -Dkvlab.transport=nio"), c.getMessage());
    } finally {
      if (before == null) {
        System.clearProperty(Transport.PROPERTY);
      } else {
        System.setProperty(Transport.PROPERTY, before);
      }
    }
  }

  @Test
  void when_epollCannotRunHere_then_nioIsUsedInstead() {
    for (boolean asked : new boolean[] {false, true}) {
      assertEquals(Transport.NIO, Transport.NIO.available(asked, true));
      assertEquals(Transport.EPOLL.isAvailable() ? Transport.EPOLL : Transport.NIO, Transport.EPOLL.available(asked, false));
    }
  }

  private static void send(ClientRuntime client, int count) throws Exception {
    client.call(A, SendSeq.newBuilder().setTo(B.toString()).setCount(count).build(), SendSeqReply.class)
        .get(10, TimeUnit.SECONDS);
  }
}
