package org.kvlab.protocols.nukv;

import com.google.protobuf.ByteString;
import io.microraft.Ordered;
import io.microraft.RaftConfig;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.microraft.exception.CannotReplicateException;
import io.microraft.exception.NotLeaderException;
import io.microraft.executor.RaftNodeExecutor;
import io.microraft.model.RaftModelFactory;
import io.microraft.model.impl.DefaultRaftModelFactory;
import io.microraft.model.message.RaftMessage;
import io.microraft.persistence.RestoredRaftState;
import io.microraft.statemachine.StateMachine;
import io.microraft.transport.Transport;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.kvlab.api.BackPressureException;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.clock.HybridLogicalClock;

/**
 * A NuKV replica (seed 003 Alg 4.2): a member of its partition's Raft group in its datacenter. Every
 * replica serves GETs once its stable vector {@code sv} covers the client's vectors; the group's leader
 * takes PUTs, stamped with its HLC; replica 0 of each group is also the group's forwarder (XC), which ships
 * committed local writes, in log order, to the groups of the same partition in the other datacenters.
 * The Raft group is MicroRaft, fed with this server's timers, clock, randomness, channels and store.
 */
final class NuKVServer extends Server<Stored> {
  /** Replica of each group that forwards its committed local writes to the other datacenters. */
  static final int FORWARDER = 0;
  /** Keys per snapshot chunk (a chunk is one Raft message and one journal record). */
  static final int SNAPSHOT_CHUNK_KEYS = 1_000;

  private final NuKVParams p = new NuKVParams();
  private RaftNode raft;
  private RaftCodec codec;
  private NodeId self;
  private int d;
  /** Stable vector: sv[i] = highest origin log index of DC i's writes committed (applied) here. */
  private long[] sv;
  private HybridLogicalClock hlc;
  /** Without HLC: the last timestamp this leader issued (timestamps of one leader are unique). */
  private long lastIssued;
  private final List<Pending> waiting = new ArrayList<>();
  /** Every user key this replica holds (a snapshot lists their newest versions); rebuilt by a restart's replay. */
  private final TreeSet<String> keys = new TreeSet<>();
  /** The next snapshot installed is this replica's own, restored from its journal (else a leader's). */
  private boolean restoringSnapshot;

  // Leader readiness: a new leader takes PUTs once its own new-term entry is applied, i.e. once it has
  // applied every entry committed before its term (so its HLC covers every committed version).
  private long termMarker;
  private String pendingMarker = "";
  private boolean readyForMarker;

  // Forwarder (replica 0): committed local writes not yet acknowledged by every other datacenter.
  private final TreeMap<Long, Op> outbox = new TreeMap<>();
  private long[] acked;
  private long[] sentUpTo;
  private long[] lastSend;
  private int[] remoteLeader;

  // Receiving side (the leader): highest origin index handed to Raft per origin in the current term.
  private long[] appended;
  private int appendedTerm = -1;

  /** A request waiting until sv covers a vector (GETs; PUTs too without HLC). */
  private record Pending(long[] need, Runnable run, Consumer<String> giveUp) {}

  @Override
  protected void register(Handlers on) {
    on.request(GetReq.class, this::onGet);
    on.request(PutReq.class, this::onPut);
    on.message(Raft.class, this::onRaft);
    on.message(Replicate.class, this::onReplicate);
    on.message(ReplicateAck.class, this::onReplicateAck);
  }

  @Override
  protected void onStart() {
    p.read(params());
    self = self();
    d = dc();
    int dcs = topology().datacenters();
    sv = new long[dcs];
    acked = new long[dcs];
    sentUpTo = new long[dcs];
    lastSend = new long[dcs];
    remoteLeader = new int[dcs];
    appended = new long[dcs];
    hlc = new HybridLogicalClock(clock());
    RaftModelFactory models = new DefaultRaftModelFactory();
    codec = new RaftCodec(models);
    List<RaftEndpoint> members = new ArrayList<>();
    for (NodeId n : topology().replicasOf(d, partition())) {
      members.add(new RaftCodec.Endpoint(n));
    }
    RaftConfig config = RaftConfig.newBuilder()
        .setLeaderElectionTimeoutMillis(p.electionTimeout.toMillis())
        .setLeaderHeartbeatPeriodSecs(1)
        .setLeaderHeartbeatTimeoutSecs(Math.max(2, p.heartbeatTimeout.toSeconds()))
        .setCommitCountToTakeSnapshot(p.snapshotEvery)
        .build();
    JournalRaftStore journal = new JournalRaftStore(store());
    RestoredRaftState restored = journal.restored(models, codec);
    RaftNode.RaftNodeBuilder b = RaftNode.newBuilder().setGroupId(groupId()).setConfig(config)
        .setExecutor(new Executor()).setTransport(new KvlabTransport()).setStateMachine(new Machine())
        .setStore(journal).setModelFactory(models).setRandom(random())
        .setClock(new ContextClock());
    if (restored != null) {
      restoringSnapshot = restored.getSnapshotEntry() != null;
      b.setRestoredState(restored);
    } else {
      b.setLocalEndpoint(new RaftCodec.Endpoint(self)).setInitialGroupMembers(members);
    }
    raft = b.build();
    raft.start();
    after(p.forwardPeriod, this::forwardTick);
  }

  private String groupId() {
    return d + "_" + partition();
  }

  // ---------------------------------------------------------------------------------------------
  // MicroRaft's integration points, all on this node's event loop

  private final class Executor implements RaftNodeExecutor {
    @Override
    public void execute(Runnable task) {
      after(Duration.ZERO, task);
    }

    @Override
    public void submit(Runnable task) {
      after(Duration.ZERO, task);
    }

    @Override
    public void schedule(Runnable task, long delay, TimeUnit unit) {
      after(Duration.ofNanos(unit.toNanos(delay)), task);
    }
  }

  private final class KvlabTransport implements Transport {
    @Override
    public void send(RaftEndpoint target, RaftMessage message) {
      try {
        NuKVServer.this.send(RaftCodec.node(target), codec.encode(message));
      } catch (BackPressureException e) {
        // Raft tolerates lost messages: the leader resends on its next heartbeat or append
      }
    }

    @Override
    public boolean isReachable(RaftEndpoint endpoint) {
      return true;
    }
  }

  private final class ContextClock extends java.time.Clock {
    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public java.time.Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public long millis() {
      return clock().millis();
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(clock().millis());
    }
  }

  private final class Machine implements StateMachine {
    @Override
    public Object runOperation(long commitIndex, Object operation) {
      apply(commitIndex, (Op) operation);
      return commitIndex;
    }

    @Override
    public void takeSnapshot(long commitIndex, Consumer<Object> chunks) {
      snapshot(commitIndex, chunks);
    }

    @Override
    public void installSnapshot(long commitIndex, List<Object> chunks) {
      install(commitIndex, chunks);
    }

    @Override
    public Object getNewTermOperation() {
      pendingMarker = self + "#" + (++termMarker) + "@" + nowMicros();
      readyForMarker = false;
      return Op.newBuilder().setNewTerm(true).setKey(pendingMarker).build();
    }
  }

  private void onRaft(Raft m, NodeId from) {
    if (!m.getGroup().equals(groupId()) || from.dc() != d || from.partition() != partition()
        || !m.getSender().equals(from.toString())) {
      log().warn("{}: dropping a Raft message for group {} from {} (sender {}): not a member of group {}", self,
          m.getGroup(), from, m.getSender(), groupId());
      return;
    }
    RaftMessage decoded;
    try {
      decoded = codec.decode(m);
    } catch (IllegalArgumentException e) {
      log().warn("{}: dropping a malformed Raft message from {}: {}", self, from, e.getMessage());
      return;
    }
    raft.handle(decoded);
  }

  // ---------------------------------------------------------------------------------------------
  // The state machine: commits (Alg 4.2 "on commit")

  private void apply(long commitIndex, Op op) {
    if (op.getNewTerm()) {
      if (op.getKey().equals(pendingMarker)) {
        readyForMarker = true;
      }
      return;
    }
    Version v = op.getVersion();
    int origin = v.getDc();
    Invariants.check(origin >= 0 && origin < sv.length, "write from datacenter %s outside the topology", origin);
    keys.add(op.getKey());
    if (origin == d) {
      Invariants.check(commitIndex > sv[d], "local commit index %s not above sv[%s] = %s", commitIndex, d, sv[d]);
      Version stored = v.toBuilder().setIdx(commitIndex).build();
      store().put(op.getKey(), Stored.newBuilder().setVersion(stored).build());
      sv[d] = commitIndex;
      if (self.replica() == FORWARDER && topology().datacenters() > 1) {
        outbox.put(commitIndex, Op.newBuilder().setKey(op.getKey()).setVersion(stored).build());
      }
    } else if (v.getIdx() > sv[origin]) {
      // Lemma 1: writes of one origin commit here in their origin's log order (the forwarder sends in order,
      // the leader appends in order and skips what it already appended), so sv[origin] only grows.
      store().put(op.getKey(), Stored.newBuilder().setVersion(v).build());
      sv[origin] = v.getIdx();
      // From the origin leader's stamp to this commit (ms, HLC granularity): the forwarding lag sessions wait for.
      metrics().record("nukv.forward.lagMillis", Math.max(0, clock().millis() - HybridLogicalClock.l(v.getT())));
      if (isReadyLeader()) {
        sendAck(origin);
      }
    } // else a duplicate from a forwarder's resend: already committed here
    hlc.update(v.getT());
    recheck();
  }

  /**
   * A snapshot at {@code commitIndex}: sv, then the newest version of every key, {@link #SNAPSHOT_CHUNK_KEYS} keys a
   * chunk. MicroRaft takes it right after applying {@code commitIndex}, so sv is the state at that index; the store
   * may hold versions committed later (a restarted replica re-applying its log), which are committed writes too, and
   * a replica that installs them answers reads of them with their own index (see onGet).
   */
  private void snapshot(long commitIndex, Consumer<Object> chunks) {
    SnapshotPart.Builder part = SnapshotPart.newBuilder();
    for (long x : sv) {
      part.addSv(x);
    }
    boolean emitted = false;
    for (String key : keys) {
      Optional<Stored> newest = store().newest(key);
      if (newest.isPresent()) {
        part.addOps(Op.newBuilder().setKey(key).setVersion(newest.get().getVersion()));
      }
      if (part.getOpsCount() >= SNAPSHOT_CHUNK_KEYS) {
        chunks.accept(part.build());
        emitted = true;
        part = SnapshotPart.newBuilder();
      }
    }
    if (!emitted || part.getOpsCount() > 0) {
      chunks.accept(part.build());
    }
    metrics().count("nukv.snapshot.taken");
  }

  /**
   * Installs a snapshot (a lagging replica receiving the leader's, or a restart restoring its own): its versions go
   * into the store (the same records as a replay would put: idempotent), sv covers its sv. The forwarder queues the
   * snapshot's local writes again: the other datacenters skip what they have and take what they missed.
   */
  private void install(long commitIndex, List<Object> chunks) {
    if (chunks.isEmpty()) {
      return; // MicroRaft's initial (empty) snapshot
    }
    long[] at = null;
    for (Object o : chunks) {
      SnapshotPart part = (SnapshotPart) o;
      if (part.getSvCount() > 0) {
        Invariants.check(part.getSvCount() == sv.length, "snapshot at %s has sv of %s datacenters, the topology %s",
            commitIndex, part.getSvCount(), sv.length);
        at = new long[sv.length];
        for (int i = 0; i < at.length; i++) {
          at[i] = part.getSv(i);
        }
      }
      for (Op op : part.getOpsList()) {
        Version v = op.getVersion();
        Invariants.check(v.getDc() >= 0 && v.getDc() < sv.length, "snapshot write from datacenter %s", v.getDc());
        keys.add(op.getKey());
        store().put(op.getKey(), Stored.newBuilder().setVersion(v).build());
        hlc.update(v.getT());
        if (v.getDc() == d && self.replica() == FORWARDER && topology().datacenters() > 1) {
          outbox.put(v.getIdx(), op);
        }
      }
    }
    Invariants.check(at != null, "snapshot at %s has no sv", commitIndex);
    Invariants.check(at[d] <= commitIndex, "snapshot at %s has sv[%s] = %s beyond it",
        commitIndex, d, at[d]);
    for (int i = 0; i < sv.length; i++) {
      sv[i] = Math.max(sv[i], at[i]);
    }
    metrics().count(restoringSnapshot ? "nukv.snapshot.restored" : "nukv.snapshot.installed");
    restoringSnapshot = false;
    recheck();
  }

  private void recheck() {
    if (waiting.isEmpty()) {
      return;
    }
    List<Pending> ready = new ArrayList<>();
    for (Iterator<Pending> it = waiting.iterator(); it.hasNext(); ) {
      Pending w = it.next();
      if (covered(w.need)) {
        it.remove();
        ready.add(w);
      }
    }
    for (Pending w : ready) {
      w.run.run();
    }
  }

  private boolean covered(long[] need) {
    for (int i = 0; i < sv.length; i++) {
      if (sv[i] < need[i]) {
        return false;
      }
    }
    return true;
  }

  /** Runs {@code run} once sv covers {@code need}; never blocks the event loop. */
  private void whenCovered(String what, long[] need, Runnable run, Consumer<String> giveUp) {
    if (covered(need)) {
      run.run();
      return;
    }
    long since = nowMicros();
    Pending w = new Pending(need, () -> {
      metrics().record("nukv." + what + ".waitMicros", nowMicros() - since); // how long the guarantee held it
      run.run();
    }, giveUp);
    waiting.add(w);
    after(p.waitMax, () -> {
      if (waiting.remove(w)) {
        w.giveUp.accept("not caught up within " + p.waitMax.toMillis() + " ms: has sv=" + Arrays.toString(sv)
            + ", the session needs " + Arrays.toString(w.need) + " (a partition or a slow forwarder)");
      }
    });
  }

  private long[] need(List<Long> a, List<Long> b) {
    long[] need = new long[sv.length];
    for (int i = 0; i < need.length; i++) {
      need[i] = Math.max(i < a.size() ? a.get(i) : 0, i < b.size() ? b.get(i) : 0);
    }
    return need;
  }

  // ---------------------------------------------------------------------------------------------
  // GET (any replica) and PUT (the leader)

  private void onGet(Request<GetReq> req) {
    GetReq q = req.body();
    whenCovered("get", need(q.getHrvList(), q.getHwvList()), () -> {
      Optional<Stored> newest = store().newest(q.getKey());
      GetReply.Builder r = GetReply.newBuilder();
      if (newest.isPresent()) {
        Version v = newest.get().getVersion();
        // Alg 4.2 returns sv[v.dc]: the client's hrm then covers v and all before it. A restarted replica
        // re-applies its log from index 1 while its store already holds what it applied before the restart, so
        // sv[v.dc] may still be below v's own index: the reply takes the larger (a later read elsewhere then
        // waits for v itself, not only for what this replica has re-applied so far).
        long idx = Math.max(sv[v.getDc()], v.getIdx());
        r.setFound(true).setValue(v.getValue()).setDc(v.getDc()).setLogIdx(idx).setT(v.getT());
      }
      req.reply(r.build());
    }, req::fail);
  }

  private boolean isLeader() {
    RaftEndpoint leader = raft.getTerm().getLeaderEndpoint();
    return leader != null && RaftCodec.node(leader).equals(self);
  }

  private boolean isReadyLeader() {
    return isLeader() && readyForMarker;
  }

  private int leaderHint() {
    RaftEndpoint leader = raft.getTerm().getLeaderEndpoint();
    return leader == null ? -1 : RaftCodec.node(leader).replica();
  }

  private void onPut(Request<PutReq> req) {
    if (!isReadyLeader()) {
      notLeader(req);
      return;
    }
    PutReq q = req.body();
    if (p.hlc) {
      // Alg 4.2: updateHLC(dt); the write is wait-free.
      long t = q.getDt() == 0 ? hlc.now() : hlc.updateForPut(q.getDt());
      Invariants.check(t > q.getDt(), "HLC stamped %s, not above the client's dt %s", t, q.getDt());
      propose(req, q.getKey(), q.getValue(), t);
    } else {
      // Without HLC (§4.4.2): wait until this server has what the session depends on, then stamp above
      // every version of the key it has and every timestamp it issued (physical time otherwise).
      whenCovered("put", need(q.getHrvList(), q.getHwvList()), () -> {
        if (!isReadyLeader()) {
          notLeader(req);
          return;
        }
        long t = HybridLogicalClock.of(Math.min(clock().millis(), HybridLogicalClock.L_MAX_MILLIS), 0);
        long newest = store().newest(q.getKey()).map(s -> s.getVersion().getT()).orElse(0L);
        t = Math.max(t, Math.max(newest, lastIssued) + 1);
        lastIssued = t;
        propose(req, q.getKey(), q.getValue(), t);
      }, req::fail);
    }
  }

  private void notLeader(Request<PutReq> req) {
    int hint = leaderHint();
    PutReply r = PutReply.newBuilder().setNotLeader(true).setLeader(hint == self.replica() ? -1 : hint).build();
    if (hint < 0 || hint == self.replica() || req.body().getAttempt() >= topology().replicas()) {
      after(p.retryAfter, () -> req.reply(r)); // no leader yet (election): pace the client's retries
    } else {
      req.reply(r);
    }
  }

  private void propose(Request<PutReq> req, String key, ByteString value, long t) {
    Op op = Op.newBuilder().setKey(key).setVersion(Version.newBuilder().setValue(value).setT(t).setDc(d)).build();
    raft.<Long>replicate(op).whenComplete((Ordered<Long> done, Throwable e) -> {
      if (e == null) {
        req.reply(PutReply.newBuilder().setDc(d).setLogIdx(done.getCommitIndex()).setT(t).build());
        return;
      }
      Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      if (cause instanceof NotLeaderException || cause instanceof CannotReplicateException) {
        req.fail("not appended: " + cause); // MicroRaft refused it before appending it to the log
      } else {
        req.unknown("leader " + self + " lost track of the write: " + cause); // appended, may still commit
      }
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Cross-datacenter forwarding (XC = replica 0 of each group)

  private void forwardTick() {
    after(p.forwardPeriod, this::forwardTick);
    if (outbox.isEmpty()) {
      return;
    }
    long now = nowMicros();
    for (int other = 0; other < sv.length; other++) {
      if (other == d) {
        continue;
      }
      boolean fresh = outbox.lastKey() > sentUpTo[other];
      boolean resend = acked[other] < sentUpTo[other] && now - lastSend[other] >= p.resendAfter.toNanos() / 1000;
      if (!fresh && !resend) {
        continue;
      }
      long from = resend ? acked[other] : sentUpTo[other];
      Replicate.Builder batch = Replicate.newBuilder().setOrigin(d);
      for (Op op : outbox.tailMap(from, false).values()) {
        if (batch.getOpsCount() >= p.batch) {
          break;
        }
        batch.addOps(op);
      }
      if (batch.getOpsCount() == 0) {
        continue;
      }
      try {
        send(NodeId.of(other, partition(), Math.max(0, remoteLeader[other])), batch.build());
        sentUpTo[other] = batch.getOps(batch.getOpsCount() - 1).getVersion().getIdx();
        lastSend[other] = now;
      } catch (BackPressureException e) {
        // the other datacenter is unreachable for long: retry on a later tick
      }
    }
  }

  private void onReplicate(Replicate m, NodeId from) {
    int origin = m.getOrigin();
    if (origin < 0 || origin >= sv.length || origin == d || from.dc() != origin || from.partition() != partition()) {
      log().warn("{}: dropping a Replicate from {} claiming origin {}", self, from, origin);
      return;
    }
    if (isReadyLeader()) {
      int term = raft.getTerm().getTerm();
      if (term != appendedTerm) {
        Arrays.fill(appended, 0);
        appendedTerm = term;
      }
      for (Op op : m.getOpsList()) {
        long idx = op.getVersion().getIdx();
        if (op.getVersion().getDc() != origin || idx <= Math.max(sv[origin], appended[origin])) {
          continue;
        }
        appended[origin] = idx;
        raft.replicate(op).whenComplete((r, e) -> {
          if (e != null) {
            appended[origin] = Math.min(appended[origin], idx - 1); // not appended or lost: take it again
          }
        });
      }
    }
    sendAckTo(from, origin);
  }

  private void sendAck(int origin) {
    sendAckTo(NodeId.of(origin, partition(), FORWARDER), origin);
  }

  private void sendAckTo(NodeId to, int origin) {
    try {
      send(to, ReplicateAck.newBuilder().setOrigin(origin).setCommitted(sv[origin]).setLeader(leaderHint()).build());
    } catch (BackPressureException e) {
      // the forwarder resends and asks again
    }
  }

  private void onReplicateAck(ReplicateAck m, NodeId from) {
    int other = from.dc();
    if (m.getOrigin() != d || other == d || from.partition() != partition() || self.replica() != FORWARDER) {
      return;
    }
    acked[other] = Math.max(acked[other], m.getCommitted());
    if (m.getLeader() >= 0 && m.getLeader() < topology().replicas()) {
      remoteLeader[other] = m.getLeader();
    } else if (from.replica() == Math.max(0, remoteLeader[other])) {
      remoteLeader[other] = (from.replica() + 1) % topology().replicas(); // no leader known there: try the next
    }
    if (sentUpTo[other] < acked[other] || m.getLeader() != from.replica()) {
      sentUpTo[other] = acked[other]; // sent to a replica that is not the leader: send again to the hint
    }
    long min = Long.MAX_VALUE;
    for (int i = 0; i < acked.length; i++) {
      if (i != d) {
        min = Math.min(min, acked[i]);
      }
    }
    outbox.headMap(min, true).clear();
  }
}
