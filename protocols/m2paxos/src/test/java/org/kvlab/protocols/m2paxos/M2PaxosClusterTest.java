package org.kvlab.protocols.m2paxos;

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
import org.kvlab.api.Session;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;
import org.kvlab.check.ConvergenceChecker;
import org.kvlab.check.LinearizabilityChecker;
import org.kvlab.check.Result;
import org.kvlab.config.ClusterConfig;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.config.ClusterConfig.StorageSpec;
import org.kvlab.testing.CheckedClusterRun;
import org.kvlab.testing.TestClusters;

/**
 * M²Paxos on a real loopback cluster of 3 datacenters x 1 server, 30 ms emulated WAN: sessions in every datacenter
 * read and write 12 keys for 4 s (the history is linearizable and converges), then a multi-key transaction written
 * in one datacenter is read back by a transaction in another.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class M2PaxosClusterTest {
  private static final ClusterConfig.EmulationSpec WAN = new ClusterConfig.EmulationSpec(
      new long[][] {{0, 30, 30}, {30, 0, 30}, {30, 30, 0}}, Map.of());

  @Test
  void when_sessionsInThreeDatacentersReadAndWrite_then_theHistoryIsLinearizable() throws Exception {
    CheckedClusterRun.Spec spec = new CheckedClusterRun.Spec(3, 1, WAN, 2, 12, 0.5, 0.0, 1, 2,
        Duration.ofSeconds(4), Duration.ofSeconds(20));
    CheckedClusterRun.Outcome run = CheckedClusterRun.run(new M2Paxos(), TestClusters.memory(), spec);
    assertEquals(List.of(), run.workloadErrors(), run.summary());
    for (Result r : List.of(new LinearizabilityChecker().check(run.history()),
        new ConvergenceChecker(run.finalReadsFromMicros()).check(run.history()))) {
      assertTrue(r.valid(), () -> r.checker() + ": " + r.violations() + "; " + run.summary());
    }
    run.assertNonTrivial(100, 100, 0, 10);
  }

  @Test
  void when_aTransactionWritesTwoKeys_then_aTransactionInAnotherDatacenterReadsBoth() throws Exception {
    StorageSpec storage = TestClusters.memory();
    ClusterConfig config = TestClusters.loopback("m2paxos", 3, 1, storage).withEmulation(WAN);
    try (LocalCluster cluster = LocalCluster.start(config, new M2Paxos());
         ClientRuntime clients = new ClientRuntime(config, new M2Paxos(), 2)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)), "servers did not connect");
      try (Session dc0 = clients.openSession(0); Session dc2 = clients.openSession(2)) {
        dc0.put("x", ByteString.copyFromUtf8("1"));
        TxnResult w = dc0.transact(TxnRequest.of(List.of("x"), Map.of("y", ByteString.copyFromUtf8("2"),
            "z", ByteString.copyFromUtf8("3"))));
        assertEquals(Optional.of(ByteString.copyFromUtf8("1")), w.reads().get("x"));
        TxnResult r = dc2.transact(TxnRequest.of(List.of("x", "y", "z"), Map.of()));
        assertEquals(Optional.of(ByteString.copyFromUtf8("2")), r.reads().get("y"));
        assertEquals(Optional.of(ByteString.copyFromUtf8("3")), r.reads().get("z"));
        TxnResult add = dc2.transact(TxnRequest.procedure("add", List.of("y", "z"), "10"));
        assertEquals(ByteString.copyFromUtf8("12"), add.writes().get("y"));
        assertEquals(Optional.of(ByteString.copyFromUtf8("13")), dc0.get("z"));
      }
    }
  }
}
