package org.kvlab.designer.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.cluster.NodeState;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.wire.PeerStatus;
import org.kvlab.wire.Status;

/** What the node table makes of a server's status: state, peers, RTT range, load between two polls. */
class NodeRowTest {
  static final ServerSpec S = new ServerSpec(NodeId.of(1, 0), "10.0.0.5", 7102);

  static Status status(int connected, int expected, long ops, long uptime, PeerStatus... peers) {
    return Status.newBuilder().setNode("1_0").setPeersConnected(connected).setPeersExpected(expected)
        .putOperations("GetRequest", ops).setUptimeMillis(uptime).setClients(2).setPid(4242)
        .addAllPeers(List.of(peers)).build();
  }

  static PeerStatus peer(boolean connected, double rtt) {
    return PeerStatus.newBuilder().setNode("x").setConnected(connected).setRttMillis(rtt).build();
  }

  @Test
  void aServerConnectedToEveryPeerIsUpWithItsRttRangeAndNoRateOnTheFirstPoll() {
    NodeRow r = NodeRow.of(new NodeState(S, 0, Optional.of(status(2, 2, 10, 1000, peer(true, 0.42), peer(true, 40.25))),
        null), new NodeRow.LoadMeter());
    assertEquals(new NodeRow("1_0", 1, "10.0.0.5:7102", NodeRow.UP, "2/2", "0.4-40.3 ms", "- ops/s, 2 clients", 4242, ""), r);
  }

  @Test
  void peersNotConnectedAndUnmeasuredRttsAreLeftOut() {
    NodeRow r = NodeRow.of(new NodeState(S, 7, Optional.of(status(1, 2, 0, 10, peer(true, 3.0), peer(false, 99),
        peer(true, -1))), null), new NodeRow.LoadMeter());
    assertEquals(NodeRow.CONNECTING, r.state());
    assertEquals("1/2", r.peers());
    assertEquals("3.0 ms", r.rtt());
    assertEquals(7, r.pid(), "the backend's pid comes first");
    assertEquals("-", NodeRow.rtt(List.of(peer(false, 5))));
  }

  @Test
  void theLoadIsTheOperationRateBetweenTwoPollsAndRestartsOnARestartedServer() throws Exception {
    NodeRow.LoadMeter m = new NodeRow.LoadMeter();
    m.describe("1_0", status(2, 2, 100, 1000));
    Thread.sleep(200);
    String second = m.describe("1_0", status(2, 2, 300, 1200));
    assertTrue(second.matches("\\d+ ops/s, 2 clients"), second);
    long rate = Long.parseLong(second.split(" ")[0]);
    assertTrue(rate > 0 && rate <= 1000, second); // 200 operations in at least 0.2 s
    assertEquals("- ops/s, 2 clients", m.describe("1_0", status(2, 2, 5, 100)), "uptime went back: a new process");
  }

  @Test
  void aServerThatDoesNotAnswerIsDownOrRefusedWithTheReason() {
    NodeRow.LoadMeter m = new NodeRow.LoadMeter();
    assertEquals(new NodeRow("1_0", 1, "10.0.0.5:7102", NodeRow.DOWN, "-", "-", "-", 0, ""),
        NodeRow.of(new NodeState(S, 0, Optional.empty(), null), m));
    NodeRow refused = NodeRow.of(new NodeState(S, 0, Optional.empty(), "another cluster answers. Fix: ..."), m);
    assertEquals(NodeRow.REFUSED, refused.state());
    assertEquals("another cluster answers. Fix: ...", refused.problem());
  }
}
