package org.kvlab.protocols.dynastar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.api.Session;
import org.kvlab.api.TxnRequest;
import org.kvlab.config.ClusterConfig;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.testing.TestClusters;

/**
 * Replicated DynaStar on the real runtime (loopback, in this JVM): 3 datacenters x 4 partitions, replica d of every
 * partition in datacenter d, each partition and the oracle a Raft group of 3. From a random placement a session of
 * datacenter 0 adds 1 to the pairs {a0, b0} ... {a2, b2} while the oracle's plans (every 300 ms) move them; halfway
 * the replica the session talks to in partition 0 (0_0) stops for good, and the session fails over to the others of
 * its group. Every add returns the exact count and the final values are exact: no add lost, none applied twice.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class DynaStarReplicatedClusterTest {
  @Test
  void when_pairsAreAddedToAndAReplicaStops_then_theSessionFailsOverAndNoAddIsLostOrDoubled() throws Exception {
    ClusterConfig loop = TestClusters.loopback("dynastar", 3, 4, TestClusters.memory());
    ClusterConfig config = new ClusterConfig(loop.source(), loop.name(), loop.protocol(), new Params(Map.of(
        "placement", "random", "repartitionEvery", "300ms", "hintEvery", "50ms", "partitioner", "greedy")),
        loop.topology(), loop.servers(), loop.storage(), loop.emulation(), loop.limits(), loop.security());
    int rounds = 30;
    try (LocalCluster cluster = LocalCluster.start(config, new DynaStar());
         ClientRuntime clients = new ClientRuntime(config, new DynaStar(), 1)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)), "servers did not connect");
      try (Session s = clients.openSession(0)) {
        for (int i = 1; i <= rounds; i++) {
          if (i == rounds / 2) {
            cluster.node(NodeId.of(0, 0)).close();
          }
          for (int pair = 0; pair < 3; pair++) {
            var r = s.transact(TxnRequest.procedure("add", List.of("a" + pair, "b" + pair), "1"));
            assertEquals(ByteString.copyFromUtf8(Integer.toString(i)), r.writes().get("a" + pair));
            assertEquals(ByteString.copyFromUtf8(Integer.toString(i)), r.writes().get("b" + pair));
          }
          Thread.sleep(10);
        }
        for (int pair = 0; pair < 3; pair++) {
          assertEquals(Optional.of(ByteString.copyFromUtf8(Integer.toString(rounds))), s.get("a" + pair));
          assertEquals(Optional.of(ByteString.copyFromUtf8(Integer.toString(rounds))), s.get("b" + pair));
        }
      }
      long delivered = 0;
      for (int d = 1; d < 3; d++) {
        delivered += cluster.node(NodeId.of(d, 0)).metrics().counters().getOrDefault("multicast.delivered", 0L);
      }
      assertTrue(delivered > 0, "partition 0's remaining replicas delivered nothing");
    }
  }
}
