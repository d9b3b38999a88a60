package org.kvlab.protocols.nukv;

import com.google.protobuf.ByteString;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.clock.HybridLogicalClock;
import org.kvlab.consensus.raft.Raft;
import org.kvlab.consensus.raft.RaftGroup;

/**
 * A NuKV replica (seed 003 Alg 4.2): a member of its partition's Raft group in its datacenter ({@link RaftGroup}).
 * Every replica serves GETs once its stable vector {@code sv} covers the client's vectors ({@link #whenCovered}); the
 * group's leader takes PUTs, stamped with its HLC, and the group orders them; every replica applies the group's
 * commits ({@link NuKVReplica}). Replica {@link #FORWARDER} of each group ships committed local writes, in log order,
 * to the groups of the same partition in the other datacenters ({@link Forwarder}), whose leaders append them in the
 * origin's order ({@link ForwardReceiver}).
 */
final class NuKVServer extends Server<Stored> {
  /** Replica of each group that forwards its committed local writes to the other datacenters. */
  static final int FORWARDER = 0;
  /** Keys per snapshot chunk (a chunk is one Raft message and one journal record): snapshotChunkKeys' default. */
  static final int SNAPSHOT_CHUNK_KEYS = 1_000;
  /** Bytes of a snapshot's chunk records written to the journal in one event-loop turn: snapshotWriteBytes' default. */
  static final int SNAPSHOT_WRITE_BYTES = 256 << 10;

  private final NuKVParams p = new NuKVParams();
  private NodeId self;
  private RaftGroup<Op> raft;
  private NuKVReplica replica;
  private Forwarder forwarder;
  private ForwardReceiver receiver;
  /** Without HLC: the last timestamp this leader issued (timestamps of one leader are unique). */
  private long lastIssued;

  @Override
  protected void register(Handlers on) {
    on.request(GetReq.class, this::onGet);
    on.request(PutReq.class, this::onPut);
    on.message(Raft.class, (m, from) -> raft.handle(m, from));
    on.message(Replicate.class, (m, from) -> receiver.onReplicate(m, from));
    on.message(ReplicateAck.class, (m, from) -> forwarder.onReplicateAck(m, from));
  }

  @Override
  protected void onStart() {
    p.read(params());
    self = self();
    replica = new NuKVReplica(context(), p);
    RaftGroup.Settings settings = new RaftGroup.Settings(dc() + "_" + partition(),
        topology().replicasOf(dc(), partition()), p.electionTimeout, p.heartbeatTimeout, p.snapshotEvery,
        p.snapshotWriteBytes, "nukv");
    raft = new RaftGroup<>(context(), settings, Op.parser(), NuKVJournal.FORMAT, replica);
    forwarder = new Forwarder(context(), p, replica.sv);
    receiver = new ForwardReceiver(context(), replica.sv, raft);
    replica.wire(forwarder, receiver);
    raft.start();
    forwarder.start();
  }

  /** The role of this replica in its Raft group and its term, e.g. "leader t=3" (see {@link RaftGroup#role}). */
  @Override
  public String role() {
    return raft == null ? null : raft.role();
  }

  // GET (any replica)

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
        long idx = Math.max(replica.sv[v.getDc()], v.getIdx());
        r.setFound(true).setValue(v.getValue()).setDc(v.getDc()).setLogIdx(idx).setT(v.getT());
      }
      req.reply(r.build());
    }, req);
  }

  // PUT (the group's ready leader: it has applied every write committed before its term, so its HLC covers them)

  private void onPut(Request<PutReq> req) {
    if (!raft.isReadyLeader()) {
      notLeader(req);
      return;
    }
    PutReq q = req.body();
    if (p.hlc) {
      // Alg 4.2: updateHLC(dt); the write is wait-free.
      long t = q.getDt() == 0 ? replica.hlc.now() : replica.hlc.updateForPut(q.getDt());
      Invariants.check(t > q.getDt(), "HLC stamped %s, not above the client's dt %s", t, q.getDt());
      propose(req, q.getKey(), q.getValue(), t);
    } else {
      // Without HLC (§4.4.2): wait until this server has what the session depends on, then stamp above
      // every version of the key it has and every timestamp it issued (physical time otherwise).
      whenCovered("put", need(q.getHrvList(), q.getHwvList()), () -> {
        if (!raft.isReadyLeader()) {
          notLeader(req);
          return;
        }
        long t = HybridLogicalClock.of(Math.min(clock().millis(), HybridLogicalClock.L_MAX_MILLIS), 0);
        long newest = store().newest(q.getKey()).map(s -> s.getVersion().getT()).orElse(0L);
        t = Math.max(t, Math.max(newest, lastIssued) + 1);
        lastIssued = t;
        propose(req, q.getKey(), q.getValue(), t);
      }, req);
    }
  }

  // Alg 4.2's "wait until sv >= ...": the host re-checks the condition after every event (commits raise sv)

  /** Runs {@code run} once sv covers {@code need}, or fails {@code req} after waitMax. */
  private void whenCovered(String what, long[] need, Runnable run, Request<?> req) {
    if (covers(replica.sv, need)) {
      run.run();
      return;
    }
    long since = nowMicros();
    waitUntil(() -> covers(replica.sv, need), p.waitMax, () -> {
      metrics().record("nukv." + what + ".waitMicros", nowMicros() - since); // how long it was held
      run.run();
    }, () -> req.fail("not caught up within " + p.waitMax.toMillis() + " ms: has sv=" + Arrays.toString(replica.sv)
        + ", the session needs " + Arrays.toString(need) + " (a partition or a slow forwarder)"));
  }

  /** The vector a session needs: the maximum of its read and write vectors, per datacenter. */
  private long[] need(List<Long> a, List<Long> b) {
    long[] need = new long[topology().datacenters()];
    for (int i = 0; i < need.length; i++) {
      need[i] = Math.max(i < a.size() ? a.get(i) : 0, i < b.size() ? b.get(i) : 0);
    }
    return need;
  }

  private static boolean covers(long[] sv, long[] need) {
    for (int i = 0; i < sv.length; i++) {
      if (sv[i] < need[i]) {
        return false;
      }
    }
    return true;
  }

  /** Not the ready leader: names the leader it knows (a client goes there); paced while there is none. */
  private void notLeader(Request<PutReq> req) {
    NodeId leader = raft.leader();
    int hint = leader == null ? -1 : leader.replica();
    PutReply r = PutReply.newBuilder().setNotLeader(true).setLeader(hint == self.replica() ? -1 : hint).build();
    if (hint < 0 || hint == self.replica() || req.body().getAttempt() >= topology().replicas()) {
      after(p.retryAfter, () -> req.reply(r)); // no leader yet (election): pace the client's retries
    } else {
      req.reply(r);
    }
  }

  private void propose(Request<PutReq> req, String key, ByteString value, long t) {
    Op op = Op.newBuilder().setKey(key).setVersion(Version.newBuilder().setValue(value).setT(t).setDc(dc())).build();
    raft.propose(op, (index, failure) -> {
      if (failure == null) {
        req.reply(PutReply.newBuilder().setDc(dc()).setLogIdx(index).setT(t).build());
      } else if (!failure.appended()) {
        req.fail("not appended: " + failure.cause()); // the group refused it: it will never commit
      } else {
        req.unknown("leader " + self + " lost track of the write: " + failure.cause()); // may still commit
      }
    });
  }
}
