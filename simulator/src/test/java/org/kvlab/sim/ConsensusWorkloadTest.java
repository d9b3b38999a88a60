package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Client;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Server;
import org.kvlab.api.Transactions;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;
import org.kvlab.history.Operation;
import org.kvlab.testing.PrimaryBackupKit;

/** The consensus workload (objects per replica, locality, complex commands, payloads) and the open loop. */
class ConsensusWorkloadTest {
  private static final int DCS = 5;
  private static final int PER = 100;

  private static SimSpec spec(Workload.Objects objects) {
    Workload w = Workload.defaults().withSessionsPerDc(2).withGetRatio(0).withThinkMicros(0).withObjects(objects);
    return SimSpec.defaults().withTopology(DCS, 1).withNetwork(NetworkModel.uniform(DCS, 2)).withFaultKinds(Set.of())
        .withWorkload(w).withDuration(400_000).withSettle(100_000).withTrace(false).withFinalReads(false);
  }

  /** The datacenter whose range holds key {@code kN}. */
  private static int owner(String key) {
    return Integer.parseInt(key.substring(1)) / PER;
  }

  @Test
  void when_objectsAreDrawn_then_theyFallInTheRangesAtTheLocalityShare() {
    Workload.Objects o = Workload.Objects.of(PER, 0.7);
    Random r = new Random(3);
    int local = 0;
    int n = 20_000;
    int[] perRemote = new int[DCS];
    for (int i = 0; i < n; i++) {
      int k = o.draw(r, 2, DCS);
      assertTrue(k >= 0 && k < DCS * PER, "key " + k + " outside the 5 ranges of 100");
      if (k / PER == 2) {
        local++;
      } else {
        perRemote[k / PER]++;
      }
    }
    assertEquals(0.7, local / (double) n, 0.015, "share of the home range's objects");
    for (int dc = 0; dc < DCS; dc++) { // the remote share is spread evenly over the other ranges
      if (dc != 2) {
        assertEquals(0.3 / 4, perRemote[dc] / (double) n, 0.01, "share of datacenter " + dc + "'s range");
      }
    }
    assertTrue(Workload.Objects.of(PER, 1.0).drawDistinct(r, 4, DCS, 3).stream().allMatch(k -> k / PER == 4));
    assertTrue(Workload.Objects.of(PER, 0.0).drawDistinct(r, 4, DCS, 3).stream().noneMatch(k -> k / PER == 4));
    assertEquals(3, Set.copyOf(o.drawDistinct(r, 0, DCS, 3)).size(), "distinct objects");
  }

  @Test
  void when_objectsAreHashed_then_eachDatacentersObjectsAreKeysWhoseHashModNIsIt() {
    Workload.Objects o = Workload.Objects.of(PER, 1.0).withHashed(true);
    Set<String> all = new java.util.HashSet<>();
    for (int i = 0; i < DCS * PER; i++) {
      String k = o.key(i, DCS);
      assertEquals(i / PER, Math.floorMod(k.hashCode(), DCS), k);
      all.add(k);
    }
    assertEquals(DCS * PER, all.size(), "distinct keys");
    assertEquals("k7", Workload.Objects.of(PER, 1.0).key(7, DCS), "ranges: key number = index");
  }

  @Test
  void when_aValueIsMade_then_itHasExactlyThePayloadSize() {
    Workload.Objects o = Workload.Objects.of(PER, 1);
    assertEquals("s1.2#3..........", o.payload("s1.2#3", 3));
    assertEquals("#123456789......", o.payload("s1234.5678#123456789", 123456789), "too long a tag: the counter");
    assertEquals(16, ByteString.copyFromUtf8(o.payload("s1.2#3", 3)).size());
    assertThrows(IllegalArgumentException.class, () -> new Workload.Objects(PER, 1, 0, 2, 8));
    assertThrows(IllegalArgumentException.class, () -> new Workload.Objects(PER, 1.5, 0, 2, 16));
    assertThrows(IllegalArgumentException.class, () -> new Workload.Objects(PER, 1, 0.5, 1, 16));
  }

  @Test
  void when_aRunHasFullLocality_then_everySessionWritesOnlyItsDatacentersRange() {
    SimResult r = new Simulation(spec(Workload.Objects.of(PER, 1.0)), new PrimaryBackupKit(), 1).run();
    assertTrue(r.failures().isEmpty(), r.failures().toString());
    List<Operation> puts = r.history().operations().stream().filter(op -> op.type() == Operation.Type.PUT).toList();
    assertTrue(puts.size() > 100, puts.size() + " puts");
    for (Operation op : puts) {
      assertEquals(op.dc(), owner(op.key()), op.describe());
      assertEquals(16, op.value().size(), op.describe());
    }
    assertEquals(puts.size(), puts.stream().map(Operation::value).distinct().count(), "every value unique");
  }

  @Test
  void when_aRunHasNoLocality_then_noSessionWritesItsOwnRange() {
    SimResult r = new Simulation(spec(Workload.Objects.of(PER, 0.0)), new PrimaryBackupKit(), 1).run();
    List<Operation> puts = r.history().operations().stream().filter(op -> op.type() == Operation.Type.PUT).toList();
    assertTrue(puts.size() > 100, puts.size() + " puts");
    assertTrue(puts.stream().noneMatch(op -> op.dc() == owner(op.key())), "a local object at locality 0");
  }

  @Test
  void when_complexCommandsAreAsked_then_thatShareIsMultiObjectTransactionsSpanningSeveralRanges() {
    SimResult r = new Simulation(spec(Workload.Objects.of(PER, 1.0).withComplex(0.3, 3)), new TxnAsPuts(), 2).run();
    List<Operation> ops = r.history().operations();
    List<Operation> txns = ops.stream().filter(op -> op.type() == Operation.Type.TXN).toList();
    assertTrue(ops.size() > 300, ops.size() + " operations");
    assertEquals(0.3, txns.size() / (double) ops.size(), 0.05, txns.size() + " complex of " + ops.size());
    for (Operation t : txns) {
      List<String> keys = t.txn().request().keys();
      assertEquals(3, Set.copyOf(keys).size(), "3 distinct objects: " + keys);
      assertTrue(keys.stream().anyMatch(k -> owner(k) == t.dc()), "locality 1: the first from the home range " + keys);
      assertEquals(3, keys.stream().map(ConsensusWorkloadTest::owner).distinct().count(), "3 ranges: " + keys);
      assertTrue(t.txn().request().writes().values().stream().allMatch(v -> v.size() == 16), "16-byte payloads");
    }
  }

  @Test
  void when_complexCommandsMeetAClientWithoutTransactions_then_theRunIsRefusedNamingTheFix() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Simulation(
        spec(Workload.Objects.of(PER, 1.0).withComplex(0.3, 2)), new PrimaryBackupKit(), 1).run());
    assertTrue(e.getMessage().contains("does not offer Transactions") && e.getMessage().contains("Fix:"),
        e.getMessage());
  }

  @Test
  void when_theOpenLoopRateIsBeyondTheCap_then_arrivalsAreSkippedAndInFlightNeverPassesTheCap() {
    // 2 sessions per datacenter, 2 ms RTT: about 1,000 operations per second per session at most; offer 20,000/s
    SimSpec s = spec(Workload.Objects.of(PER, 1.0));
    SimResult over = new Simulation(s.withWorkload(s.workload().withOpenRatePerDc(20_000)), new PrimaryBackupKit(), 1)
        .run();
    long issued = over.counter(OpenLoop.ISSUED);
    long skipped = over.counter(OpenLoop.SKIPPED);
    assertEquals(issued, over.history().operations().size(), "every issued operation is in the history");
    assertTrue(skipped > issued, skipped + " skipped, " + issued + " issued");
    assertEquals(DCS * 20_000 * 0.4, issued + skipped, DCS * 20_000 * 0.4 * 0.05, "arrivals at the rate");
    assertTrue(maxInFlightPerDc(over) <= 2, "in flight per datacenter above the cap of 2 sessions");

    SimResult under = new Simulation(s.withWorkload(s.workload().withOpenRatePerDc(50)), new PrimaryBackupKit(), 1)
        .run();
    assertTrue(under.counter(OpenLoop.SKIPPED) * 20 < under.counter(OpenLoop.ISSUED),
        "50/s per datacenter seldom fills 2 sessions: " + under.counter(OpenLoop.SKIPPED) + " skipped");
    assertEquals(DCS * 50 * 0.4, under.counter(OpenLoop.ISSUED), DCS * 50 * 0.4 * 0.4, "arrivals at the rate");
  }

  @Test
  void when_requestsAndSendsCostCpu_then_oneServerCompletesAtMostOneOperationPerCost() {
    // one server, 8 sessions with no think time: without costs thousands of operations; with 1 ms per client request
    // (or per reply sent) the server's one CPU takes at most 400 in 0.4 s
    SimSpec one = SimSpec.defaults().withTopology(1, 1).withNetwork(NetworkModel.uniform(1, 0)).withFaultKinds(Set.of())
        .withWorkload(Workload.defaults().withSessionsPerDc(8).withThinkMicros(0)).withDuration(400_000)
        .withSettle(10_000).withTrace(false).withFinalReads(false);
    long free = new Simulation(one, new PrimaryBackupKit(), 1).run().history().operations().size();
    Map<NetworkModel, Integer> perOp = Map.of(one.network().withRequestMicros(1_000), 1, one.network()
        .withSendMicros(1_000), 1, one.network().withMessageMicros(1_000), 2); // request and reply: 2 ms
    perOp.forEach((costly, ms) -> {
      long ops = new Simulation(one.withNetwork(costly), new PrimaryBackupKit(), 1).run().history().operations().size();
      assertTrue(ops <= 400 / ms + 8 && ops >= 350 / ms, ops + " operations at " + ms + " ms of CPU each");
      assertTrue(free > 10 * ops, free + " operations without a cost");
    });
  }

  /** The most operations of one datacenter open at one instant. */
  private static int maxInFlightPerDc(SimResult r) {
    int max = 0;
    for (int dc = 0; dc < DCS; dc++) {
      int d = dc;
      List<Operation> ops = r.history().operations().stream().filter(op -> op.dc() == d).toList();
      for (Operation a : ops) {
        long open = ops.stream().filter(b -> b.invokeMicros() <= a.invokeMicros() && b.completeMicros()
            > a.invokeMicros()).count();
        max = (int) Math.max(max, open);
      }
    }
    return max;
  }

  /** The kit's primary-backup with a client whose transactions are its puts one after another (for the workload). */
  static final class TxnAsPuts implements Protocol {
    private final PrimaryBackupKit inner = new PrimaryBackupKit();

    @Override
    public String name() {
      return "txnasputs";
    }

    @Override
    public String summary() {
      return "test: primary-backup whose transactions are sequential puts";
    }

    @Override
    public MessageTypes messages() {
      return inner.messages();
    }

    @Override
    public RecordType<? extends com.google.protobuf.Message> record() {
      return inner.record();
    }

    @Override
    public Server<? extends com.google.protobuf.Message> newServer() {
      return inner.newServer();
    }

    @Override
    public Client newClient() {
      return new TxnClient(inner.newClient());
    }
  }

  static final class TxnClient extends Client implements Transactions {
    private final Client inner;

    TxnClient(Client inner) {
      this.inner = inner;
    }

    @Override
    protected void onStart() {
      inner.bind(context());
    }

    @Override
    public CompletableFuture<Optional<ByteString>> get(String key) {
      return inner.get(key);
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteString value) {
      return inner.put(key, value);
    }

    @Override
    public CompletableFuture<TxnResult> transact(TxnRequest request) {
      CompletableFuture<Void> done = CompletableFuture.completedFuture(null);
      for (Map.Entry<String, ByteString> w : request.writes().entrySet()) {
        done = done.thenCompose(v -> inner.put(w.getKey(), w.getValue()));
      }
      Map<String, Optional<ByteString>> reads = new LinkedHashMap<>();
      request.reads().forEach(k -> reads.put(k, Optional.empty()));
      return done.thenApply(v -> new TxnResult(reads, request.writes(), 0, 0, Map.of()));
    }
  }
}
