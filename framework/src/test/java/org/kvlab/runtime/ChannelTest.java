package org.kvlab.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvlab.api.NodeId;
import org.kvlab.api.OperationException;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.Limits;
import org.kvlab.testing.TestClusters;
import org.kvlab.testing.Testkit;
import org.kvlab.testing.kit.Received;
import org.kvlab.testing.kit.ReceivedReply;
import org.kvlab.testing.kit.SendSeq;
import org.kvlab.testing.kit.SendSeqReply;

/**
 * Server-to-server channels are FIFO and exactly-once between live peers, across reconnects.
 * Method: node 0_0 sends numbered messages to 1_0 while the test repeatedly kills the TCP connection
 * between them; 1_0 must receive 1..N, each once, in order.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS) // stops a hang only
class ChannelTest {
  private static final NodeId A = new NodeId(0, 0);
  private static final NodeId B = new NodeId(1, 0);

  @Test
  void when_connectionIsDroppedRepeatedly_then_messagesArriveInOrderExactlyOnce() throws Exception {
    ClusterConfig config = TestClusters.loopback("testkit", 2, 1, TestClusters.memory());
    try (LocalCluster cluster = LocalCluster.start(config, new Testkit());
         ClientRuntime client = new ClientRuntime(config, new Testkit(), 1)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(60)));
      int batches = 40;
      int perBatch = 500;
      for (int i = 0; i < batches; i++) {
        client.call(A, SendSeq.newBuilder().setTo(B.toString()).setCount(perBatch).build(), SendSeqReply.class)
            .get(10, TimeUnit.SECONDS);
        if (i % 2 == 1) {
          // Alternate the side that breaks the A -> B connection: the sender, then the receiver; then wait
          // until A's channel to B is re-established (its reconnect count goes up) before going on.
          long before = reconnects(cluster);
          cluster.node(i % 4 == 1 ? A : B).dropPeerConnections().get(5, TimeUnit.SECONDS);
          long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
          while (reconnects(cluster) == before && System.nanoTime() < deadline) {
            Thread.sleep(5);
          }
          assertEquals(before + 1, reconnects(cluster), "the A -> B channel must be re-established after drop " + i);
        }
      }
      long expected = (long) batches * perBatch;
      List<Long> got = awaitReceived(client, expected);
      assertEquals(LongStream.rangeClosed(1, expected).boxed().toList(), got,
          "messages must arrive exactly once and in order");
      assertEquals(batches / 2, reconnects(cluster), "the A -> B channel must have been re-established after every drop");
    }
  }

  @Test
  void when_peerIsDown_then_sendPushesBackOnceTheQueueLimitIsReached() throws Exception {
    ClusterConfig config = TestClusters.loopback("testkit", 2, 1, TestClusters.memory(),
        new Limits(Limits.FRAME_BYTES_MAX_DEFAULT, 100, Limits.CLIENT_REQUESTS_IN_FLIGHT_MAX_DEFAULT));
    Node a = Node.start(config, A, new Testkit()); // B never starts
    try (ClientRuntime client = new ClientRuntime(config, new Testkit(), 1)) {
      client.call(A, SendSeq.newBuilder().setTo(B.toString()).setCount(100).build(), SendSeqReply.class)
          .get(10, TimeUnit.SECONDS);
      var e = assertThrows(java.util.concurrent.ExecutionException.class, () -> client.call(A,
          SendSeq.newBuilder().setTo(B.toString()).setCount(1).build(), SendSeqReply.class).get(10, TimeUnit.SECONDS));
      assertTrue(e.getCause() instanceof org.kvlab.api.OverloadedException, "refused, not failed: " + e.getCause());
      assertTrue(e.getCause().getMessage().contains("peerQueueMessagesMax"), e.getCause().getMessage());

      // When B comes up, everything queued is delivered.
      Node b = Node.start(config, B, new Testkit());
      try {
        List<Long> got = awaitReceived(client, 100);
        assertEquals(LongStream.rangeClosed(1, 100).boxed().toList(), got);
      } finally {
        b.close();
      }
    } finally {
      a.close();
    }
  }

  /**
   * limits.peerFlushMicros: a message sent on a link idle for longer than the period goes out in its own turn; messages
   * sent sooner after a write wait for the period and go out together. Method: 200 sequential client requests on
   * 0_0, each sending one message to 1_0 in its own event-loop turn, with a 100 ms period; the link's network writes
   * (counter channel.writes) are bounded by the time the run took over the period, where without pacing every turn
   * writes; and everything arrives once, in order.
   */
  @Test
  void when_peerWritesArePaced_then_turnsShareWrites_andAnIdleLinkWritesAtOnce_andOrderHolds() throws Exception {
    int periodMicros = 100_000;
    ClusterConfig config = TestClusters.loopback("testkit", 2, 1, TestClusters.memory(),
        Limits.defaults().withPeerFlushMicros(periodMicros));
    try (LocalCluster cluster = LocalCluster.start(config, new Testkit());
         ClientRuntime client = new ClientRuntime(config, new Testkit(), 1)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(60)));
      Thread.sleep(periodMicros / 1000 + 50); // the link is idle for longer than the period
      long before = writes(cluster);
      long t0 = System.nanoTime();
      sendOne(client);
      assertEquals(before + 1, writes(cluster), "the first message on an idle link is written in its own turn");
      sendOne(client);
      if (System.nanoTime() - t0 < TimeUnit.MICROSECONDS.toNanos(periodMicros)) {
        assertEquals(before + 1, writes(cluster), "a message sent within the period after a write waits for it");
      }
      int n = 200;
      for (int i = 2; i < n; i++) {
        sendOne(client);
      }
      List<Long> got = awaitReceived(client, n);
      long elapsed = System.nanoTime() - t0;
      assertEquals(LongStream.rangeClosed(1, n).boxed().toList(), got, "paced messages arrive once and in order");
      long writes = writes(cluster) - before;
      long bound = 2 + elapsed / TimeUnit.MICROSECONDS.toNanos(periodMicros);
      assertTrue(writes <= bound, n + " messages in " + n + " turns took " + writes + " writes in "
          + elapsed / 1_000_000 + " ms; pacing allows at most " + bound);
    }
  }

  @Test
  void when_peerWritesAreNotPaced_then_everyTurnWrites() throws Exception {
    ClusterConfig config = TestClusters.loopback("testkit", 2, 1, TestClusters.memory(),
        Limits.defaults().withPeerFlushMicros(0));
    try (LocalCluster cluster = LocalCluster.start(config, new Testkit());
         ClientRuntime client = new ClientRuntime(config, new Testkit(), 1)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(60)));
      long before = writes(cluster);
      int n = 50;
      for (int i = 0; i < n; i++) {
        sendOne(client);
        assertEquals(before + i + 1, writes(cluster), "without pacing each turn's message is written in that turn");
      }
      assertEquals(LongStream.rangeClosed(1, n).boxed().toList(), awaitReceived(client, n));
    }
  }

  private static void sendOne(ClientRuntime client) throws Exception {
    client.call(A, SendSeq.newBuilder().setTo(B.toString()).setCount(1).build(), SendSeqReply.class)
        .get(10, TimeUnit.SECONDS);
  }

  private static long writes(LocalCluster cluster) {
    return cluster.node(A).metrics().counters().getOrDefault("channel.writes", 0L);
  }

  private static long reconnects(LocalCluster cluster) {
    return cluster.node(A).metrics().counters().getOrDefault("channel.reconnects", 0L);
  }

  /** Polls 1_0 until it received {@code expected} messages from 0_0 (or 30 s passed); what it received. */
  static List<Long> awaitReceived(ClientRuntime client, long expected) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    List<Long> got = List.of();
    while (System.nanoTime() < deadline) {
      got = client.call(B, Received.newBuilder().setFrom(A.toString()).build(), ReceivedReply.class)
          .get(10, TimeUnit.SECONDS).getNumbersList();
      if (got.size() >= expected) {
        break;
      }
      Thread.sleep(20);
    }
    return got;
  }
}
