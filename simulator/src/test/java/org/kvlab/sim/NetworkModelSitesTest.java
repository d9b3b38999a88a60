package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;

/** NetworkModel.Sites: partitions of one datacenter placed on sites (CaMu's WAN runs). */
class NetworkModelSitesTest {
  @Test
  void when_partitionsAreOnSites_then_theLatencyBetweenTwoServersIsTheirSites() {
    NetworkModel m = NetworkModel.uniform(2, 100).withSites(new NetworkModel.Sites(new int[] {0, 0, 1},
        new long[][] {{200, 10_000}, {10_000, 300}}, new long[][] {{0, 0}, {0, 0}}));
    Random r = new Random(1);
    assertEquals(200, m.sample(NodeId.of(0, 0), NodeId.of(0, 1), r), "same site");
    assertEquals(10_000, m.sample(NodeId.of(0, 1), NodeId.of(0, 2), r), "two sites");
    assertEquals(10_000, m.sample(NodeId.of(1, 2), NodeId.of(1, 0), r), "sites apply in every datacenter");
    long wan = m.sample(NodeId.of(0, 0), NodeId.of(1, 0), r);
    assertTrue(wan >= 50_000 && wan <= 55_000, "between datacenters the datacenters' latency: " + wan);
    NetworkModel plain = NetworkModel.uniform(1, 1);
    long lan = plain.sample(NodeId.of(0, 0), NodeId.of(0, 2), r);
    assertTrue(lan >= 200 && lan <= 300, "without sites, the datacenter's own latency: " + lan);
  }
}
