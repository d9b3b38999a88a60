package org.kvlab.protocols.accf;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.api.Slot;
import org.kvlab.clock.HybridLogicalClock;

/**
 * ACCF, server i (seed 003 §7.2.2, Alg 7.2; line numbers cite it).
 *
 * <p>State: the HLC; {@code latest[j]}, the latest timestamp received from each peer j (the servers hosting the same
 * keys: this partition in the other datacenters, the data placement H of kvlab's full replication). VV_i[t] is the
 * minimum of {@code latest} over the peers in tracking group t, and +∞ when no peer is in t (the seed's "no key hosted
 * by both"; this server's own versions are always here, so it does not count itself). For each checking group cg the
 * server belongs to, SVV^cg is the entry-wise minimum of the VVs of cg's servers, shared every {@code svvInterval}.
 *
 * <p>Not in the paper (crash recovery): the server persists its stable vectors and an HLC ceiling (no timestamp at or
 * above it was issued) in its slot; a restarted server resumes its HLC from the ceiling, so a peer's VV entry
 * for it stays a true lower bound, and takes the persisted SVVs as lower bounds of its SVVs and VV. Pruning uses only
 * persisted SVVs, so a restarted server still holds every version its stable vectors may select.
 */
final class AccfServer extends Server<Record> {
  /** The correct rules, or deliberately broken ones for the mutant tests. */
  enum Variant { CORRECT, NO_GET_WAIT, NO_CLIENT_DEPS }

  static final long INF = Long.MAX_VALUE;
  /** Where kvlab kept the state among the store's keys before the protocol kit: a store holding it is refused. */
  static final String OLD_STATE_KEY = "\u0000accf/node-state";
  private static final long CEILING_STEP = HybridLogicalClock.of(1_000, 0); // 1 s of HLC time
  private static final long PERSIST_EVERY_MILLIS = 50;

  private final Variant variant;
  private Groups groups;
  private int myTg;
  private int[] myCgs;
  private HybridLogicalClock hlc;
  private long lastIssued;
  private long ceiling;
  private List<NodeId> peers;
  private int[] peerTg;
  private long[] latest;                 // by peer index
  private long[][] svv;                  // [checking group][tracking group], only rows of my groups are used
  private long[][] persistedSvv;         // the SVVs as last persisted (pruning uses these)
  private final Map<Integer, Map<NodeId, long[]>> memberVv = new HashMap<>(); // cg -> member -> its latest VV
  private long lastSentMillis = -1;
  private long lastPersistMillis;
  private Slot<NodeState> state;
  private long heartbeatMillis;
  private long pruneLag;

  AccfServer(Variant variant) {
    this.variant = variant;
  }

  @Override
  protected void register(Handlers on) {
    on.request(GetReq.class, this::onGet);
    on.request(PutReq.class, this::onPut);
    on.message(Replicate.class, this::onReplicate);
    on.message(Heartbeat.class, (m, from) -> heard(from, m.getTime()));
    on.message(VvShare.class, this::onVvShare);
    Duration heartbeat = params().duration("heartbeat", Duration.ofMillis(10));
    heartbeatMillis = heartbeat.toMillis();
    pruneLag = HybridLogicalClock.of(params().duration("pruneLag", Duration.ofSeconds(1)).toMillis(), 0);
    on.every(heartbeat, this::onHeartbeatTimer);
    on.every(params().duration("svvInterval", Duration.ofMillis(5)), this::onSvvTimer);
  }

  @Override
  protected void onStart() {
    groups = new Groups(topology(), params());
    myTg = groups.trackingOf(self());
    myCgs = groups.checkingOf(self());
    peers = peers();
    peerTg = peers.stream().mapToInt(groups::trackingOf).toArray();
    latest = new long[peers.size()];
    svv = new long[groups.checkingCount()][groups.trackingCount()];
    persistedSvv = new long[svv.length][svv[0].length];
    hlc = new HybridLogicalClock(clock());
    Invariants.check(store().newest(OLD_STATE_KEY).isEmpty(), "the store of %s holds ACCF's state under the key"
        + " \\0accf/node-state, where kvlab kept it before the protocol kit; this version keeps it in its slot and"
        + " would start without it. Fix: start on a fresh store (./kvlab local down --wipe, or delete the server's"
        + " data directory)", self());
    state = slot(NodeState.getDefaultInstance());
    if (state.get().getCeiling() > 0) {
      recover(state.get());
    }
    persistState(true);
  }

  // ---------------------------------------------------------------- crash recovery (not in the paper)

  private void recover(NodeState st) {
    ceiling = st.getCeiling();
    hlc = new HybridLogicalClock(clock(), ceiling);
    lastIssued = ceiling;
    int n = groups.trackingCount();
    Invariants.check(st.getSvvCount() == svv.length * n, "state of %s has %s SVV entries, expected %s",
        self(), st.getSvvCount(), svv.length * n);
    for (int cg = 0; cg < svv.length; cg++) {
      for (int t = 0; t < n; t++) {
        svv[cg][t] = st.getSvv(cg * n + t);
      }
    }
    for (int cg : myCgs) {
      for (int p = 0; p < peers.size(); p++) {
        long bound = svv[cg][peerTg[p]]; // latest[p] >= VV_i[T(p)] >= SVV^cg[T(p)]
        if (bound != INF) {
          latest[p] = Math.max(latest[p], bound);
        }
      }
    }
  }

  /** Writes the stable vectors and HLC ceiling (every 50 ms, or now when {@code force}). */
  private void persistState(boolean force) {
    if (!force && now() - lastPersistMillis < PERSIST_EVERY_MILLIS) {
      return;
    }
    lastPersistMillis = now();
    ceiling = Math.max(ceiling, hlc.current() + CEILING_STEP);
    NodeState.Builder st = NodeState.newBuilder().setCeiling(ceiling);
    for (long[] row : svv) {
      for (long v : row) {
        st.addSvv(v);
      }
    }
    state.set(st.build());
    for (int cg = 0; cg < svv.length; cg++) {
      persistedSvv[cg] = svv[cg].clone();
    }
  }

  /** Every HLC time handed out goes through here: monotone, and below the persisted ceiling. */
  private long issued(long ts) {
    Invariants.check(ts > lastIssued, "HLC not monotone at %s: %s after %s", self(), ts, lastIssued);
    lastIssued = ts;
    if (ts >= ceiling) {
      persistState(true);
    }
    Invariants.check(ts < ceiling, "HLC time %s at %s not below its persisted ceiling %s", ts, self(), ceiling);
    return ts;
  }

  // ---------------------------------------------------------------- version vector and stable vectors

  /** VV_i[t]: min of the latest times heard from the peers in tracking group t; +∞ if none is in t. */
  long vv(int t) {
    long min = INF;
    for (int p = 0; p < peers.size(); p++) {
      if (peerTg[p] == t) {
        min = Math.min(min, latest[p]);
      }
    }
    return min;
  }

  private long[] vvVector() {
    long[] v = new long[groups.trackingCount()];
    for (int t = 0; t < v.length; t++) {
      v[t] = vv(t);
    }
    return v;
  }

  private void heard(NodeId from, long time) {
    int p = peers.indexOf(from);
    Invariants.check(p >= 0, "%s heard from %s, which hosts none of its keys", self(), from);
    latest[p] = Math.max(latest[p], time); // FIFO channels: a peer's times only grow
  }

  /** Every svvInterval: share VV with the other servers of each checking group; recompute SVV^cg. */
  private void onSvvTimer() {
    long[] mine = vvVector();
    for (int cg : myCgs) {
      VvShare.Builder m = VvShare.newBuilder().setCg(cg);
      for (long v : mine) {
        m.addVv(v);
      }
      VvShare msg = m.build();
      Map<NodeId, long[]> members = memberVv.computeIfAbsent(cg, g -> new HashMap<>());
      members.put(self(), mine);
      List<NodeId> all = groups.checkingMembers(cg);
      for (NodeId n : all) {
        if (!n.equals(self())) {
          send(n, msg);
        }
      }
      if (members.keySet().containsAll(all)) {
        for (int t = 0; t < mine.length; t++) {
          long min = INF;
          for (NodeId n : all) {
            min = Math.min(min, members.get(n)[t]);
          }
          svv[cg][t] = Math.max(svv[cg][t], min); // SVV never decreases
        }
      }
    }
    persistState(false);
  }

  private void onVvShare(VvShare m, NodeId from) {
    int cg = m.getCg();
    Invariants.check(groups.checkingMembers(cg).contains(from) && contains(myCgs, cg),
        "%s got the VV of %s for checking group %s, which they do not share", self(), from, cg);
    Invariants.check(m.getVvCount() == groups.trackingCount(), "VV of %s has %s entries, expected %s", from,
        m.getVvCount(), groups.trackingCount());
    memberVv.computeIfAbsent(cg, g -> new HashMap<>()).put(from, m.getVvList().stream().mapToLong(Long::longValue).toArray());
  }

  private static boolean contains(int[] xs, int x) {
    for (int v : xs) {
      if (v == x) {
        return true;
      }
    }
    return false;
  }

  /** Every heartbeat period: if nothing went to the peers for that long, send them a fresh HLC time. */
  private void onHeartbeatTimer() {
    if (lastSentMillis >= 0 && now() - lastSentMillis < heartbeatMillis) {
      return;
    }
    sendToPeers(Heartbeat.newBuilder().setTime(issued(hlc.now())).build());
    lastSentMillis = now();
  }

  // ---------------------------------------------------------------- Alg 7.2: GET, PUT, replicate

  /** GET(k, cg, ds): lines 1-8. */
  private void onGet(Request<GetReq> req) {
    GetReq g = req.body();
    String bad = Deps.problem(g.getDsList(), groups.trackingCount());
    if (bad != null || g.getCg() < -1 || g.getCg() >= groups.checkingCount()) {
      req.fail(bad != null ? "bad GET: " + bad : "bad GET: checking group " + g.getCg() + " does not exist");
      return;
    }
    waitUntil(() -> variant == Variant.NO_GET_WAIT || received(g.getDsList()), () -> read(req));          // line 2
  }

  /** Whether this server has received everything ds names: no {@code <t, h>} in ds with h &gt; VV_i[t]. */
  private boolean received(List<TgTime> ds) {
    for (TgTime e : ds) {
      if (e.getTime() > vv(e.getTg())) {
        return false;
      }
    }
    return true;
  }

  /** Lines 3-7, once line 2's wait is over. */
  private void read(Request<GetReq> req) {
    GetReq g = req.body();
    int cg = g.getCg() == -1 ? myCgs[0] : g.getCg();
    // Lines 3-6, with one deviation: where the client's ds exceeds SVV^cg (it read elsewhere, or another member's
    // SVV ran ahead of this one's), the paper returns the latest version; we return the newest version whose ds is
    // within max(ds, SVV^cg). Both are causally consistent after line 2's wait; the paper's latest version drags in
    // dependencies the group has not stabilised, and the client then waits at its next server (App2 under 2 x 2).
    long[] bound = new long[groups.trackingCount()];
    if (contains(myCgs, cg)) {
      System.arraycopy(svv[cg], 0, bound, 0, bound.length);
    } else {
      java.util.Arrays.fill(bound, INF); // not a member of cg: no stable vector here, the latest version (line 6)
    }
    for (TgTime e : g.getDsList()) {
      bound[e.getTg()] = Math.max(bound[e.getTg()], e.getTime());
    }
    Optional<Record> d = store().newest(g.getKey(), r -> r.getDsList().stream().allMatch(e -> e.getTime() <= bound[e.getTg()]));
    GetReply.Builder reply = GetReply.newBuilder();
    d.ifPresent(r -> reply.setFound(true).setValue(r.getValue()).addAllDs(r.getDsList()));
    req.reply(reply.build());                                                                      // line 7
  }

  /** PUT(k, v, ds): lines 9-18. Wait-free: the HLC jumps past the dependencies. */
  private void onPut(Request<PutReq> req) {
    PutReq p = req.body();
    String bad = Deps.problem(p.getDsList(), groups.trackingCount());
    if (bad != null) {
      req.fail("bad PUT: " + bad);
      return;
    }
    long dt = 0;
    for (TgTime e : p.getDsList()) {
      dt = Math.max(dt, e.getTime());                                                             // line 10
    }
    long ut = issued(hlc.updateForPut(dt));                                                       // line 11
    Invariants.check(ut > dt, "new version's time %s not above its dependencies %s", ut, dt);
    TreeMap<Integer, Long> ds = new TreeMap<>();
    if (variant != Variant.NO_CLIENT_DEPS) {
      Deps.maxInto(ds, p.getDsList());
    }
    ds.merge(myTg, ut, Math::max);                                                                // line 13
    Record d = Record.newBuilder().setValue(p.getValue()).setUt(ut).setSr(dc()).addAllDs(Deps.toProto(ds)).build();
    store().put(p.getKey(), d);                                                                   // line 14
    prune(p.getKey());
    req.reply(PutReply.newBuilder().setTg(myTg).setUt(ut).build());                              // line 16
    sendToPeers(Replicate.newBuilder().setKey(p.getKey()).setRecord(d).build());                  // lines 17-18
    lastSentMillis = now();
  }

  /** Replicate(k, d) from j: lines 19-21. */
  private void onReplicate(Replicate m, NodeId from) {
    Record d = m.getRecord();
    Invariants.check(d.getSr() == from.dc(), "replicate from %s carries source datacenter %s", from, d.getSr());
    Invariants.check(Deps.problem(d.getDsList(), groups.trackingCount()) == null, "replicate from %s: %s", from,
        Deps.problem(d.getDsList(), groups.trackingCount()));
    int tj = groups.trackingOf(from);
    Invariants.check(d.getDsList().stream().anyMatch(e -> e.getTg() == tj && e.getTime() == d.getUt()),
        "replicate from %s: its dependency set lacks <%s, %s>", from, tj, d.getUt());
    store().put(m.getKey(), d);                                                                   // line 20
    heard(from, d.getUt());                                                                       // line 21
    prune(m.getKey());
  }

  /** Keeps the newest version with time <= (persisted stable vectors - pruneLag) and everything newer. */
  private void prune(String key) {
    long bound = INF;
    for (int cg : myCgs) {
      for (long v : persistedSvv[cg]) {
        bound = Math.min(bound, v);
      }
    }
    if (bound != INF && bound - pruneLag > 0) {
      long b = bound - pruneLag;
      store().prune(key, r -> r.getUt() <= b); // every entry of such a version's ds is <= ut <= every SVV entry
    }
  }
}
