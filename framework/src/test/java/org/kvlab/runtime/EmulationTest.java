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
 * Emulated WAN delay and clock skew take effect. Nothing here depends on how fast a loaded machine runs: the
 * delay between datacenters is checked as a lower bound (a loaded machine can make messages later, never
 * earlier); the absence of a delay inside a datacenter by the fastest of repeated sends (an emulated delay
 * holds every message, so it is a floor under each of them, while load only slows some); the skew by
 * bracketing one server's clock reading between two readings of the other's.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS) // stops a hang only; on an idle machine this takes about 2 s
class EmulationTest {
  private static final NodeId A = new NodeId(0, 0);
  private static final NodeId B = new NodeId(1, 0);
  private static final NodeId A2 = new NodeId(0, 1);
  private static final Duration CALL = Duration.ofSeconds(30);

  @Test
  void when_rttIsSet_then_messagesBetweenDatacentersTakeHalfOfIt_andWithinADatacenterNone() throws Exception {
    ClusterConfig config = TestClusters.loopback("testkit", 2, 2, TestClusters.memory())
        .withEmulation(new EmulationSpec(new long[][] {{0, 200}, {200, 0}}, Map.of(B, 5_000L)));
    try (LocalCluster cluster = LocalCluster.start(config, new Testkit());
         ClientRuntime client = new ClientRuntime(config, new Testkit(), 1)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(120)));
      for (int round = 0; round < 3; round++) {
        long start = System.nanoTime();
        client.call(A, SendSeq.newBuilder().setTo(B.toString()).setCount(1).build(), SendSeqReply.class).get(30, TimeUnit.SECONDS);
        awaitCount(client, B, A, round + 1);
        double crossMillis = (System.nanoTime() - start) / 1e6;
        assertTrue(crossMillis >= 95, "one-way delay dc0 -> dc1 should be >= 100 ms, was " + crossMillis);
      }

      // Same datacenter: no emulated delay. A delay of 100 ms would hold every message at least that long; a loaded
      // machine slows only some sends, so the fastest of up to 50 must be well below it.
      double fastest = Double.MAX_VALUE;
      List<Long> tries = new java.util.ArrayList<>();
      for (int i = 1; i <= 50 && fastest >= 95; i++) {
        long start = System.nanoTime();
        client.call(A, SendSeq.newBuilder().setTo(A2.toString()).setCount(1).build(), SendSeqReply.class).get(30, TimeUnit.SECONDS);
        awaitCount(client, A2, A, i);
        double millis = (System.nanoTime() - start) / 1e6;
        tries.add(Math.round(millis));
        fastest = Math.min(fastest, millis);
      }
      assertTrue(fastest < 95, "messages inside a datacenter must not be delayed; sends took (ms) " + tries);

      // Skew: B's reading lies between two readings of A's clock (one machine, one system clock), so B's skew is
      // within [skewed - after, skewed - before]. Retried until that bracket is narrower than the original 2 s check.
      long before = 0;
      long skewed = 0;
      long after = Long.MAX_VALUE / 2;
      for (int i = 0; i < 20 && after - before > 1_000; i++) {
        before = clock(client, A);
        skewed = clock(client, B);
        after = clock(client, A);
      }
      assertTrue(after - before <= 1_000, "no two readings of server " + A + " within 1 s: " + before + ", " + after);
      long slack = 20; // millisecond readings
      assertTrue(skewed - after <= 5_000 + slack && skewed - before >= 5_000 - slack,
          "server " + B + " should run 5 s ahead: it read " + skewed + " between " + before + " and " + after + " of "
              + A + " (" + (skewed - after) + " to " + (skewed - before) + " ms ahead)");
    }
  }

  private static long clock(ClientRuntime client, NodeId at) throws Exception {
    return client.call(at, ClockReq.getDefaultInstance(), ClockReply.class).get(30, TimeUnit.SECONDS).getMillis();
  }

  private static void awaitCount(ClientRuntime client, NodeId at, NodeId from, int count) throws Exception {
    long deadline = System.nanoTime() + CALL.toNanos();
    while (System.nanoTime() < deadline) {
      List<Long> got = client.call(at, Received.newBuilder().setFrom(from.toString()).build(), ReceivedReply.class)
          .get(30, TimeUnit.SECONDS).getNumbersList();
      if (got.size() >= count) {
        assertEquals(count, got.size());
        return;
      }
      Thread.sleep(2);
    }
    throw new AssertionError("message " + count + " from " + from + " never arrived at " + at + " (waited " + CALL + ")");
  }
}
