package org.kvlab.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvlab.api.NodeId;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.EmulationSpec;
import org.kvlab.testing.TestClusters;
import org.kvlab.testing.Testkit;
import org.kvlab.testing.kit.ClockReply;
import org.kvlab.testing.kit.ClockReq;
import org.kvlab.testing.kit.Received;
import org.kvlab.testing.kit.ReceivedReply;
import org.kvlab.testing.kit.SendSeq;
import org.kvlab.testing.kit.SendSeqReply;

/**
 * Emulated WAN delay and clock skew take effect. Only lower bounds on delays are asserted (a loaded
 * machine can make messages later, never earlier).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EmulationTest {
  private static final NodeId A = new NodeId(0, 0);
  private static final NodeId B = new NodeId(1, 0);
  private static final NodeId A2 = new NodeId(0, 1);

  @Test
  void when_rttIsSet_then_messagesBetweenDatacentersTakeHalfOfIt_andWithinADatacenterNone() throws Exception {
    ClusterConfig config = TestClusters.loopback("testkit", 2, 2, TestClusters.memory())
        .withEmulation(new EmulationSpec(new long[][] {{0, 200}, {200, 0}}, Map.of(B, 5_000L)));
    try (LocalCluster cluster = LocalCluster.start(config, new Testkit());
         ClientRuntime client = new ClientRuntime(config, new Testkit(), 1)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(20)));
      for (int round = 0; round < 3; round++) {
        long start = System.nanoTime();
        client.call(A, SendSeq.newBuilder().setTo(B.toString()).setCount(1).build(), SendSeqReply.class).get(5, TimeUnit.SECONDS);
        awaitCount(client, B, A, round + 1);
        double crossMillis = (System.nanoTime() - start) / 1e6;
        assertTrue(crossMillis >= 95, "one-way delay dc0 -> dc1 should be >= 100 ms, was " + crossMillis);
      }
      // Same datacenter: no emulated delay (only a loose sanity bound, far below the WAN delay).
      long start = System.nanoTime();
      client.call(A, SendSeq.newBuilder().setTo(A2.toString()).setCount(1).build(), SendSeqReply.class).get(5, TimeUnit.SECONDS);
      awaitCount(client, A2, A, 1);
      assertTrue((System.nanoTime() - start) / 1e6 < 95, "messages inside a datacenter must not be delayed");

      long skewed = client.call(B, ClockReq.getDefaultInstance(), ClockReply.class).get(5, TimeUnit.SECONDS).getMillis();
      long plain = client.call(A, ClockReq.getDefaultInstance(), ClockReply.class).get(5, TimeUnit.SECONDS).getMillis();
      long offset = skewed - plain;
      assertTrue(offset > 4_000 && offset < 6_000, "server " + B + " should run 5 s ahead, was " + offset + " ms");
    }
  }

  private static void awaitCount(ClientRuntime client, NodeId at, NodeId from, int count) throws Exception {
    for (int i = 0; i < 2000; i++) {
      List<Long> got = client.call(at, Received.newBuilder().setFrom(from.toString()).build(), ReceivedReply.class)
          .get(5, TimeUnit.SECONDS).getNumbersList();
      if (got.size() >= count) {
        assertEquals(count, got.size());
        return;
      }
      Thread.sleep(2);
    }
    throw new AssertionError("message never arrived");
  }
}
