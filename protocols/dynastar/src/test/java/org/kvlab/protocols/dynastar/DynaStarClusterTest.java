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
 * DynaStar on the real runtime (loopback, 3 data partitions and the oracle, in this JVM): from a random placement, one
 * session adds 1 to the pairs {a0, b0} ... {a3, b3} over and over; the pairs span partitions, so the oracle's plans
 * (every 200 ms) move them together while the adds go on. Every add's result and the final values are exact, and the
 * plans made the later adds single-partition. And a procedure that is not key-local runs at one destination on the
 * reads of all its keys.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DynaStarClusterTest {
  @Test
  void when_pairsAreAddedToWhileThePlansMoveThem_then_noAddIsLostAndThePairsEndTogether() throws Exception {
    ClusterConfig loop = TestClusters.loopback("dynastar", 1, 4, TestClusters.memory());
    ClusterConfig config = new ClusterConfig(loop.source(), loop.name(), loop.protocol(), new Params(Map.of(
        "placement", "random", "repartitionEvery", "200ms", "hintEvery", "50ms", "partitioner", "greedy")),
        loop.topology(), loop.servers(), loop.storage(), loop.emulation(), loop.limits(), loop.security());
    int rounds = 60;
    try (LocalCluster cluster = LocalCluster.start(config, new DynaStar());
         ClientRuntime clients = new ClientRuntime(config, new DynaStar(), 1)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)), "servers did not connect");
      try (Session s = clients.openSession(0)) {
        for (int i = 1; i <= rounds; i++) {
          for (int pair = 0; pair < 4; pair++) {
            var r = s.transact(TxnRequest.procedure("add", List.of("a" + pair, "b" + pair), "1"));
            assertEquals(ByteString.copyFromUtf8(Integer.toString(i)), r.writes().get("a" + pair));
            assertEquals(ByteString.copyFromUtf8(Integer.toString(i)), r.writes().get("b" + pair));
          }
          Thread.sleep(10);
        }
        for (int pair = 0; pair < 4; pair++) {
          assertEquals(Optional.of(ByteString.copyFromUtf8(Integer.toString(rounds))), s.get("b" + pair));
        }
      }
      long plans = cluster.node(NodeId.of(0, 3)).metrics().counters().getOrDefault("dynastar.plans", 0L);
      long single = 0;
      for (int p = 0; p < 3; p++) {
        single += cluster.node(NodeId.of(0, p)).metrics().counters().getOrDefault("dynastar.singlePartition", 0L);
      }
      assertTrue(plans >= 1, "the oracle made no plan");
      assertTrue(single > 4 * rounds / 2, "after the plan most adds are single-partition: " + single + " of "
          + (4 * rounds + 4));
    }
  }

  @Test
  void when_aProcedureNeedsTheReadsOfKeysAtTwoPartitions_then_theDestinationRunsItOnAllOfThem() throws Exception {
    ClusterConfig config = TestClusters.loopback("dynastar", 1, 4, TestClusters.memory());
    InitialPlacement hash = InitialPlacement.parse("hash", 3);
    String x = "x0";
    String y = java.util.stream.IntStream.range(0, 100).mapToObj(i -> "y" + i)
        .filter(k -> hash.of(k) != hash.of(x)).findFirst().orElseThrow();
    try (LocalCluster cluster = LocalCluster.start(config, new DynaStar());
         ClientRuntime clients = new ClientRuntime(config, new DynaStar(), 2)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)), "servers did not connect");
      try (Session a = clients.openSession(0); Session b = clients.openSession(0)) {
        a.put(x, ByteString.copyFromUtf8("hello"));
        // test-copy-first (the framework's test procedure, not key-local): every key after the first gets the
        // first key's value, so the destination needs x's value from the other partition
        var r = a.transact(TxnRequest.procedure("test-copy-first", List.of(x, y)));
        assertEquals(ByteString.copyFromUtf8("hello"), r.writes().get(y));
        assertEquals(Optional.of(ByteString.copyFromUtf8("hello")), b.get(y));
        assertEquals(Optional.of(ByteString.copyFromUtf8("hello")), b.get(x));
      }
      long multi = 0;
      for (int p = 0; p < 3; p++) {
        multi += cluster.node(NodeId.of(0, p)).metrics().counters().getOrDefault("dynastar.multiPartition", 0L);
      }
      assertEquals(1, multi, "the procedure was one multi-partition command");
    }
  }
}
