package org.kvlab.protocols.nukv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.runtime.ControlClient;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.testing.TestClusters;
import org.kvlab.wire.Status;

/**
 * Issue 28 item 6: the status a server answers (what {@code kvlab local status} shows in its ROLE column) names each
 * NuKV replica's Raft role and term, so a user can tell which replica leads. Method: 2 datacenters x 1 partition x
 * 3-replica Raft groups on loopback, every server asked over its control endpoint (the path {@code local status}
 * takes) until each group has elected; then each group has exactly one leader, and its followers are in its term.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS) // stops a hang only
class NuKVStatusRoleTest {

  @Test
  void when_theGroupsHaveElected_then_eachShowsExactlyOneLeaderAndFollowersOfItsTerm() throws Exception {
    ClusterConfig config = TestClusters.loopbackReplicated("nukv", 2, 1, 3, TestClusters.memory(),
        Map.of("electionTimeout", "300ms"));
    try (LocalCluster cluster = LocalCluster.start(config, new NuKV())) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)));
      Map<Integer, List<String>> roles = Map.of();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (System.nanoTime() < deadline) {
        roles = rolesByGroup(config);
        if (roles.values().stream().allMatch(NuKVStatusRoleTest::elected)) {
          break;
        }
        Thread.sleep(100);
      }
      assertEquals(2, roles.size(), roles.toString());
      for (List<String> group : roles.values()) {
        assertTrue(elected(group), "one leader and two followers of its term: " + roles);
      }
    }
  }

  /** The ROLE of each server, by datacenter (each datacenter's partition 0 is one Raft group). */
  private static Map<Integer, List<String>> rolesByGroup(ClusterConfig config) throws Exception {
    Map<Integer, List<String>> out = new TreeMap<>();
    for (ServerSpec s : config.servers()) {
      Status st = ControlClient.status(config, s, Duration.ofSeconds(2));
      out.computeIfAbsent(s.id().dc(), dc -> new ArrayList<>()).add(st.getRole());
    }
    return out;
  }

  /** Exactly one "leader t=N" and the others "follower t=N" of the same term N. */
  private static boolean elected(List<String> group) {
    List<String> leaders = group.stream().filter(r -> r.startsWith("leader t=")).toList();
    if (leaders.size() != 1) {
      return false;
    }
    String term = leaders.get(0).substring("leader ".length());
    return group.stream().filter(r -> !r.startsWith("leader ")).allMatch(r -> r.equals("follower " + term));
  }
}
