package org.kvlab.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvlab.api.OperationException;
import org.kvlab.api.Session;
import org.kvlab.config.ClusterConfig;
import org.kvlab.history.History;
import org.kvlab.history.Operation;
import org.kvlab.history.Operation.Outcome;
import org.kvlab.testing.OutcomeKit;
import org.kvlab.testing.TestClusters;

/**
 * The real client records outcomes by the protocol's word, as the simulator does: a server's
 * {@code fail} is FAIL (even when its reason says "timed out"), its {@code unknown} is INFO, for PUTs
 * and GETs alike; the session's own timeout and a lost connection are INFO; a request never answered
 * is in the history (INFO at the session's timeout).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS) // stops a hang only (about 3 s on an idle machine)
class OutcomeTest {
  private static ByteString v(String s) {
    return ByteString.copyFromUtf8(s);
  }

  private static List<Operation> awaitRecorded(History.Recorder recorder, int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (recorder.build().size() < count && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    return recorder.build().operations();
  }

  /** Waits until the server has stored {@code key}, read by a client of its own (not in the recorded history). */
  private static void awaitStored(ClusterConfig config, String key) throws Exception {
    try (ClientRuntime probe = new ClientRuntime(config, new OutcomeKit(), 1)) {
      Session s = probe.openSession(0, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (s.get(key).isEmpty()) {
        assertTrue(System.nanoTime() < deadline, key + " did not reach the server within 30 s");
        Thread.sleep(10);
      }
    }
  }

  @Test
  void when_theServerSaysFailOrUnknown_then_theClientAndTheHistorySayFailOrInfo() throws Exception {
    ClusterConfig config = TestClusters.loopback("outcomekit", 1, 1, TestClusters.memory());
    History.Recorder recorder = new History.Recorder();
    try (LocalCluster cluster = LocalCluster.start(config, new OutcomeKit());
         ClientRuntime client = new ClientRuntime(config, new OutcomeKit(), 1)) {
      client.recordHistory(recorder);
      // Answered requests get a session timeout no loaded machine reaches; the never-answered one its own short one
      Session s = client.openSession(0, Duration.ofSeconds(30));
      Session shortTimeout = client.openSession(0, Duration.ofMillis(1500));
      s.put("a", v("1"));
      OperationException failed = assertThrows(OperationException.class, () -> s.put("fail/b", v("2")));
      assertFalse(failed.outcomeUnknown(), "fail() is definite: " + failed.getMessage());
      assertEquals(OutcomeKit.FAIL_REASON, failed.getMessage(), "the reason does say 'timed out'");
      OperationException unknown = assertThrows(OperationException.class, () -> s.put("unknown/c", v("3")));
      assertTrue(unknown.outcomeUnknown(), unknown.getMessage());
      assertFalse(assertThrows(OperationException.class, () -> s.get("fail/d")).outcomeUnknown());
      assertTrue(assertThrows(OperationException.class, () -> s.get("unknown/e")).outcomeUnknown());
      OperationException timedOut = assertThrows(OperationException.class, () -> shortTimeout.put("held/f", v("4")));
      assertTrue(timedOut.outcomeUnknown(), "the session's own timeout: " + timedOut.getMessage());
      assertTrue(timedOut.getMessage().contains("timed out after 1500 ms"), timedOut.getMessage());

      List<Operation> ops = awaitRecorded(recorder, 6);
      assertEquals(List.of(Outcome.OK, Outcome.FAIL, Outcome.INFO, Outcome.FAIL, Outcome.INFO, Outcome.INFO),
          ops.stream().map(Operation::outcome).toList(), ops.toString());
      assertEquals(OutcomeKit.FAIL_REASON, ops.get(1).error());
      Operation held = ops.get(5);
      assertEquals("held/f", held.key());
      assertTrue(held.completeMicros() - held.invokeMicros() >= 1_400_000,
          "recorded when the session gave up: " + held.describe());
    }
  }

  @Test
  void when_theConnectionIsLostWithARequestOnIt_then_theOutcomeIsUnknown() throws Exception {
    ClusterConfig config = TestClusters.loopback("outcomekit", 1, 1, TestClusters.memory());
    History.Recorder recorder = new History.Recorder();
    LocalCluster cluster = LocalCluster.start(config, new OutcomeKit());
    try (ClientRuntime client = new ClientRuntime(config, new OutcomeKit(), 1)) {
      client.recordHistory(recorder);
      Session s = client.openSession(0, Duration.ofSeconds(30));
      s.put("a", v("1")); // connected
      CompletableFuture<Void> held = s.putAsync("held/x", v("2"));
      awaitStored(config, "held/x"); // the request has reached the server (which stores it and never answers)
      cluster.close();
      ExecutionException e = assertThrows(ExecutionException.class, () -> held.get(20, TimeUnit.SECONDS));
      OperationException lost = (OperationException) e.getCause();
      assertTrue(lost.outcomeUnknown(), lost.getMessage());
      assertTrue(lost.getMessage().contains("may or may not have taken effect"), lost.getMessage());
      List<Operation> ops = awaitRecorded(recorder, 2);
      assertEquals(Outcome.INFO, ops.get(1).outcome(), ops.get(1).describe());

      // With the server gone, a new request is never sent: a definite failure.
      OperationException refused = assertThrows(OperationException.class, () -> s.put("b", v("3")));
      assertFalse(refused.outcomeUnknown(), refused.getMessage());
      assertEquals(Outcome.FAIL, awaitRecorded(recorder, 3).get(2).outcome());
    } finally {
      cluster.close();
    }
  }
}
