package org.kvlab.protocols.nukv;

import com.google.protobuf.ByteString;
import io.microraft.Ordered;
import io.microraft.RaftConfig;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.microraft.report.RaftNodeReport;
import io.microraft.exception.CannotReplicateException;
import io.microraft.exception.NotLeaderException;
import io.microraft.executor.RaftNodeExecutor;
import io.microraft.model.RaftModelFactory;
import io.microraft.model.impl.DefaultRaftModelFactory;
import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.InstallSnapshotRequest;
import io.microraft.model.message.PreVoteRequest;
import io.microraft.model.message.RaftMessage;
import io.microraft.model.message.VoteRequest;
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
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
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
  /** Keys per snapshot chunk (a chunk is one Raft message and one journal record): snapshotChunkKeys' default. */
  static final int SNAPSHOT_CHUNK_KEYS = 1_000;
  /** Bytes of a snapshot's chunk records written to the journal in one event-loop turn: snapshotWriteBytes' default. */
  static final int SNAPSHOT_WRITE_BYTES = 256 << 10;
  /** Between two turns that write a snapshot's held chunks (see writeSnapshot). */
  private static final Duration SNAPSHOT_WRITE_PERIOD = Duration.ofMillis(1);
  /** MicroRaft's leader heartbeat period (its followers check the leader's heartbeats this often, too). */
  private static final int HEARTBEAT_PERIOD_SECS = 1;
  /** MicroRaft 0.7 adds up to this much at random to each election timeout (LEADER_ELECTION_TIMEOUT_NOISE_MILLIS). */
  private static final long ELECTION_NOISE_MICROS = 100_000;

  private final NuKVParams p = new NuKVParams();
  private RaftNode raft;
  /** The last report of the RaftNode (for {@link #role}); set on the event loop, where MicroRaft runs. */
  private RaftNodeReport lastReport;
  private RaftConfig config;
  private RaftModelFactory models;
  private RaftCodec codec;
  /** MicroRaft's persistent state; outlives a RaftNode the stall watchdog rebuilds (see checkStall). */
  private JournalRaftStore journal;
  /**
   * The highest log index applied to the state machine by any RaftNode of this server (or the index of the snapshot
   * installed last). A RaftNode rebuilt from the journal applies its log again from its snapshot: entries at or below
   * this are in this replica's state already and are not applied twice.
   */
  private long applied;
  /** RaftNodes rebuilt by the stall watchdog since this server started. */
  private int rebuilds;
  /**
   * The last time (micros) the RaftNode showed life: it heard a leader of its term (an AppendEntries or
   * InstallSnapshot request), it sent a pre-vote or vote request, it was the leader, or it was built.
   */
  private long raftAlive;
  private NodeId self;
  private int d;
  /** Stable vector: sv[i] = highest origin log index of DC i's writes committed (applied) here. */
  private long[] sv;
  private HybridLogicalClock hlc;
  /** Without HLC: the last timestamp this leader issued (timestamps of one leader are unique). */
  private long lastIssued;
  private final List<Pending> waiting = new ArrayList<>();
  /**
   * Every user key this replica holds (a snapshot lists their newest versions, encoding only the keys changed since
   * the last snapshot and copying the others' encodings from it); every put of a user key into the store is passed to
   * it with the version put. Rebuilt by a restart's replay.
   */
  private SnapshotSource keys;
  /**
   * Per key, the newest write of it made in this datacenter, as {origin log index, HLC time}, over what is applied
   * (rebuilt on restart by the snapshot and the replay). A snapshot carries it beside each key's newest version, so
   * that a forwarder's catch-up covers a key whose newest version came from a third datacenter (see applyCatchUp).
   * Every change of an entry comes with {@code keys.put(key, version)}, so the snapshot encodes that key again.
   */
  private final HashMap<String, long[]> lastLocal = new HashMap<>();
  /** The next snapshot installed is this replica's own, restored from its journal (else a leader's). */
  private boolean restoringSnapshot;
  /** A timer is set to write the journal's held snapshot chunks (see writeSnapshot). */
  private boolean writingSnapshot;

  // Leader readiness: a new leader takes PUTs once its own new-term entry is applied, i.e. once it has
  // applied every entry committed before its term (so its HLC covers every committed version).
  private long termMarker;
  private String pendingMarker = "";
  private boolean readyForMarker;

  // Forwarder (replica 0): committed local writes not yet acknowledged by every other datacenter, by origin log
  // index, each with prev (the index of the local write before it): a chain the receivers take in order.
  private final TreeMap<Long, Op> outbox = new TreeMap<>();
  // After installing a snapshot: the snapshot's local versions (they replace the log entries up to catchUpTo, the
  // snapshot's sv[d], which the outbox no longer has), shipped as one CatchUp to each datacenter still below it.
  private final TreeMap<Long, Op> catchUp = new TreeMap<>();
  private long catchUpTo;
  /** Whether each other datacenter answered since this start (a catch-up starts from what it says it has). */
  private boolean[] heard;
  private long[] acked;
  private long[] sentUpTo;
  private long[] lastSend;
  private int[] remoteLeader;
  /** Since when (micros) the forwarder has sent each other datacenter something it has had no answer to (-1: none). */
  private long[] unansweredSince;
  /** Per other datacenter: the replica given up on as its leader (-1: none), whose name in hints is ignored until
   * suspectUntil (micros) unless it answers itself (other replicas name a crashed leader until they elect another). */
  private int[] suspect;
  private long[] suspectUntil;

  // Receiving side (the leader): the origin index of the last write of each origin handed to Raft in the current term
  // (the end of the chain appended so far; lowered again when MicroRaft refuses an entry).
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
    unansweredSince = new long[dcs];
    Arrays.fill(unansweredSince, -1);
    suspect = new int[dcs];
    Arrays.fill(suspect, -1);
    suspectUntil = new long[dcs];
    appended = new long[dcs];
    heard = new boolean[dcs];
    hlc = new HybridLogicalClock(clock());
    models = new DefaultRaftModelFactory();
    codec = new RaftCodec(models);
    config = RaftConfig.newBuilder()
        .setLeaderElectionTimeoutMillis(p.electionTimeout.toMillis())
        .setLeaderHeartbeatPeriodSecs(HEARTBEAT_PERIOD_SECS)
        .setLeaderHeartbeatTimeoutSecs(heartbeatTimeoutSecs())
        .setCommitCountToTakeSnapshot(p.snapshotEvery)
        .build();
    keys = new SnapshotSource(store());
    journal = new JournalRaftStore(store());
    // A snapshot whose chunks a crash cut: the journal means the snapshot before it and the whole log since.
    for (int i = journal.dropPartial(); i > 0; i--) {
      metrics().count("nukv.snapshot.partialDropped");
    }
    RestoredRaftState restored = journal.restored(models, codec);
    if (restored != null) {
      restoringSnapshot = restored.getSnapshotEntry() != null;
    }
    startRaft(restored);
    after(p.forwardPeriod, this::forwardTick);
    if (topology().replicas() > 1) {
      after(p.electionTimeout, this::checkStall);
    }
  }

  private int heartbeatTimeoutSecs() {
    return (int) Math.max(2, p.heartbeatTimeout.toSeconds());
  }

  /** Builds and starts this replica's RaftNode: from the journal's state if it has one, else as a new member. */
  private void startRaft(RestoredRaftState restored) {
    RaftNode.RaftNodeBuilder b = RaftNode.newBuilder().setGroupId(groupId()).setConfig(config)
        .setExecutor(new Executor()).setTransport(new KvlabTransport()).setStateMachine(new Machine())
        .setStore(journal).setModelFactory(models).setRandom(random())
        .setClock(new ContextClock()).setRaftNodeReportListener(r -> lastReport = r);
    if (restored != null) {
      b.setRestoredState(restored);
    } else {
      List<RaftEndpoint> members = new ArrayList<>();
      for (NodeId n : topology().replicasOf(d, partition())) {
        members.add(new RaftCodec.Endpoint(n));
      }
      b.setLocalEndpoint(new RaftCodec.Endpoint(self)).setInitialGroupMembers(members);
    }
    raft = b.build();
    raftAlive = nowMicros();
    raft.start();
  }

  // ---------------------------------------------------------------------------------------------
  // The stall watchdog (MicroRaft 0.7)

  /**
   * How long a RaftNode may show no life (see {@link #raftAlive}) before the watchdog rebuilds it. In MicroRaft 0.7 a
   * follower whose leader went silent starts a pre-vote within heartbeatTimeout + one heartbeat period (its leader
   * check runs once a period), and while it knows no leader it starts another one every election timeout plus up to
   * 100 ms at random; a candidate sends vote requests as often. Two such rounds more are the margin.
   */
  private long stallAfterMicros() {
    return (heartbeatTimeoutSecs() + HEARTBEAT_PERIOD_SECS) * 1_000_000L
        + 2 * (p.electionTimeout.toNanos() / 1000 + ELECTION_NOISE_MICROS);
  }

  /**
   * MicroRaft 0.7's follower check (HeartbeatTask) starts a pre-vote on a leader timeout only while the node holds no
   * pre-candidate state, and only a term change (or becoming candidate or leader) clears one. A replica that restarts,
   * finds no leader and starts a pre-vote, and then hears from the leader of the same term, keeps it for the rest of
   * that term. If both followers of a 3-replica group are in that state when the leader crashes, neither ever starts
   * an election: the group has no leader until the old one returns (docs/protocols.md, NuKV). A replica that has shown
   * no life for {@link #stallAfterMicros()} (no leader heard, no pre-vote or vote sent, not the leader) is in that
   * state: it rebuilds its RaftNode from the journal, as a restart would, and the new node, holding no pre-candidate
   * state, starts a pre-vote at once. The journal is MicroRaft's persistent state (term, vote, log, snapshot), so the
   * rebuilt node keeps what it acknowledged and its vote; this replica's own state (store, sv, forwarder) stays, and
   * the entries the new node applies again are skipped (see {@link #applied}).
   */
  private void checkStall() {
    after(p.electionTimeout, this::checkStall);
    long now = nowMicros();
    if (isLeader()) {
      raftAlive = now;
      return;
    }
    long quiet = now - raftAlive;
    if (quiet < stallAfterMicros()) {
      return;
    }
    rebuilds++;
    metrics().count("nukv.raft.rebuilt");
    log().warn("{}: its Raft node heard no leader and started no election for {} ms (term {}, leader named {}):"
        + " rebuilding it from its journal", self, quiet / 1000, raft.getTerm().getTerm(),
        raft.getTerm().getLeaderEndpoint());
    int term = raft.getTerm().getTerm();
    RaftEndpoint voted = raft.getTerm().getVotedEndpoint();
    raft.terminate(); // this node only (not the group): its tasks stop, and messages go to the new node from now on
    RestoredRaftState restored = journal.restored(models, codec);
    Invariants.check(restored != null, "%s: a Raft node ran, but its journal holds no endpoint and members", self);
    // The journal holds the node's term, its vote and every entry this replica applied.
    Invariants.check(restored.getTermPersistentState().getTerm() == term
        && Objects.equals(restored.getTermPersistentState().getVotedFor(), voted),
        "%s: the journal restores term %s voted for %s, the node was at term %s voted for %s", self,
        restored.getTermPersistentState().getTerm(), restored.getTermPersistentState().getVotedFor(), term, voted);
    long last = restored.getLogEntries().isEmpty()
        ? (restored.getSnapshotEntry() == null ? 0 : restored.getSnapshotEntry().getIndex())
        : restored.getLogEntries().get(restored.getLogEntries().size() - 1).getIndex();
    Invariants.check(last >= applied, "%s: the journal ends at entry %s, this replica applied up to %s", self, last,
        applied);
    startRaft(restored);
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
      if (message instanceof PreVoteRequest || message instanceof VoteRequest) {
        raftAlive = nowMicros(); // an election under way (sent or not: a peer may be down)
      }
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
      if (commitIndex <= applied) {
        // A rebuilt RaftNode applying its journal's log again (see checkStall): this replica has applied it already.
        Invariants.check(rebuilds > 0, "%s: MicroRaft applies entry %s again, at or below %s, without a rebuild",
            self, commitIndex, applied);
        return commitIndex;
      }
      apply(commitIndex, (Op) operation);
      applied = commitIndex;
      return commitIndex;
    }

    @Override
    public void takeSnapshot(long commitIndex, Consumer<Object> chunks) {
      // MicroRaft takes a snapshot right after applying commitIndex; the state must be that index's, not a later one. A
      // rebuilt node could only ask below `applied` if the node before it had passed a snapshot point without one.
      Invariants.check(commitIndex >= applied, "%s: snapshot asked at %s, the state is at %s", self, commitIndex,
          applied);
      journal.taking(commitIndex); // MicroRaft persists the chunks next: the journal holds them, see writeSnapshot
      snapshot(commitIndex, chunks);
      if (!writingSnapshot) {
        writingSnapshot = true;
        after(SNAPSHOT_WRITE_PERIOD, NuKVServer.this::writeSnapshot);
      }
    }

    @Override
    public void installSnapshot(long commitIndex, List<Object> chunks) {
      if (commitIndex <= applied && !chunks.isEmpty()) {
        // A rebuilt RaftNode restoring the journal's snapshot, which this replica took or installed itself.
        Invariants.check(rebuilds > 0, "%s: MicroRaft installs a snapshot at %s, at or below %s, without a rebuild",
            self, commitIndex, applied);
        return;
      }
      install(commitIndex, chunks);
      applied = Math.max(applied, commitIndex);
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
    if ((decoded instanceof AppendEntriesRequest || decoded instanceof InstallSnapshotRequest)
        && decoded.getTerm() >= raft.getTerm().getTerm()) {
      raftAlive = nowMicros(); // a leader of this node's term (or a newer one) is heard
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
    if (op.hasCatchUp()) {
      applyCatchUp(op.getCatchUp());
      return;
    }
    Version v = op.getVersion();
    int origin = v.getDc();
    Invariants.check(origin >= 0 && origin < sv.length, "write from datacenter %s outside the topology", origin);
    if (origin == d) {
      Invariants.check(commitIndex > sv[d], "local commit index %s not above sv[%s] = %s", commitIndex, d, sv[d]);
      Version stored = v.toBuilder().setIdx(commitIndex).build();
      store().put(op.getKey(), Stored.newBuilder().setVersion(stored).build());
      keys.put(op.getKey(), stored);
      lastLocal.put(op.getKey(), new long[] {commitIndex, v.getT()});
      long prev = sv[d]; // sv[d] is the index of the last local write (or 0): this write's predecessor
      sv[d] = commitIndex;
      if (self.replica() == FORWARDER && topology().datacenters() > 1) {
        outbox.put(commitIndex, Op.newBuilder().setKey(op.getKey()).setVersion(stored).setPrev(prev).build());
      }
      hlc.update(v.getT());
    } else {
      // Lemma 1, enforced: sv[origin] is the index of the last write of origin applied here, and every write of
      // origin up to it is applied (the writes form a chain by prev). A forwarded write is applied only right after
      // its predecessor. The leader appends only writes that follow on from what it has (onReplicate), so the log
      // can hold two other cases: a write at or below sv[origin] (a duplicate; harmless) and a write whose
      // predecessor is missing because MicroRaft refused the predecessor's entry (too many uncommitted entries,
      // leadership lost) after the leader had handed both to it. Such a write is skipped, not applied: applying it
      // would raise sv[origin] over the missing write and a session would read without it (issue 15's lost write).
      // The forwarder resends both (the leader asks it to) and they are appended again in order.
      long have = sv[origin];
      if (v.getIdx() <= have) {
        metrics().count("nukv.forward.duplicate");
      } else if (op.getPrev() != have) {
        // prev < have < idx would mean a write of origin between a write and its predecessor: the chain is broken.
        Invariants.check(op.getPrev() > have, "forwarded write %s of datacenter %s follows %s, but %s, between them,"
            + " is applied already", v.getIdx(), origin, op.getPrev(), have);
        metrics().count("nukv.forward.gapSkipped");
      } else {
        store().put(op.getKey(), Stored.newBuilder().setVersion(v).build());
        keys.put(op.getKey(), v);
        sv[origin] = v.getIdx();
        // From the origin leader's stamp to this commit (ms, HLC granularity): the forwarding lag sessions wait for.
        metrics().record("nukv.forward.lagMillis", Math.max(0, clock().millis() - HybridLogicalClock.l(v.getT())));
        hlc.update(v.getT());
        if (isReadyLeader()) {
          sendAck(origin);
        }
      }
    }
    recheck();
  }

  /**
   * A forwarded snapshot segment: for every key the origin wrote after {@code base} up to {@code upTo}, the origin
   * snapshot's newest version of the key, whatever datacenter it came from, and the origin's newest write of it
   * (local_idx, local_t). Applied as one step, and only if this replica holds every write of the origin up to base
   * (else skipped, like a write whose predecessor is missing); then sv[origin] = upTo, and the stable vector's promise
   * holds and is checked per key: this replica holds a version at least as new as every write of the origin up to
   * upTo (the origin's writes of one key have increasing timestamps, so its newest one up to upTo is the bar).
   *
   * <p>With three or more datacenters the snapshot's newest version of a key the origin wrote may be a third
   * datacenter's (its write superseded the origin's before the snapshot), and this replica may not have it yet (that
   * datacenter's forwarder lags). Shipping only the origin's versions (the earlier design) raised sv[origin] past
   * the origin's write without this replica holding it or anything newer: a session that wrote or read that write
   * read an older version here. The third datacenter's version is stored as it is (a committed version, the newest
   * by (t, dc) wins, idempotent) without touching sv of its datacenter: its own forwarder's chain raises that.
   */
  private void applyCatchUp(CatchUp cu) {
    int origin = cu.getOrigin();
    Invariants.check(origin >= 0 && origin < sv.length && origin != d, "catch-up from datacenter %s", origin);
    long have = sv[origin];
    if (cu.getUpTo() <= have) {
      metrics().count("nukv.forward.duplicate");
    } else if (cu.getBase() > have) {
      metrics().count("nukv.forward.gapSkipped");
    } else {
      for (Op o : cu.getOpsList()) {
        Version v = o.getVersion();
        String key = o.getKey();
        Invariants.check(v.getDc() >= 0 && v.getDc() < sv.length, "catch-up of datacenter %s holds a version of"
            + " key %s from datacenter %s, outside the topology", origin, key, v.getDc());
        long[] local = localWrite(o, origin);
        // (An entry without local_idx, from a journal written before it existed, is the origin's own version, which
        // could be newer than upTo: only its lower bound is checked.)
        Invariants.check(local != null && local[0] > cu.getBase() && (o.getLocalIdx() == 0
            || local[0] <= cu.getUpTo()), "catch-up of datacenter %s (%s..%s] ships key %s for its write at %s,"
            + " outside it", origin, cu.getBase(), cu.getUpTo(), key, local == null ? "none" : local[0]);
        Invariants.check(compare(v.getT(), v.getDc(), local[1], origin) >= 0, "catch-up of datacenter %s ships"
            + " key %s at (%s, %s), older than its own write (%s, %s)", origin, key, v.getT(), v.getDc(), local[1],
            origin);
        Optional<Stored> mine = store().newest(key);
        if (mine.isEmpty() || compare(mine.get().getVersion(), v) < 0) {
          store().put(key, Stored.newBuilder().setVersion(v).build());
          keys.put(key, v);
          hlc.update(v.getT());
          if (v.getDc() != origin) {
            metrics().count("nukv.forward.catchUpThirdOrigin");
          }
        }
        Version held = store().newest(key).orElseThrow().getVersion();
        Invariants.check(compare(held.getT(), held.getDc(), local[1], origin) >= 0, "after a catch-up of datacenter"
            + " %s up to %s, key %s is at (%s, %s), older than that datacenter's write (%s, %s) it covers", origin,
            cu.getUpTo(), key, held.getT(), held.getDc(), local[1], origin);
      }
      sv[origin] = cu.getUpTo();
      metrics().count("nukv.forward.catchUpApplied");
      if (isReadyLeader()) {
        sendAck(origin);
      }
    }
    recheck();
  }

  /**
   * The newest write of {@code op}'s key made in datacenter {@code dc} that a snapshot or catch-up entry names, as
   * {origin log index, HLC time}; an entry without one (local_idx 0) names its own version if that is dc's; else null.
   */
  private static long[] localWrite(Op op, int dc) {
    if (op.getLocalIdx() > 0) {
      return new long[] {op.getLocalIdx(), op.getLocalT()};
    }
    Version v = op.getVersion();
    return v.getDc() == dc && v.getIdx() > 0 ? new long[] {v.getIdx(), v.getT()} : null;
  }

  /** The store's version order: (HLC timestamp, datacenter). */
  private static int compare(long t1, int dc1, long t2, int dc2) {
    return t1 != t2 ? Long.compare(t1, t2) : Integer.compare(dc1, dc2);
  }

  private static int compare(Version a, Version b) {
    return compare(a.getT(), a.getDc(), b.getT(), b.getDc());
  }

  /**
   * A snapshot at {@code commitIndex}: sv, then the newest version of every key, {@link #SNAPSHOT_CHUNK_KEYS} keys a
   * chunk, each handed over as its encoding (see {@link SnapshotSource}: only keys changed since the last snapshot are
   * encoded, with the newest version the apply path put; the others are copied from the last snapshot). MicroRaft
   * takes it right after applying {@code commitIndex}, so sv is the state at that index; the store may hold versions
   * committed later (a restarted replica re-applying its log), which are committed writes too, and a replica that
   * installs them answers reads of them with their own index (see onGet).
   */
  private void snapshot(long commitIndex, Consumer<Object> chunks) {
    keys.take(sv, p.snapshotChunkKeys, lastLocal::get, chunks);
    metrics().count("nukv.snapshot.taken");
    metrics().record("nukv.snapshot.keys", keys.size());
    metrics().record("nukv.snapshot.keysRead", keys.lastReads()); // store reads on the event loop
    metrics().record("nukv.snapshot.keysEncoded", keys.lastEncoded()); // the others are copied as bytes
  }

  /**
   * Writes the held chunks of the snapshot this replica took to its journal, {@code snapshotWriteBytes} of them a
   * turn, a turn every {@link #SNAPSHOT_WRITE_PERIOD}, the last one with the journal's compaction (see {@link
   * JournalRaftStore}: until then the journal keeps the previous snapshot and every entry since, so a crash loses
   * nothing). MicroRaft persists the chunks in the snapshot's turn, where the journal only holds them: the turn is not
   * held by the write of the whole snapshot (about 94 MB at a million keys with 64-byte values).
   */
  private void writeSnapshot() {
    int left = journal.writeHeld(p.snapshotWriteBytes);
    metrics().count("nukv.snapshot.writeTurns");
    if (left > 0) {
      after(SNAPSHOT_WRITE_PERIOD, this::writeSnapshot);
    } else {
      writingSnapshot = false;
    }
  }

  /**
   * Installs a snapshot (a lagging replica receiving the leader's, or a restart restoring its own): its versions go
   * into the store (the same records as a replay would put: idempotent), sv covers its sv. The forwarder ships the
   * snapshot's local writes to each other datacenter still below the snapshot's sv[d] as one catch-up (see
   * applyCatchUp): it no longer has the log entries they came from.
   */
  private void install(long commitIndex, List<Object> chunks) {
    if (chunks.isEmpty()) {
      return; // MicroRaft's initial (empty) snapshot
    }
    long[] at = null;
    List<Op> written = new ArrayList<>(); // keys written in this datacenter, each with its newest version and write
    for (Object o : chunks) {
      SnapshotPart part = EncodedPart.part(o);
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
        store().put(op.getKey(), Stored.newBuilder().setVersion(v).build());
        keys.put(op.getKey(), v);
        hlc.update(v.getT());
        long[] w = localWrite(op, d);
        if (w != null) {
          Invariants.check(compare(v.getT(), v.getDc(), w[1], d) >= 0, "snapshot at %s has key %s at (%s, %s),"
              + " older than its write (%s, %s) in this datacenter", commitIndex, op.getKey(), v.getT(), v.getDc(),
              w[1], d);
          lastLocal.merge(op.getKey(), w, (a, b) -> a[0] >= b[0] ? a : b);
          written.add(op.toBuilder().setLocalIdx(w[0]).setLocalT(w[1]).build());
        }
      }
    }
    Invariants.check(at != null, "snapshot at %s has no sv", commitIndex);
    Invariants.check(at[d] <= commitIndex, "snapshot at %s has sv[%s] = %s beyond it",
        commitIndex, d, at[d]);
    for (int i = 0; i < sv.length; i++) {
      sv[i] = Math.max(sv[i], at[i]);
    }
    if (self.replica() == FORWARDER && topology().datacenters() > 1 && at[d] > 0) {
      // The log entries up to the snapshot are gone, and with them the chain of local writes up to at[d]: what the
      // other datacenters may still lack of it is shipped as one CatchUp: each key written here up to at[d], by its
      // last such write's index, with the snapshot's newest version of the key, whatever its origin (with three or
      // more datacenters a third one's write may have superseded ours; see applyCatchUp). The newest version may be
      // newer than at[d] (stored by a replica re-applying its log): newer, committed, harmless to ship. A key whose
      // only local writes came after at[d] (such a store again) is not in it: the log after the snapshot has them.
      // The log entries after the snapshot continue the chain from at[d] (sv[d] is their first one's prev).
      catchUp.clear();
      for (Op op : written) {
        if (op.getLocalIdx() <= at[d]) {
          Op before = catchUp.put(op.getLocalIdx(), op);
          Invariants.check(before == null, "snapshot at %s names write %s of this datacenter for keys %s and %s",
              commitIndex, op.getLocalIdx(), op.getKey(), before == null ? "" : before.getKey());
        }
      }
      catchUpTo = at[d];
      outbox.headMap(at[d], true).clear();
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

  /** "leader t=3", "follower t=3", "candidate t=4" or "learner t=3": the role of the last report of this replica's
   * RaftNode (MicroRaft reports every role change at once) and the current term; null before the first report. */
  @Override
  public String role() {
    RaftNodeReport report = lastReport;
    return raft == null || report == null ? null
        : report.getRole().name().toLowerCase(java.util.Locale.ROOT) + " t=" + raft.getTerm().getTerm();
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
    if (outbox.isEmpty() && catchUp.isEmpty()) {
      return;
    }
    long now = nowMicros();
    long top = Math.max(outbox.isEmpty() ? 0 : outbox.lastKey(), catchUp.isEmpty() ? 0 : catchUpTo);
    for (int other = 0; other < sv.length; other++) {
      if (other == d) {
        continue;
      }
      if (unansweredSince[other] >= 0 && now - unansweredSince[other] >= p.retargetAfter.toNanos() / 1000) {
        retarget(other, now);
      }
      boolean fresh = top > sentUpTo[other];
      boolean resend = acked[other] < sentUpTo[other] && now - lastSend[other] >= p.resendAfter.toNanos() / 1000;
      if (!fresh && !resend) {
        continue;
      }
      long from = resend ? acked[other] : sentUpTo[other];
      long upTo = from;
      NodeId to = NodeId.of(other, partition(), Math.max(0, remoteLeader[other]));
      Replicate.Builder batch = Replicate.newBuilder().setOrigin(d);
      if (!catchUp.isEmpty() && from < catchUpTo && acked[other] < catchUpTo) {
        if (!heard[other]) {
          // A probe (no ops): learn what the other datacenter has, so the catch-up starts there.
          if (now - lastSend[other] >= p.resendAfter.toNanos() / 1000) {
            trySend(to, batch.build(), other, now);
          }
          continue;
        }
        batch.setCatchUp(CatchUp.newBuilder().setOrigin(d).setBase(acked[other]).setUpTo(catchUpTo)
            .addAllOps(catchUp.tailMap(acked[other], false).values()));
        from = catchUpTo;
        upTo = catchUpTo;
      }
      for (Op op : outbox.tailMap(from, false).values()) {
        if (batch.getOpsCount() >= p.batch) {
          break;
        }
        batch.addOps(op);
        upTo = op.getVersion().getIdx();
      }
      if (!batch.hasCatchUp() && batch.getOpsCount() == 0) {
        continue;
      }
      if (trySend(to, batch.build(), other, now)) {
        sentUpTo[other] = upTo;
      }
    }
  }

  /**
   * The replica of {@code other}'s group this forwarder sends to has not answered for {@code retargetAfter} (down,
   * or cut off): send to the next replica from now on, and resend from what {@code other} acknowledged. A follower
   * refuses (rewind) and names its leader; hints naming the replica given up on are ignored for heartbeatTimeout +
   * electionTimeout (the group's followers name a crashed leader until they have elected another), unless that replica
   * answers itself. So forwarding resumes once the group has a leader again, not once the old one restarts.
   */
  private void retarget(int other, long now) {
    unansweredSince[other] = -1;
    int replicas = topology().replicas();
    if (replicas < 2) {
      return; // nobody else to ask: the forwarder keeps resending to the only replica
    }
    int left = Math.max(0, remoteLeader[other]);
    suspect[other] = left;
    suspectUntil[other] = now + (p.heartbeatTimeout.toNanos() + p.electionTimeout.toNanos()) / 1000;
    remoteLeader[other] = next(other, left, now);
    sentUpTo[other] = acked[other]; // what the new target may lack: everything not acknowledged
    lastSend[other] = 0; // send (or probe) at once
    metrics().count("nukv.forward.retarget");
    log().debug("{}: no answer from {} for {} ms, forwarding to datacenter {} through replica {}", self,
        NodeId.of(other, partition(), left), p.retargetAfter.toMillis(), other, remoteLeader[other]);
  }

  /** The replica of {@code other}'s group after {@code replica}, skipping the one given up on while it is suspected. */
  private int next(int other, int replica, long now) {
    int n = topology().replicas();
    int next = (replica + 1) % n;
    if (next == suspect[other] && now < suspectUntil[other] && n > 2) {
      next = (next + 1) % n;
    }
    return next;
  }

  private boolean trySend(NodeId to, Replicate batch, int other, long now) {
    if (unansweredSince[other] < 0) {
      unansweredSince[other] = now; // a send that fails (unreachable) counts as unanswered too
    }
    try {
      send(to, batch);
      lastSend[other] = now;
      return true;
    } catch (BackPressureException e) {
      return false; // the other datacenter is unreachable for long: retry on a later tick
    }
  }

  /**
   * A forwarder's batch (Alg 4.2's XC to another datacenter). Only the group's ready leader appends, and only writes
   * that follow on from what it has: a write whose prev is the last write of its origin this replica applied or
   * appended. Anything else stops the batch and the answer asks the forwarder to resend from what this replica has
   * committed. (Before the chain check, a leader that was not yet ready dropped a batch while naming itself leader,
   * the forwarder went on with the next batch, the leader appended that one, and the dropped writes were never
   * applied although sv[origin] went past them: issue 15's acknowledged write missing in the other datacenter.)
   */
  private void onReplicate(Replicate m, NodeId from) {
    int origin = m.getOrigin();
    if (origin < 0 || origin >= sv.length || origin == d || from.dc() != origin || from.partition() != partition()) {
      log().warn("{}: dropping a Replicate from {} claiming origin {}", self, from, origin);
      return;
    }
    boolean took = false;
    if (isReadyLeader()) {
      int term = raft.getTerm().getTerm();
      if (term != appendedTerm) {
        // Everything committed before this term is applied (the leader is ready), nothing of this term appended yet.
        Arrays.fill(appended, 0);
        appendedTerm = term;
      }
      long expected = Math.max(sv[origin], appended[origin]); // the last write of origin this leader has
      took = true;
      if (m.hasCatchUp()) {
        CatchUp cu = m.getCatchUp();
        if (cu.getOrigin() != origin) {
          log().warn("{}: dropping a Replicate from {} whose catch-up claims origin {}", self, from, cu.getOrigin());
          return;
        }
        if (cu.getUpTo() > expected) {
          if (cu.getBase() <= expected) {
            append(origin, Op.newBuilder().setCatchUp(cu).build(), expected, cu.getUpTo());
            expected = cu.getUpTo();
          } else {
            took = false;
          }
        }
      }
      for (Op op : m.getOpsList()) {
        if (!took) {
          break;
        }
        long idx = op.getVersion().getIdx();
        if (op.getVersion().getDc() != origin || op.hasCatchUp()) {
          log().warn("{}: dropping the rest of a Replicate from {} (origin {}): a write of datacenter {}", self, from,
              origin, op.getVersion().getDc());
          took = false;
        } else if (idx <= expected) {
          continue; // a resend of a write this replica has (or has appended)
        } else if (op.getPrev() != expected) {
          took = false; // its predecessor is not here: a batch went missing or was dropped before this one
        } else {
          append(origin, op, expected, idx);
          expected = idx;
        }
      }
    }
    if (!took) {
      metrics().count("nukv.forward.rewind");
    }
    sendAckTo(from, origin, !took);
  }

  /**
   * Hands a forwarded entry to Raft: the origin's chain is then appended up to {@code upTo}. If MicroRaft refuses it
   * (it did not append it), the chain appended ends at {@code before} again, so the forwarder's resend is taken;
   * entries handed over after it that MicroRaft did append are skipped when applied (their predecessor is missing).
   */
  private void append(int origin, Op op, long before, long upTo) {
    appended[origin] = upTo;
    int term = appendedTerm;
    raft.replicate(op).whenComplete((r, e) -> {
      // MicroRaft completes its futures on its executor, i.e. on this node's event loop (see Executor).
      if (e != null && term == appendedTerm) {
        appended[origin] = Math.min(appended[origin], before);
        metrics().count("nukv.forward.refused");
      }
    });
  }

  private void sendAck(int origin) {
    sendAckTo(NodeId.of(origin, partition(), FORWARDER), origin, false);
  }

  private void sendAckTo(NodeId to, int origin, boolean rewind) {
    try {
      send(to, ReplicateAck.newBuilder().setOrigin(origin).setCommitted(sv[origin]).setLeader(leaderHint())
          .setRewind(rewind).build());
    } catch (BackPressureException e) {
      // the forwarder resends and asks again
    }
  }

  private void onReplicateAck(ReplicateAck m, NodeId from) {
    int other = from.dc();
    if (m.getOrigin() != d || other == d || from.partition() != partition() || self.replica() != FORWARDER) {
      return;
    }
    heard[other] = true;
    unansweredSince[other] = -1;
    if (from.replica() == suspect[other]) {
      suspect[other] = -1; // it answers: not down after all (a partition, a slow link)
    }
    acked[other] = Math.max(acked[other], m.getCommitted());
    if (m.getLeader() >= 0 && m.getLeader() < topology().replicas()) {
      if (m.getLeader() != suspect[other] || nowMicros() >= suspectUntil[other]) {
        remoteLeader[other] = m.getLeader();
      } // else a stale hint (the replica given up on): stay with this one until the group names another
    } else if (from.replica() == Math.max(0, remoteLeader[other])) {
      remoteLeader[other] = next(other, from.replica(), nowMicros()); // no leader known there: try the next
    }
    if (m.getRewind() || sentUpTo[other] < acked[other]) {
      sentUpTo[other] = acked[other]; // not taken (not the ready leader, or out of order): send again from acked
    }
    long min = Long.MAX_VALUE;
    for (int i = 0; i < acked.length; i++) {
      if (i != d) {
        min = Math.min(min, acked[i]);
      }
    }
    outbox.headMap(min, true).clear();
    if (min >= catchUpTo) {
      catchUp.clear();
    }
  }
}
