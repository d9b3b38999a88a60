package org.kvlab.protocols.nukv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.NodeId;
import org.kvlab.api.Session;
import org.kvlab.api.SessionGuarantees.ReadLevel;
import org.kvlab.check.Result;
import org.kvlab.check.SessionChecker;
import org.kvlab.config.ClusterConfig;
import org.kvlab.history.History;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.runtime.Node;
import org.kvlab.store.Durability;
import org.kvlab.testing.TestClusters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Raft stall watchdog ({@code RaftWatchdog.check}) on the real runtime: a loopback cluster of 2 datacenters x 1
 * partition x a 3-replica Raft group, Berkeley DB JE with fsync'd replies, every operation recorded.
 *
 * <p>The stall is reproduced as {@link NuKVRestartedFollowersTest} does in the simulator, with no test hook: the two
 * followers of datacenter 0's group are stopped and restarted on their data directories one after the other while
 * the leader stays up, then the leader stops. MicroRaft 0.7 leaves each restarted follower a pre-candidate state (it
 * starts a pre-vote when it starts, before it hears the leader, and keeps that state for the rest of the term), in
 * which it starts no pre-vote when the leader goes silent: without the watchdog the group stays leaderless until the
 * old leader comes back (it does not, here, until the group has elected and taken writes without it). Asserted: no
 * RaftNode is rebuilt while the group has a leader (the follower restarts included); after the leader stops, the group
 * elects one of the followers and takes writes again, at least one follower rebuilt its RaftNode (the counter
 * {@value #REBUILT}) and neither more than once; the old leader rejoins and catches up; every acknowledged write is
 * read back at MR+RYW in both datacenters; the session checker passes over the recorded history.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class NuKVStalledGroupClusterTest {
  private static final Logger LOG = LoggerFactory.getLogger(NuKVStalledGroupClusterTest.class);
  static final String REBUILT = "nukv.raft.rebuilt";

  @Test
  void when_bothFollowersRestartedUnderTheLeaderAndItStops_then_aStalledFollowerIsRebuiltAndTheGroupElectsWithoutIt(
      @TempDir Path dir) throws Exception {
    ClusterConfig config = TestClusters.loopbackReplicated("nukv", 2, 1, 3, TestClusters.je(dir, Durability.SYNC),
        Map.of("electionTimeout", "300ms"));
    History.Recorder recorder = new History.Recorder();
    Map<NodeId, Node> started = new LinkedHashMap<>(); // nodes this test (re)started itself, newest per id
    try (LocalCluster cluster = LocalCluster.start(config, new NuKV());
         ClientRuntime clients = new ClientRuntime(config, new NuKV(), 2)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)));
      clients.recordHistory(recorder);
      Session writer = clients.openSession(0);
      Session reader = clients.openSession(1);
      Map<String, String> acked = new LinkedHashMap<>(); // key -> last acknowledged value
      List<String> unknown = new ArrayList<>();
      int[] n = {0};
      List<Node> everyNode = new ArrayList<>(cluster.nodes()); // every Node object, stopped ones too (their counters)

      NuKVClusterTest.writeRound(writer, reader, acked, unknown, n, 10);
      NodeId leader = NuKVClusterTest.leaderOf(cluster.node(NodeId.of(0, 0, 0)));
      List<NodeId> followers = new ArrayList<>();
      for (int r = 0; r < 3; r++) {
        if (r != leader.replica()) {
          followers.add(NodeId.of(0, 0, r));
        }
      }

      // Each follower in turn stops and restarts under the same leader; writes go on meanwhile.
      for (NodeId f : followers) {
        current(cluster, started, f).close();
        NuKVClusterTest.writeRound(writer, reader, acked, unknown, n, 5);
        Node back = Node.start(config, f, new NuKV());
        started.put(f, back);
        everyNode.add(back);
        NuKVClusterTest.writeRound(writer, reader, acked, unknown, n, 5);
        awaitCaughtUp(back, acked, unknown); // it hears the leader: it has everything acknowledged
      }
      for (NodeId f : followers) {
        assertEquals(leader, NuKVClusterTest.leaderOf(current(cluster, started, f)), "the scenario needs both"
            + " followers restarted under one leader, but " + f + " names another (the machine too loaded to keep"
            + " the leader's heartbeats within 2 s?)");
      }
      // A group with a leader rebuilds nothing, although both followers now hold MicroRaft's pre-candidate state.
      assertEquals(0L, rebuilds(everyNode), "RaftNodes rebuilt while the group had a leader: " + counters(everyNode));

      // The leader stops. Neither follower starts an election by itself; the watchdog rebuilds a stalled one.
      current(cluster, started, leader).close();
      long stopped = System.nanoTime();
      int before = acked.size();
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (acked.size() == before && System.nanoTime() < deadline) {
        NuKVClusterTest.writeRound(writer, reader, acked, unknown, n, 1);
      }
      assertTrue(acked.size() > before, "datacenter 0's group took no write within 90 s of its leader stopping"
          + " (a stalled election the watchdog did not end); counters: " + counters(everyNode));
      LOG.info("leader {} stopped; the group's first write after it was acknowledged {} ms later; {}", leader,
          (System.nanoTime() - stopped) / 1_000_000, counters(everyNode));
      NodeId newLeader = NuKVClusterTest.leaderOf(current(cluster, started, followers.get(0)));
      assertTrue(followers.contains(newLeader), "a follower must lead now, not " + newLeader);
      long rebuilt = rebuilds(followers.stream().map(f -> started.get(f)).toList());
      assertTrue(rebuilt >= 1, "the group elected, but no follower rebuilt its RaftNode: MicroRaft elected by"
          + " itself, so the stall was not reproduced; counters: " + counters(everyNode));
      for (NodeId f : followers) {
        assertTrue(rebuilds(List.of(started.get(f))) <= 1, f + " rebuilt its RaftNode more than once: "
            + started.get(f).metrics().counters());
      }
      before = acked.size();
      NuKVClusterTest.writeRound(writer, reader, acked, unknown, n, 10);
      assertTrue(acked.size() - before >= 8, "writes must go on under the new leader (10 fresh keys written): "
          + unknown);

      // The old leader comes back as a follower and catches up; nothing is rebuilt any more.
      Node old = Node.start(config, leader, new NuKV());
      started.put(leader, old);
      everyNode.add(old);
      NuKVClusterTest.writeRound(writer, reader, acked, unknown, n, 5);
      for (int r = 0; r < 3; r++) {
        awaitCaughtUp(current(cluster, started, NodeId.of(0, 0, r)), acked, unknown);
      }
      assertEquals(rebuilt, rebuilds(everyNode), "RaftNodes rebuilt after the group had elected again: "
          + counters(everyNode));

      // Every acknowledged write, read at MR+RYW: by the writer's session in datacenter 0, and in datacenter 1.
      for (Map.Entry<String, String> e : acked.entrySet()) {
        List<String> allowed = NuKVClusterTest.allowed(e.getKey(), e.getValue(), unknown);
        Optional<ByteString> got = writer.get(e.getKey(), ReadLevel.MR_RYW);
        assertTrue(got.isPresent() && allowed.contains(got.get().toStringUtf8()),
            "datacenter 0 read " + e.getKey() + " = " + got + ", acknowledged " + e.getValue());
      }
      for (Map.Entry<String, String> e : acked.entrySet()) {
        List<String> allowed = NuKVClusterTest.allowed(e.getKey(), e.getValue(), unknown);
        Optional<ByteString> got = NuKVClusterTest.awaitValue(reader, e.getKey(), allowed);
        assertTrue(got.isPresent() && allowed.contains(got.get().toStringUtf8()),
            "datacenter 1 read " + e.getKey() + " = " + got + ", acknowledged " + e.getValue());
      }
    } finally {
      for (Node node : started.values()) {
        node.close();
      }
    }
    History history = recorder.build();
    Result session = new SessionChecker().check(history);
    assertTrue(session.valid(), session.toString());
    assertTrue(history.operations().stream().filter(o -> o.ok()).count() >= 100, "a non-trivial history");
  }

  /** The running node {@code id}: the one this test restarted last, else the cluster's. */
  private static Node current(LocalCluster cluster, Map<NodeId, Node> started, NodeId id) {
    return started.containsKey(id) ? started.get(id) : cluster.node(id);
  }

  private static void awaitCaughtUp(Node node, Map<String, String> acked, List<String> unknown) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    List<String> missing = NuKVClusterTest.missing(node, acked, unknown);
    while (!missing.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(100);
      missing = NuKVClusterTest.missing(node, acked, unknown);
    }
    assertEquals(List.of(), missing, node.id() + " must catch up on every acknowledged write");
  }

  static long rebuilds(List<Node> nodes) {
    long sum = 0;
    for (Node node : nodes) {
      sum += node.metrics().counters().getOrDefault(REBUILT, 0L);
    }
    return sum;
  }

  private static String counters(List<Node> nodes) {
    StringBuilder b = new StringBuilder();
    for (Node node : nodes) {
      b.append(node.id()).append(": ").append(REBUILT).append('=')
          .append(node.metrics().counters().getOrDefault(REBUILT, 0L)).append("; ");
    }
    return b.toString();
  }
}
