package org.kvlab.protocols.camu;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.api.Slot;
import org.kvlab.consensus.multicast.SkeenMulticast;
import org.kvlab.consensus.multicast.proto.SkeenState;
import org.kvlab.protocols.camu.CamuLinks.Link;

/**
 * One CaMu partition (one replica: see docs/protocols.md#camu-replication for why; crash recovery from the state
 * saved in the kit's slot: docs/protocols.md#camu-crash-recovery). The thesis's round loop (Listings 1-2), made
 * event-driven: a round starts on its timer, releases TOM decisions, computes the LMEC, dispatches the batch (PB-only,
 * TOM or hybrid per the links of its participants), sends one {@link PbRound} on every PB or transition link, and
 * ends when the round message of every such link has arrived; it then executes, in (ts, tid) order, every queued
 * transaction with ts below the MEC (the minimum of its own LMEC and the received ones). TOM is the consensus module's
 * {@link SkeenMulticast} (one member per partition); this class keeps CaMu's own rules on top of it.
 *
 * <p>Deviation from the thesis (decided, see the docs): PB links are paired by their own message sequence (each link
 * is a reliable FIFO channel, so the k-th round message of one end pairs with the k-th of the other), not by a global
 * round number (the thesis's §6.2.2 "per-pair sequence numbers"). A switch therefore concerns only the two
 * partitions of a link and never needs the thesis's graph locking and round jump.
 */
final class CamuServer extends Server<Record> {
  private static final Comparator<Txn> ORDER = Comparator.comparingLong(Txn::getTs).thenComparingLong(Txn::getTid);

  private int n;
  private int me;
  private Duration roundLength;
  private boolean mutant;
  private CamuLinks links;

  // round state
  private long round;
  private long roundStart;
  private boolean inRound;
  private List<Integer> awaiting = new ArrayList<>();
  private long localMec;
  private long lastLmecSent = Long.MIN_VALUE;
  private long pbClock = 1;
  private final List<Txn> batch = new ArrayList<>();
  private final TreeSet<Txn> executable = new TreeSet<>(ORDER);
  private Txn lastExecuted;
  private long executedSeq;
  private long localSeq;

  // TOM: Skeen's multicast, one member per partition; what it delivered waits here for the next round to release it
  private SkeenMulticast<Txn> tom;
  private final List<Txn> decided = new ArrayList<>();

  // coordinator: transactions this partition originated, waiting for their participants' results
  private CamuCoordinator coordinator;

  // crash recovery: the ordering state, saved in the kit's slot at the end of every event (null: durableState=false)
  /** Where camu before the kit kept its state, in the store's keys; a store that has it is refused. */
  static final String OLD_STATE_KEY = "\u0000camu.state";
  private Slot<CamuState> state;

  CamuServer() {}

  @Override
  protected void register(Handlers on) {
    tom = new SkeenMulticast<>(partition(), Txn.parser(), (q, m) -> send(NodeId.of(0, q), m),
        (tid, t, ts) -> decided.add(t.toBuilder().setTs(ts).build()));
    on.request(TxnReq.class, this::onTxnReq); // the batch is volatile: a crash loses it (the client sees unknown)
    tom.register(on, this::saving);
    on.message(PbRound.class, (m, from) -> saving(() -> onPbRound(m)));
    on.message(PartResult.class, (m, from) -> saving(() -> coordinator.onResult(m)));
    on.message(SwitchReq.class, (m, from) -> saving(() -> links.onSwitchReq(m.getFrom(), m.getToPb())));
    on.message(SwitchAck.class, (m, from) -> saving(() -> links.onSwitchAck(m.getFrom(), m.getToPb())));
  }

  // ------------------------------------------------------------------------------------------------ durable state

  /**
   * Runs {@code event}, then puts the ordering state (one {@link CamuState}, the Skeen block's state inside it) in
   * the slot. The host writes the slot at the end of the turn with the turn's store writes (the executed
   * transactions), and under durability sync the turn's messages leave only after that write is durable, so a
   * restarted partition resumes from a state that covers every message it sent and every one it consumed.
   */
  private void saving(Runnable event) {
    event.run();
    if (state == null) {
      return;
    }
    CamuState.Builder s = CamuState.newBuilder().setRound(round).setInRound(inRound).addAllAwaiting(awaiting)
        .setLocalMec(localMec).setLastLmecSent(lastLmecSent).setPbClock(pbClock).addAllExecutable(executable)
        .setExecutedSeq(executedSeq).setLocalSeq(localSeq).setTom(tom.state().toByteString()).addAllDecided(decided);
    if (lastExecuted != null) {
      s.setLastExecuted(lastExecuted);
    }
    links.save(s);
    state.set(s.build());
  }

  /** Restores the state of the slot, if this partition ran before; returns whether it did. */
  private boolean recover() {
    if (store().newest(OLD_STATE_KEY).isPresent()) {
      throw new IllegalStateException("camu: partition " + me + " has ordering state that an earlier camu saved"
          + " among the store's keys (\\u0000camu.state); this camu keeps it in the"
          + " framework's slot and cannot read it. Fix: start from an empty data directory");
    }
    CamuState s = state.get();
    if (s.equals(CamuState.getDefaultInstance())) {
      return false; // a fresh store: nothing saved yet
    }
    if (!s.getUnknownFields().asMap().isEmpty()) {
      throw new IllegalStateException("camu: partition " + me + " saved its ordering state with another version of"
          + " camu (fields " + s.getUnknownFields().asMap().keySet() + " are unknown here). Fix: start from an empty"
          + " data directory");
    }
    if (s.getLinksCount() != n) {
      throw new IllegalStateException("camu: partition " + me + " saved its ordering state in a cluster of "
          + s.getLinksCount() + " partitions, this cluster has " + n + ". Fix: keep the partition count of a cluster"
          + " with data, or start from an empty data directory");
    }
    try {
      tom.restore(SkeenState.parseFrom(s.getTom()));
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new IllegalStateException("camu: partition " + me + " cannot read the multicast's state in its saved"
          + " ordering state (" + e.getMessage() + "). Fix: start from an empty data directory", e);
    }
    round = s.getRound();
    inRound = s.getInRound();
    awaiting = new ArrayList<>(s.getAwaitingList());
    localMec = s.getLocalMec();
    lastLmecSent = s.getLastLmecSent();
    pbClock = s.getPbClock();
    executable.addAll(s.getExecutableList());
    lastExecuted = s.hasLastExecuted() ? s.getLastExecuted() : null;
    executedSeq = s.getExecutedSeq();
    localSeq = s.getLocalSeq();
    decided.addAll(s.getDecidedList());
    links.restore(s);
    return true;
  }

  @Override
  protected void onStart() {
    Camu.check(params(), topology()); // the rules the cluster-file loader applied, for servers started otherwise
    n = topology().partitions();
    me = partition();
    roundLength = params().duration("round", Duration.ofMillis(5));
    mutant = params().string("mutant", "none").equals("execute-before-mec-gate");
    coordinator = new CamuCoordinator(metrics());
    links = new CamuLinks(params(), n, me, this::send);
    roundStart = nowMicros();
    if (params().bool("durableState", true)) {
      state = slot(CamuState.getDefaultInstance());
      if (recover()) {
        // Restarted after a crash: the batch and the coordinator state (the clients' open requests) were lost with
        // the memory; everything this partition sent or consumed is in the slot. A round cut short by the crash
        // resumes waiting for its peers' round messages (those sent while it was down arrive after the restart).
        coordinator.restarted(localSeq + 1);
        metrics().count("camu.recovered");
        if (inRound) {
          after(Duration.ZERO, () -> saving(this::tryFinishRound));
          return;
        }
      }
    }
    after(roundLength, () -> saving(this::startRound));
  }

  // ------------------------------------------------------------------------------------------------ client requests

  private void onTxnReq(Request<TxnReq> req) {
    TxnReq b = req.body();
    TreeSet<Integer> parts = new TreeSet<>();
    b.getReadsList().forEach(k -> parts.add(topology().partitionOf(k)));
    b.getWritesMap().keySet().forEach(k -> parts.add(topology().partitionOf(k)));
    if (!parts.contains(me)) {
      req.fail("camu: a transaction is submitted at a participant (the partition of its first key); partition " + me
          + " holds none of its keys. Fix: use the camu client");
      return;
    }
    long tid = ((long) me << 40) | ++localSeq;
    Txn t = Txn.newBuilder().setTid(tid).setOrigin(me).addAllParticipants(parts).addAllReads(b.getReadsList())
        .putAllWrites(b.getWritesMap()).setProcedure(b.getProcedure()).addAllArgs(b.getArgsList()).setApi(b.getApi())
        .build();
    coordinator.accepted(tid, req, parts.size());
    batch.add(t);
  }

  // ------------------------------------------------------------------------------------------------ the round

  private void startRound() {
    inRound = true;
    roundStart = nowMicros();
    // TOM decisions first (the thesis's code calls GetDecided at the very start of the round): a released hybrid
    // leaves the LMEC and goes out on its PB links in this round's messages, so the LMEC they carry may exceed it
    // (Fig. 3.3: in round 18, P1's LMEC is above A's 213 and A arrives with it).
    List<Txn> ready = new ArrayList<>();
    for (Txn t : decided) { // delivered by TOM in (ts, tid) order
      if (t.getOrigin() == me && t.getPbPartsCount() > 0) {
        ready.add(t); // hybrid: the PB leg follows the TOM decision
      } else {
        executable.add(t);
      }
    }
    decided.clear();
    localMec = lmec();
    Invariants.check(localMec >= lastLmecSent, "camu: LMEC went back from %s to %s", lastLmecSent, localMec);
    lastLmecSent = localMec;
    for (Txn t : batch) {
      Txn.Builder b = t.toBuilder().setBatched(roundStart);
      boolean viaTom = false;
      for (int q : t.getParticipantsList()) {
        if (q != me) {
          if (links.link[q] == Link.PB) {
            b.addPbParts(q);
          } else {
            viaTom = true; // TOM, or a link in transition: new transactions use TOM (thesis §3.4.2)
          }
        }
      }
      coordinator.batched(t.getTid(), roundStart, t.getParticipantsCount() == 1 ? "single" : !viaTom ? "pb"
          : b.getPbPartsCount() > 0 ? "hybrid" : "tom");
      if (!viaTom) {
        ready.add(b.setTs(pbClock).build()); // PB-only: stamped by the origin
      } else {
        Txn m = b.build();
        tom.multicast(m.getTid(), m, tomDest(m));
      }
    }
    batch.clear();
    awaiting = new ArrayList<>();
    for (int q = 0; q < n; q++) {
      if (q == me || !links.exchanging[q]) {
        continue;
      }
      PbRound.Builder m = PbRound.newBuilder().setFrom(me).setRound(round).setLmec(localMec);
      for (Txn t : ready) {
        if (t.getPbPartsList().contains(q)) {
          m.addTxns(t);
        }
      }
      if (!links.sentLast[q]) {
        if (links.link[q] == Link.TO_TOM && !needsPb(q)) {
          m.setLast(true);
          links.sentLast[q] = true;
        }
        send(NodeId.of(0, q), m.build());
      } else {
        Invariants.check(m.getTxnsCount() == 0, "camu: PB transaction for %s after the link's last round message", q);
      }
      if (!links.gotLast[q]) {
        awaiting.add(q);
      }
    }
    executable.addAll(ready);
    tryFinishRound();
  }

  /** Whether a transaction I originated still has to be PB-dispatched to q (a hybrid not yet decided by TOM). */
  private boolean needsPb(int q) {
    for (Txn t : tom.undelivered()) {
      if (t.getOrigin() == me && t.getPbPartsList().contains(q)) {
        return true;
      }
    }
    for (Txn t : decided) {
      if (t.getOrigin() == me && t.getPbPartsList().contains(q)) {
        return true;
      }
    }
    return false;
  }

  private void onPbRound(PbRound m) {
    links.inbox.get(m.getFrom()).add(m);
    if (inRound) {
      tryFinishRound();
    }
  }

  private void tryFinishRound() {
    for (int q : awaiting) {
      if (links.inbox.get(q).isEmpty()) {
        return;
      }
    }
    long mec = localMec;
    long max = localMec;
    List<Integer> consumed = new ArrayList<>();
    for (int q : awaiting) {
      PbRound m = links.inbox.get(q).poll();
      for (Txn t : m.getTxnsList()) {
        Invariants.check(lastExecuted == null || ORDER.compare(t, lastExecuted) > 0 || mutant,
            "camu: %s received %s at ts %s after executing ts %s", me, t.getTid(), t.getTs(), lastExecuted == null ? 0
                : lastExecuted.getTs());
        executable.add(t);
      }
      mec = Math.min(mec, m.getLmec());
      max = Math.max(max, m.getLmec());
      if (m.getLast()) {
        links.gotLast[q] = true;
      }
      consumed.add(q);
    }
    inRound = false;
    execute(mec);
    pbClock = Math.max(pbClock, max + 1); // thesis §6.2.3 and its code: +1 (without it PB-only stalls)
    tom.advanceClock(pbClock); // TOM's next votes exceed every PB timestamp used so far
    for (int q : consumed) {
      if (links.link[q] == Link.TO_PB) {
        links.link[q] = Link.PB; // this round's pbClock already exceeds the peer's LMEC: PB-only to q is safe from now
        if (me < q) {
          metrics().count("camu.switched.toPb"); // counted once per link, at its lower partition
        }
      }
    }
    for (int q = 0; q < n; q++) {
      if (q != me && links.link[q] == Link.TO_TOM && links.sentLast[q] && links.gotLast[q]) {
        links.link[q] = Link.TOM;
        if (me < q) {
          metrics().count("camu.switched.toTom"); // counted once per link, at its lower partition
        }
        links.exchanging[q] = false;
        links.sentLast[q] = false;
        links.gotLast[q] = false;
        Invariants.check(links.inbox.get(q).isEmpty(), "camu: round message from %s after its last", q);
      }
    }
    round++;
    links.switching(round);
    long next = Math.max(nowMicros(), roundStart + roundLength.toNanos() / 1000);
    after(Duration.ofNanos((next - nowMicros()) * 1000), () -> saving(this::startRound));
  }

  // ------------------------------------------------------------------------------------------------ execution

  private void execute(long mec) {
    while (!executable.isEmpty() && (executable.first().getTs() < mec || mutant)) {
      Txn t = executable.pollFirst();
      Invariants.check(mutant || lastExecuted == null || ORDER.compare(t, lastExecuted) > 0,
          "camu: partition %s executes ts %s/%s after ts %s/%s", me, t.getTs(), t.getTid(),
          lastExecuted == null ? 0 : lastExecuted.getTs(), lastExecuted == null ? 0 : lastExecuted.getTid());
      lastExecuted = t;
      run(t);
    }
  }

  private void run(Txn t) {
    long seq = t.getApi() ? ++executedSeq : 0;
    PartResult r = CamuExecution.run(t, me, topology(), store(), seq, nowMicros());
    for (int q : t.getParticipantsList()) {
      if (q != me) {
        links.touched(q);
      }
    }
    if (t.getOrigin() == me) {
      coordinator.onResult(r);
    } else {
      send(NodeId.of(0, t.getOrigin()), r);
    }
  }

  // ------------------------------------------------------------------------------------------------ TOM (Skeen)

  private List<Integer> tomDest(Txn t) {
    List<Integer> d = new ArrayList<>();
    for (int q : t.getParticipantsList()) {
      if (q == t.getOrigin() || !t.getPbPartsList().contains(q)) {
        d.add(q);
      }
    }
    return d;
  }

  /**
   * LMEC = min(TOM's clock + 1, ts of every transaction TOM still holds here, tentative or final but unreleased): an
   * exclusive bound on what this partition may still send or deliver. A future TOM vote here is {@code ++clock}, so
   * at least clock + 1 (the thesis's min(clock, ...) is one lower: with it a PB-only transaction, stamped with the
   * previous round's max LMEC + 1, always waited one round more than in Calvin); a pending transaction may end at
   * exactly its tentative ts, hence the strict gate {@code ts < MEC}.
   */
  private long lmec() {
    long m = tom.floor();
    for (Txn t : decided) {
      m = Math.min(m, t.getTs());
    }
    return m;
  }
}
