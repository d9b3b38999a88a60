package org.kvlab.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.NodeId;
import org.kvlab.api.OperationException;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.testing.Testkit;
import org.kvlab.testing.kit.Echo;
import org.kvlab.testing.kit.EchoReply;
import org.kvlab.testing.kit.KitPut;
import org.kvlab.testing.kit.KitPutReply;
import org.kvlab.testing.kit.Received;
import org.kvlab.testing.kit.ReceivedReply;
import org.kvlab.testing.kit.SendSeq;
import org.kvlab.testing.kit.SendSeqReply;
import org.kvlab.wire.Status;

/**
 * Under durability sync, server-to-server channels are exactly-once and FIFO across crashes of either
 * side (docs/runtime.md, "Durability of channels").
 * Method: a 2 x 1 Testkit cluster on JE with durability sync; the side that crashes runs in a child JVM
 * ({@link NodeChild}) and is killed with SIGKILL, so nothing is drained, closed or checkpointed. Node A
 * (0_0) sends numbered {@code Seq} messages to node B (1_0), which lists them in delivery order. A
 * restarted Testkit server numbers its messages from 1 again, so the expected list is the
 * concatenation of what each run of A sent.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class DurableChannelTest {
  private static final NodeId A = new NodeId(0, 0);
  private static final NodeId B = new NodeId(1, 0);
  /**
   * Bounds of waits (a child JVM starting, a channel draining, a call with a group fsync) that take a second or less
   * on an idle machine: generous, because a loaded one (load 35 on two cores has been seen) stretches them tenfold.
   * They only stop a hung test; no wait passes for a result.
   */
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final long CALL_SECONDS = 60;

  @TempDir Path dir;
  private final List<Process> children = new ArrayList<>();
  private int base;
  private ClusterConfig config;

  @AfterEach
  void killChildren() {
    children.forEach(Process::destroyForcibly);
  }

  private void newCluster() {
    base = org.kvlab.testing.TestClusters.freeBasePort(2);
    config = NodeChild.config(base, dir.resolve("data"));
  }

  @Test
  void when_senderCrashes_then_itsQueuedMessagesAreDeliveredOnceInOrderAndItsNumbersAreNeverReused() throws Exception {
    newCluster();
    Process a = startChild(A);
    Node b = null;
    try (ClientRuntime client = new ClientRuntime(config, new Testkit(), 1)) {
      // B is down: A's messages wait in its outbox; A's reply says they are durable.
      assertEquals(300, sendSeq(client, 300));
      assertEquals(300, queued(A));
      crash(a);

      a = startChild(A);
      assertEquals(300, queued(A), "the restarted sender must reload its unacknowledged messages");
      assertEquals(200, sendSeq(client, 200)); // numbered 1..200 by the restarted server
      b = Node.start(config, B, new Testkit());
      List<Long> expected = new ArrayList<>(range(300));
      expected.addAll(range(200));
      assertEquals(expected, awaitReceived(client, expected.size()));
      await(() -> queued(A) == 0, "A's channel to B never drained");

      // Everything is acknowledged and gone from A's outbox: a write to A's store makes the removals
      // durable too (its reply waits for a group fsync of the whole log). A crashes again. B, still up,
      // remembers what it delivered from A's (persistent) incarnation: if A reused sequence numbers, B
      // would drop the new messages as duplicates.
      client.call(A, KitPut.newBuilder().setKey("k").setValue(ByteString.copyFromUtf8("v")).build(), KitPutReply.class)
          .get(CALL_SECONDS, TimeUnit.SECONDS);
      crash(a);
      a = startChild(A);
      assertEquals(0, queued(A), "the outbox should be empty: the numbering must come from the acknowledged mark");
      assertEquals(100, sendSeq(client, 100));
      expected.addAll(range(100));
      assertEquals(expected, awaitReceived(client, expected.size()));
      await(() -> queued(A) == 0, "A's channel to B never drained");
      assertEquals(expected, received(client), "messages must arrive exactly once and in order");
    } finally {
      if (b != null) {
        b.close();
      }
    }
  }

  @Test
  void when_receiverCrashesBeforeTheSenderSawItsAcks_then_nothingIsRedeliveredAndNothingIsLost() throws Exception {
    newCluster();
    Process b = startChild(B);
    Node a = Node.start(config, A, new Testkit());
    try (ClientRuntime client = new ClientRuntime(config, new Testkit(), 1)) {
      await(() -> onLoop(a, () -> a.link(B).connected()), "A never connected to B");
      assertEquals(100, sendSeq(client, 100));
      assertEquals(range(100), awaitReceived(client, 100));
      await(() -> onLoop(a, () -> a.link(B).queued() == 0), "A's channel to B never drained");

      // A stops reading its connection to B: B's acks for what follows never reach A.
      a.runOnLoop(() -> a.link(B).channel().config().setAutoRead(false)).get(CALL_SECONDS, TimeUnit.SECONDS);
      assertEquals(250, sendSeq(client, 150));
      // B delivered them all; its reply waited for the fsync that covers its delivered marker.
      assertEquals(range(250), awaitReceived(client, 250));
      assertEquals(150, (int) onLoop(a, () -> a.link(B).queued()), "A must not have seen B's acks");
      crash(b);
      a.runOnLoop(() -> a.link(B).disconnect()).get(CALL_SECONDS, TimeUnit.SECONDS); // unread acks are gone

      assertEquals(300, sendSeq(client, 50)); // while B is down
      b = startChild(B);
      // The restarted B lists only what it delivered in its new life: 251..300. Had it forgotten what
      // it delivered before the crash, A would resend 101..250 and B would deliver them again.
      List<Long> expected = LongStream.rangeClosed(251, 300).boxed().toList();
      assertEquals(expected, awaitReceived(client, expected.size()));
      await(() -> onLoop(a, () -> a.link(B).queued() == 0), "A's channel to B never drained");
      assertEquals(expected, received(client), "no message may be delivered twice or lost");
    } finally {
      a.close();
    }
  }

  // ---------------------------------------------------------------------------------------------

  private static List<Long> range(long n) {
    return LongStream.rangeClosed(1, n).boxed().toList();
  }

  /** Asks A to send {@code count} Seq messages to B; returns the number of the last one. */
  private long sendSeq(ClientRuntime client, int count) throws Exception {
    echo(client, A);
    return client.call(A, SendSeq.newBuilder().setTo(B.toString()).setCount(count).build(), SendSeqReply.class)
        .get(CALL_SECONDS, TimeUnit.SECONDS).getLast();
  }

  private List<Long> received(ClientRuntime client) throws Exception {
    echo(client, B);
    return client.call(B, Received.newBuilder().setFrom(A.toString()).build(), ReceivedReply.class)
        .get(CALL_SECONDS, TimeUnit.SECONDS).getNumbersList();
  }

  private List<Long> awaitReceived(ClientRuntime client, int expected) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    List<Long> got = received(client);
    while (got.size() < expected && System.nanoTime() < deadline) {
      Thread.sleep(20);
      got = received(client);
    }
    return got;
  }

  /** An idempotent call that (re)opens the client's connection to a server that just restarted. */
  private static void echo(ClientRuntime client, NodeId server) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      try {
        client.call(server, Echo.newBuilder().setPayload(ByteString.copyFromUtf8("hi")).build(), EchoReply.class)
            .get(CALL_SECONDS, TimeUnit.SECONDS);
        return;
      } catch (java.util.concurrent.ExecutionException e) {
        if (!(e.getCause() instanceof OperationException) || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(50);
      }
    }
  }

  private Status status(NodeId id) throws IOException {
    ServerSpec s = config.server(id);
    return ControlClient.status(config, s, Duration.ofSeconds(CALL_SECONDS));
  }

  /** Messages queued (unacknowledged or unsent) on the child's channel to the other node. */
  private long queued(NodeId id) throws IOException {
    return status(id).getPeers(0).getQueued();
  }

  private static <T> T onLoop(Node node, java.util.function.Supplier<T> task) {
    try {
      return node.runOnLoopGet(task);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static void await(CheckedCondition condition, String failure) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.holds()) {
      if (System.nanoTime() > deadline) {
        fail(failure);
      }
      Thread.sleep(20);
    }
  }

  @FunctionalInterface
  private interface CheckedCondition {
    boolean holds() throws Exception;
  }

  /** Starts server {@code id} in a child JVM and waits until it answers status requests. */
  private Process startChild(NodeId id) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path log = dir.resolve(id + ".log");
    Process p = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
        NodeChild.class.getName(), String.valueOf(base), dir.resolve("data").toString(), id.toString())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
    children.add(p);
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      if (!p.isAlive()) {
        fail("server " + id + " exited with " + p.exitValue() + ":\n" + Files.readString(log));
      }
      try {
        if (status(id).getPid() == p.pid()) {
          return p;
        }
      } catch (IOException e) {
        // not listening yet
      }
      if (System.nanoTime() > deadline) {
        fail("server " + id + " did not start:\n" + Files.readString(log));
      }
      Thread.sleep(50);
    }
  }

  /** SIGKILL: no drain, no close, no checkpoint; only what reached JE's log file survives. */
  private static void crash(Process p) throws InterruptedException {
    p.destroyForcibly();
    assertTrue(p.waitFor(CALL_SECONDS, TimeUnit.SECONDS), "child did not die");
  }
}
