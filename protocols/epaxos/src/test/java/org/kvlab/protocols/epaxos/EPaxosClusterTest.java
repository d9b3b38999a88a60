package org.kvlab.protocols.epaxos;

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
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;
import org.kvlab.check.ConvergenceChecker;
import org.kvlab.check.LinearizabilityChecker;
import org.kvlab.check.Result;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.EmulationSpec;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.api.Session;
import org.kvlab.testing.CheckedClusterRun;
import org.kvlab.testing.TestClusters;

/**
 * EPaxos on a real loopback cluster of 3 replicas (3 datacenters x 1 partition, 10 ms emulated RTT): sessions in
 * every datacenter read and write 8 keys for 3 s and the history is linearizable and convergent; then multi-key
 * transactions cross datacenters: a write of two keys at replica 0 is read whole at replica 2, and an append
 * procedure at replica 1 reads and extends both.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EPaxosClusterTest {
  static final EmulationSpec WAN = new EmulationSpec(new long[][] {{0, 10, 10}, {10, 0, 10}, {10, 10, 0}}, Map.of());

  @Test
  void when_sessionsInThreeDatacentersReadAndWrite_then_theRecordedHistoryIsLinearizable() throws Exception {
    CheckedClusterRun.Spec spec = new CheckedClusterRun.Spec(3, 1, WAN, 2, 8, 0.5, 0.0, 1, 2,
        Duration.ofSeconds(3), Duration.ofSeconds(20));
    CheckedClusterRun.Outcome run = CheckedClusterRun.run(new EPaxos(), TestClusters.memory(), spec);
    assertEquals(List.of(), run.workloadErrors(), run.summary());
    for (Result r : List.of(new LinearizabilityChecker().check(run.history()),
        new ConvergenceChecker(run.finalReadsFromMicros()).check(run.history()))) {
      assertTrue(r.valid(), () -> r.checker() + ": " + r.violations() + "; " + run.summary());
    }
    run.assertNonTrivial(100, 100, 0, 10); // every datacenter reads the others' writes
  }

  @Test
  void when_aMultiKeyTransactionCommitsAtOneReplica_then_anotherReplicaReadsItWhole() throws Exception {
    ClusterConfig config = TestClusters.loopback("epaxos", 3, 1, TestClusters.memory()).withEmulation(WAN);
    try (LocalCluster cluster = LocalCluster.start(config, new EPaxos());
         ClientRuntime clients = new ClientRuntime(config, new EPaxos(), 2);
         Session s0 = clients.openSession(0);
         Session s1 = clients.openSession(1);
         Session s2 = clients.openSession(2)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)), "the 3 replicas did not connect within 30 s");
      assertTrue(s0.supportsTransactions());
      TxnResult w = s0.transact(TxnRequest.of(List.of(), Map.of("x", utf8("1"), "y", utf8("2"))));
      assertEquals(Map.of("x", utf8("1"), "y", utf8("2")), w.writes());
      TxnResult r = s2.transact(TxnRequest.of(List.of("x", "y"), Map.of()));
      assertEquals(Map.of("x", Optional.of(utf8("1")), "y", Optional.of(utf8("2"))), r.reads());
      TxnResult a = s1.transact(TxnRequest.procedure("append", List.of("x", "y"), "7", "x", "y"));
      assertEquals(Map.of("x", utf8("1 7"), "y", utf8("2 7")), a.writes());
      assertEquals(Optional.of(utf8("2 7")), s0.get("y"));
      s2.put("x", utf8("9"));
      assertEquals(Optional.of(utf8("9")), s1.get("x"));
    }
  }

  private static ByteString utf8(String s) {
    return ByteString.copyFromUtf8(s);
  }
}
