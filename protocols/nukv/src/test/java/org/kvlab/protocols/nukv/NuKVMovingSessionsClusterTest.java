package org.kvlab.protocols.nukv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvlab.api.OperationException;
import org.kvlab.api.Session;
import org.kvlab.api.SessionGuarantees.ReadLevel;
import org.kvlab.api.SessionGuarantees.WriteLevel;
import org.kvlab.check.Result;
import org.kvlab.check.SessionChecker;
import org.kvlab.config.ClusterConfig;
import org.kvlab.history.History;
import org.kvlab.history.Operation;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.testing.TestClusters;

/**
 * Sessions that switch datacenters on the real runtime (issue 15, the case the guarantees exist for): a loopback
 * cluster of 2 datacenters x 1 partition x a 3-replica Raft group; four concurrent sessions on 6 keys, each
 * moving to the other datacenter before about a third of its operations ({@link Session#moveTo}), reads at
 * MR+RYW and writes at MW+WFR, every operation recorded; the session checker finds no violation over the history.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NuKVMovingSessionsClusterTest {

  @Test
  void when_sessionsSwitchDatacentersBetweenOperations_then_theSessionCheckerFindsNoViolation() throws Exception {
    ClusterConfig config = TestClusters.loopbackReplicated("nukv", 2, 1, 3, TestClusters.memory(),
        Map.of("electionTimeout", "300ms"));
    History.Recorder recorder = new History.Recorder();
    ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
    try (LocalCluster cluster = LocalCluster.start(config, new NuKV());
         ClientRuntime clients = new ClientRuntime(config, new NuKV(), 2)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)));
      Session probe = clients.openSession(0);
      OperationException bad = org.junit.jupiter.api.Assertions.assertThrows(OperationException.class,
          () -> probe.moveTo(2));
      assertTrue(bad.getMessage().contains("datacenter 2 does not exist") && bad.getMessage().contains("0..1"),
          bad.getMessage());
      assertEquals(0, probe.dc(), "a refused move leaves the session where it was");
      clients.recordHistory(recorder);
      List<Thread> threads = new ArrayList<>();
      for (int s = 0; s < 4; s++) {
        int id = s;
        Session session = clients.openSession(s % 2);
        threads.add(new Thread(() -> {
          Random random = new Random(id);
          for (int i = 0; i < 120; i++) {
            try {
              if (random.nextInt(3) == 0) {
                session.moveTo(1 - session.dc());
              }
              String key = "k" + random.nextInt(6);
              if (random.nextBoolean()) {
                session.put(key, ByteString.copyFromUtf8("s" + id + "-" + i), WriteLevel.MW_WFR);
              } else {
                session.get(key, ReadLevel.MR_RYW);
              }
            } catch (OperationException e) {
              errors.add("session " + id + " op " + i + ": " + e.getMessage());
            }
          }
        }, "nukv-moving-" + s));
      }
      threads.forEach(Thread::start);
      for (Thread t : threads) {
        t.join(150_000);
      }
    }
    assertEquals(List.of(), new ArrayList<>(errors), "every operation completes (no faults here)");
    History history = recorder.build();
    List<Operation> ops = history.operations();
    assertEquals(4 * 120, ops.size());
    // Non-trivial: sessions did move, and reads returned values written in the other datacenter.
    Map<Integer, List<Operation>> bySession = new java.util.TreeMap<>();
    ops.forEach(o -> bySession.computeIfAbsent(o.session(), k -> new ArrayList<>()).add(o));
    assertEquals(4, bySession.size());
    long moves = 0;
    for (List<Operation> mine : bySession.values()) {
      for (int i = 1; i < mine.size(); i++) {
        moves += mine.get(i).dc() != mine.get(i - 1).dc() ? 1 : 0;
      }
    }
    assertTrue(moves >= 60, "sessions moved " + moves + " times");
    Map<ByteString, Integer> writtenIn = new java.util.HashMap<>();
    ops.stream().filter(o -> o.type() == Operation.Type.PUT).forEach(o -> writtenIn.put(o.value(), o.dc()));
    long crossReads = ops.stream().filter(o -> o.ok() && o.type() == Operation.Type.GET && o.readValue().isPresent()
        && writtenIn.getOrDefault(o.readValue().get(), o.dc()) != o.dc()).count();
    assertTrue(crossReads >= 20, "reads of values written in the other datacenter: " + crossReads);
    Result session = new SessionChecker().check(history);
    assertTrue(session.valid(), session.toString());
  }
}
