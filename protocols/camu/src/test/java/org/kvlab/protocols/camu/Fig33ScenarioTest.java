package org.kvlab.protocols.camu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Clock;
import org.kvlab.api.Handlers;
import org.kvlab.api.Metrics;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.api.Request;
import org.kvlab.api.ServerContext;
import org.kvlab.api.Slot;
import org.kvlab.api.Timer;
import org.kvlab.api.Topology;
import org.kvlab.consensus.multicast.proto.SkeenData;
import org.kvlab.consensus.multicast.proto.SkeenVote;
import org.kvlab.store.InMemoryStore;
import org.kvlab.store.VersionedStore;
import org.slf4j.Logger;
import org.slf4j.helpers.NOPLogger;

/**
 * The thesis's worked example (§3.3.2, Fig. 3.3), scripted message by message on four partitions P0-P3 with one
 * node each; only P1-P2 is a PB link, every other link is TOM. Transaction A, submitted at P1, touches P0, P1, P2:
 * it is hybrid (TOM between P0 and P1, then P1 forwards it on PB to P2). Transaction B, submitted at P3, touches
 * P2 and P3: TOM only. B is decided and queued at P2 while A is still being ordered at P1 (P0's vote is slow);
 * in that round ("round 17") P2's MEC is bounded by P1's LMEC, which is at most A's timestamp, so B waits; in the
 * next round ("round 18") A arrives from P1 on PB and P2 executes A, then B.
 *
 * <p>A small deterministic harness drives the four {@link CamuServer}s: virtual time, 1 ms per message, FIFO per
 * link, rounds of 10 ms, and the one slow message (P0's vote on A to P1, 24 ms). The thesis's absolute timestamps
 * (A 213, B 247, MEC 201) come from traffic before the example; here the clocks start at 0, so the test checks the
 * relations the example shows (A before B in (ts, tid) order, B blocked by P1's LMEC, both executed in the next
 * round in the order A, B), and prints nothing.
 */
class Fig33ScenarioTest {
  private static final long ROUND = 10_000;

  /** One delivered or sent server message, for the assertions. */
  record Sent(long at, int from, int to, Message m) {}

  static final class Harness {
    final Topology topology = new Topology(1, 4);
    final PriorityQueue<long[]> order = new PriorityQueue<>((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0])
        : Long.compare(a[1], b[1]));
    final Map<Long, Runnable> actions = new HashMap<>();
    final long[][] lastArrival = new long[4][4];
    final List<Sent> sent = new ArrayList<>();
    final List<Ctx> nodes = new ArrayList<>();
    final Map<Integer, Message> replies = new HashMap<>();
    BiFunction<Integer, Message, Long> extraDelay = (to, m) -> 0L;
    long now;
    long seq;

    Harness(Params params) {
      for (int p = 0; p < 4; p++) {
        Ctx c = new Ctx(p, params);
        nodes.add(c);
      }
      for (Ctx c : nodes) {
        c.server.start();
      }
    }

    void at(long time, Runnable r) {
      long id = seq++;
      actions.put(id, r);
      order.add(new long[] {time, id});
    }

    void runUntil(long end) {
      while (!order.isEmpty() && order.peek()[0] <= end) {
        long[] e = order.poll();
        now = e[0];
        actions.remove(e[1]).run();
      }
      now = end;
    }

    void submit(int at, int client, TxnReq body) {
      Ctx c = nodes.get(at);
      c.onRequest.handle(new Request<>() {
        boolean done;

        @Override
        public TxnReq body() {
          return body;
        }

        @Override
        public void reply(Message r) {
          done = true;
          replies.put(client, r);
        }

        @Override
        public void fail(String reason) {
          throw new AssertionError("request failed: " + reason);
        }

        @Override
        public void unknown(String reason) {
          throw new AssertionError("request unknown: " + reason);
        }

        @Override
        public boolean answered() {
          return done;
        }
      });
    }

    final class Ctx implements ServerContext {
      final int p;
      final Params params;
      final CamuServer server = new CamuServer();
      final InMemoryStore<Record> store = new InMemoryStore<>(Camu.RECORD);
      final Map<Class<?>, Handlers.MessageHandler<Message>> handlers = new HashMap<>();
      Handlers.RequestHandler<TxnReq> onRequest;
      final Map<Class<?>, Message> slots = new HashMap<>(); // the slots' values (a test may preset one)

      Ctx(int p, Params params) {
        this.p = p;
        this.params = params;
        server.bind(this, new Handlers() {
          @Override
          @SuppressWarnings("unchecked")
          public <Q extends Message> void request(Class<Q> type, RequestHandler<Q> handler) {
            onRequest = (RequestHandler<TxnReq>) handler;
          }

          @Override
          @SuppressWarnings("unchecked")
          public <M extends Message> void message(Class<M> type, MessageHandler<M> handler) {
            handlers.put(type, (MessageHandler<Message>) handler);
          }

          @Override
          public void every(Duration period, Runnable task) {
            throw new UnsupportedOperationException("camu uses no periodic handlers");
          }
        });
      }

      @Override
      public NodeId self() {
        return NodeId.of(0, p);
      }

      @Override
      public Topology topology() {
        return topology;
      }

      @Override
      public Params params() {
        return params;
      }

      @Override
      public void send(NodeId to, Message message) {
        int q = to.partition();
        long arrive = Math.max(now + 1_000 + extraDelay.apply(q, message), lastArrival[p][q]);
        lastArrival[p][q] = arrive;
        sent.add(new Sent(now, p, q, message));
        Ctx target = nodes.get(q);
        at(arrive, () -> target.handlers.get(message.getClass()).handle(message, NodeId.of(0, p)));
      }

      @Override
      public Timer after(Duration delay, Runnable task) {
        boolean[] cancelled = new boolean[1];
        at(now + delay.toNanos() / 1000, () -> {
          if (!cancelled[0]) {
            task.run();
          }
        });
        return () -> cancelled[0] = true;
      }

      @Override
      public Timer every(Duration period, Runnable task) {
        throw new UnsupportedOperationException("camu uses no periodic timers");
      }

      @Override
      public Clock clock() {
        return new Clock() {
          @Override
          public long millis() {
            return now / 1000;
          }

          @Override
          public long micros() {
            return now;
          }
        };
      }

      @Override
      public Random random() {
        return new Random(p);
      }

      @Override
      @SuppressWarnings("unchecked")
      public <R extends Message> VersionedStore<R> store() {
        return (VersionedStore<R>) store;
      }

      @Override
      @SuppressWarnings("unchecked")
      public <S extends Message> Slot<S> slot(S defaultInstance) {
        slots.putIfAbsent(defaultInstance.getClass(), defaultInstance);
        return new Slot<>() {
          @Override
          public S get() {
            return (S) slots.get(defaultInstance.getClass());
          }

          @Override
          public void set(S value) {
            slots.put(defaultInstance.getClass(), value);
          }
        };
      }

      @Override
      public Metrics metrics() {
        return Metrics.NOP;
      }

      @Override
      public Logger log() {
        return NOPLogger.NOP_LOGGER;
      }
    }
  }

  /** The first key of the form k&lt;i&gt; that partition p holds. */
  static String keyOf(Topology t, int p) {
    for (int i = 0; ; i++) {
      if (t.partitionOf("k" + i) == p) {
        return "k" + i;
      }
    }
  }

  static TxnReq txn(Topology t, int... parts) {
    TxnReq.Builder b = TxnReq.newBuilder().setApi(true);
    for (int p : parts) {
      b.addReads(keyOf(t, p)).putWrites(keyOf(t, p), ByteString.copyFromUtf8("v" + p));
    }
    return b.build();
  }

  /** The result partition {@code p} sent (or produced, if it is the origin) for the transaction a client got. */
  static PartResult part(TxnReply r, int p) {
    return r.getPartsList().stream().filter(x -> x.getPartition() == p).findFirst().orElseThrow();
  }

  @Test
  void when_aHybridIsStillOrderedAtItsOrigin_then_aLaterTomTransactionWaitsAtTheMecGateAndRunsAfterIt() {
    Harness h = new Harness(new Params(Map.of("mode", "camu", "pbLinks", "1-2", "round", "10ms")));
    // P0's vote on A (sent at 11 ms) reaches P1 at 45 ms, after P1's fourth round has started: A is undecided then
    h.extraDelay = (to, m) -> to == 1 && m instanceof SkeenVote v && v.getGroup() == 0 ? 33_000L : 0L;
    Topology t = h.topology;
    h.at(5_000, () -> h.submit(1, 0, txn(t, 1, 0, 2)));   // A at P1: batched in round 1 (t = 10 ms)
    h.at(25_000, () -> h.submit(3, 1, txn(t, 3, 2)));     // B at P3: batched in round 3 (t = 30 ms)
    h.runUntil(80_000);

    TxnReply a = (TxnReply) h.replies.get(0);
    TxnReply b = (TxnReply) h.replies.get(1);
    assertNotNull(a, "A must complete");
    assertNotNull(b, "B must complete");
    assertEquals(3, a.getPartsCount());
    assertEquals(2, b.getPartsCount());
    for (PartResult r : a.getPartsList()) {
      assertEquals(a.getTs(), r.getTs(), "timestamp agreement on A at P" + r.getPartition());
    }
    for (PartResult r : b.getPartsList()) {
      assertEquals(b.getTs(), r.getTs(), "timestamp agreement on B at P" + r.getPartition());
    }
    assertTrue(a.getTs() < b.getTs(), "A's timestamp " + a.getTs() + " is below B's " + b.getTs() + " (213 < 247)");

    // A is hybrid: TOM between P1 and P0 only, then a PB leg from P1 to P2 carrying A's final timestamp
    assertTrue(h.sent.stream().noneMatch(s -> s.m() instanceof SkeenData x && x.getId() == a.getTid()
        && s.to() == 2), "A goes to P2 by PB, not by TOM");
    Sent pbLeg = h.sent.stream().filter(s -> s.m() instanceof PbRound r && s.from() == 1 && r.getTxnsList().stream()
        .anyMatch(x -> x.getTid() == a.getTid())).findFirst().orElseThrow();
    assertEquals(2, pbLeg.to());
    assertEquals(a.getTs(), ((PbRound) pbLeg.m()).getTxnsList().get(0).getTs());
    // ... sent in the round after TOM decided A at P1 (P0's vote arrives at 45 ms): round 5, at 50 ms
    assertEquals(50_000, pbLeg.at());
    // B is TOM only: its messages stay between P3 and P2 (genuine)
    assertTrue(h.sent.stream().filter(s -> (s.m() instanceof SkeenData x && x.getId() == b.getTid())
        || (s.m() instanceof SkeenVote v && v.getId() == b.getTid()))
        .allMatch(s -> (s.from() == 3 && s.to() == 2) || (s.from() == 2 && s.to() == 3)));

    // The rounds before A's PB leg: P1 announces an LMEC at most A's timestamp, so P2's MEC cannot pass B
    List<PbRound> fromP1 = h.sent.stream().filter(s -> s.m() instanceof PbRound && s.from() == 1 && s.to() == 2
        && s.at() < pbLeg.at()).map(s -> (PbRound) s.m()).toList();
    PbRound round17 = fromP1.get(fromP1.size() - 1);
    assertTrue(round17.getLmec() <= a.getTs() && round17.getLmec() < b.getTs(),
        "P1's LMEC in the round before A's PB leg (" + round17.getLmec() + ") bounds P2's MEC below B ("
            + b.getTs() + ")");
    // B was decided at P2 at 31 ms and queued in round 4 (the thesis's round 17), yet P2 did not execute it
    long bExecAtP2 = h.sent.stream().filter(s -> s.m() instanceof PartResult r && r.getTid() == b.getTid()
        && s.from() == 2).findFirst().orElseThrow().at();
    long aExecAtP2 = h.sent.stream().filter(s -> s.m() instanceof PartResult r && r.getTid() == a.getTid()
        && s.from() == 2).findFirst().orElseThrow().at();
    assertTrue(bExecAtP2 > pbLeg.at(), "P2 executed B at " + bExecAtP2 + ", before A's PB leg arrived");
    // "round 18": A arrives and both run, in the order A then B, in the same round
    assertEquals(pbLeg.at() + 1_000, aExecAtP2, "A runs at P2 when P1's round message carrying it arrives");
    assertEquals(aExecAtP2, bExecAtP2, "A and B run in the same round at P2");
    assertTrue(part(a, 2).getSeq() < part(b, 2).getSeq(), "P2 executes A before B");
  }
}
