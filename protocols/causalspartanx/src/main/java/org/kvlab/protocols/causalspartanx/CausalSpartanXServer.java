package org.kvlab.protocols.causalspartanx;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.api.Slot;
import org.kvlab.clock.HybridLogicalClock;

/**
 * CausalSpartanX, server p^m_n (seed 003 ch. 5): Alg 5.2 (GET, PUT, replicate), Alg 5.3 (heartbeats, DSV),
 * Alg 5.4 (ROTX coordinator and slices). Line numbers below cite the algorithms.
 *
 * <p><b>DSV computation (Alg 5.3).</b> All-to-all inside the datacenter instead of the paper's tree: every θ
 * ({@code dsvInterval}) each partition sends its VV to the other partitions of its datacenter and sets
 * DSV ← max(DSV, entry-wise min of the latest VV of every partition, its own included). With few partitions per
 * datacenter this is one intra-datacenter hop of latency and N·(N−1) small messages per θ.
 *
 * <p><b>Decision on §4.6 (Alg 5.2 line 7 / Alg 5.4 line 10 vs Obs 10 DSV_n ≤ DSV_real).</b> We keep the DSV merging of
 * line 7 (PUT) and line 10 (ROTX) exactly as in the paper, and instead make GET line 3 also require
 * {@code d.ut ≤ DSV[d.sr]} for a remote version (the condition a ROTX slice already applies, Alg 5.4 line 22). Then
 * every remote entry ⟨j, h⟩ a client can learn (GET line 4, slice line 23) is ≤ the DSV of the server that returned
 * it, hence (by induction over DSV_c, DS_c, sv and the merges of line 2, 7, 10, 21) ≤ DSV_real[j] of the client's
 * datacenter, so the merges can never raise a DSV above DSV_real and Obs 10 holds. The literal line 3 breaks Obs 10
 * (scenario in CausalSpartanXScenarioTest, where the literal variant returns a causally inconsistent read). The cost:
 * a dependency-free remote version becomes visible to GET only once DSV[sr] ≥ its ut (≈ one heartbeat + θ later),
 * instead of on arrival. Local versions stay immediately visible (Lemma 2, causal++).
 *
 * <p>Alg 5.3 runs on a paced timer: every Δ / θ while clients are active, every {@code idleInterval} when the
 * cluster is idle (the framework's idle back-off, docs/protocols.md; safety does not depend on the periods).
 */
final class CausalSpartanXServer extends Server<Record> {
  /** Which GET visibility rule to use: the correct one, or deliberately different ones for tests. */
  enum Variant { CORRECT, PAPER_LITERAL_GET, NO_VISIBILITY_RULE }

  private final Variant variant;
  private HybridLogicalClock hlc; // VV[m]: the server's HLC, the highest timestamp it assigned
  private long[] vv;              // VV[k], k ≠ m: latest timestamp received from peer p^k_n
  private long[] dsv;             // DSV^m_n
  private long[][] partitionVv;   // latest VV of each partition of this datacenter (Alg 5.3 DSV computation)
  private long[][] partitionDsv;  // latest DSV of each partition of this datacenter (for pruning only)
  private long lastReplicateSentMillis; // 0: send a heartbeat at the first tick
  private long lastHeartbeatMillis;
  private long lastIssued;        // for the HLC-monotone invariant
  private long pruneLagTs;
  private long heartbeatMillis;
  private long dsvMicros;
  private long lastDsvStep;       // nowMicros() when computeDsv last ran

  CausalSpartanXServer(Variant variant) {
    this.variant = variant;
  }

  @Override
  protected void register(Handlers on) {
    on.request(GetReq.class, this::onGet);
    on.request(PutReq.class, this::onPut);
    on.request(RotxReq.class, this::onRotx);
    on.message(Replicate.class, this::onReplicate);
    on.message(Heartbeat.class, this::onHeartbeat);
    on.message(VvReport.class, this::onVvReport);
    on.call(SliceReq.class, req -> req.reply(slice(req.body())));
    Duration delta = params().duration("heartbeat", Duration.ofMillis(10));
    Duration theta = params().duration("dsvInterval", Duration.ofMillis(5));
    heartbeatMillis = delta.toMillis();
    dsvMicros = theta.toNanos() / 1000;
    on.every(delta.compareTo(theta) < 0 ? delta : theta, params().duration("idleInterval", Duration.ofSeconds(1)),
        params().duration("idleAfter", Duration.ofSeconds(1)), this::step);
  }

  @Override
  protected void onStart() {
    int m = topology().datacenters();
    hlc = new HybridLogicalClock(clock());
    vv = new long[m];
    dsv = new long[m];
    partitionVv = new long[topology().partitions()][m];
    partitionDsv = new long[topology().partitions()][m];
    pruneFloor = new long[m];
    pruneLagTs = params().duration("pruneLag", Duration.ofSeconds(1)).toMillis() << HybridLogicalClock.C_BITS;
    state = slot(NodeState.getDefaultInstance());
    recover();
  }

  /** Every min(Δ, θ) (while engaged): the heartbeat (every Δ) and the DSV computation (every θ). */
  private void step() {
    long now = nowMicros();
    heartbeat(heartbeatMillis);
    if (now - lastDsvStep >= dsvMicros) {
      lastDsvStep = now;
      computeDsv();
    }
  }

  // ---------------------------------------------------------------- crash recovery (not in the paper)

  private static final long PERSIST_EVERY_MILLIS = 50;
  private Slot<NodeState> state;  // DSV and HLC, persisted at most every 50 ms
  private long lastPersistMillis;

  /**
   * A restarted node resumes from its last persisted DSV (at most 50 ms old), taking DSV[k] as a lower bound of
   * VV[k] and the persisted HLC as its HLC floor. Without it a restarted coordinator's DSV would start at 0, its
   * ROTX snapshots would lag the other partitions' DSV by a whole partition's length, and a slice could have pruned
   * the versions such a snapshot needs. (Safe: every version counted in the persisted DSV was durably stored.)
   */
  private void recover() {
    NodeState st = state.get();
    if (st.getDsvCount() == 0) {
      return; // a fresh store
    }
    for (int k = 0; k < vv.length; k++) {
      dsv[k] = st.getDsv(k);
      vv[k] = dsv[k];
    }
    hlc = new HybridLogicalClock(clock(), Math.max(st.getHlc(), dsv[dc()]));
    lastIssued = hlc.current();
  }

  private void persistState() {
    if (now() - lastPersistMillis < PERSIST_EVERY_MILLIS) {
      return;
    }
    lastPersistMillis = now();
    NodeState.Builder b = NodeState.newBuilder().setHlc(hlc.current());
    for (long t : dsv) { // every datacenter's entry, in order
      b.addDsv(t);
    }
    state.set(b.build());
  }

  /** Every HLC tick goes through here: asserts HLC monotonicity (§2.5). */
  private long issued(long ts) {
    Invariants.check(ts > lastIssued, "HLC not monotone at %s: %s after %s", self(), ts, lastIssued);
    lastIssued = ts;
    vv[dc()] = ts;
    return ts;
  }

  // ---------------------------------------------------------------- Alg 5.2: GET, PUT, replicate

  /** GET: Alg 5.2 lines 1–5. */
  private void onGet(Request<GetReq> req) {
    GetReq g = req.body();
    for (int i = 0; i < Math.min(dsv.length, g.getDsvCount()); i++) {                     // line 2 (Deps.maxInto,
      dsv[i] = Math.max(dsv[i], g.getDsv(i));                                             //   without boxing)
    }
    Optional<Record> d = store().newest(g.getKey(), visibleRule);                         // line 3
    GetReply.Builder reply = GetReply.newBuilder();
    d.ifPresent(r -> reply.setFound(true).setValue(r.getValue()).addAllDs(Deps.withSelfProto(r))); // line 4
    for (long t : dsv) {                                                                  // line 5
      reply.addDsv(t);
    }
    req.reply(reply.build());
  }

  /** {@link #visibleToGet(Record)} as one object, not a new method reference per GET. */
  private final Predicate<Record> visibleRule = this::visibleToGet;

  /** Line 3: local versions always; remote ones when every dependency (and, §4.6 decision, d itself) is stable. */
  private boolean visibleToGet(Record d) {
    if (d.getSr() == dc() || variant == Variant.NO_VISIBILITY_RULE) {
      return true;
    }
    boolean selfStable = variant == Variant.PAPER_LITERAL_GET || d.getUt() <= dsv[d.getSr()];
    return selfStable && allAtMost(d.getDsList(), dsv);
  }

  /** PUT: Alg 5.2 lines 6–19. Wait-free: never waits on the physical clock. */
  private void onPut(Request<PutReq> req) {
    PutReq p = req.body();
    Deps.checkOnePerDc(p.getDsList(), dsv.length);
    long dt = dsv[dc()];
    for (DcTime e : p.getDsList()) {
      dsv[e.getDc()] = Math.max(dsv[e.getDc()], e.getTime());                            // line 7
      dt = Math.max(dt, e.getTime());                                                     // line 8
    }
    long ut = issued(hlc.updateForPut(dt));                                               // line 9
    Invariants.check(ut > dt, "Obs 7: new version's ut %s not above its dependencies %s", ut, dt);
    Record.Builder version = Record.newBuilder().setValue(p.getValue()).setUt(ut).setSr(dc());               // 10-15
    for (int i = 0; i < p.getDsCount(); i++) {
      DcTime e = p.getDs(i);
      if (e.getDc() != dc() || variant != Variant.CORRECT) { // the entry of its own datacenter: see ownEntryDropped
        version.addDs(e);
      }
    }
    Record d = version.build();
    store().put(p.getKey(), d);                                                           // line 16
    prune(p.getKey());
    req.reply(PutReply.newBuilder().setUt(ut).setSr(dc()).build());                      // line 17
    sendToPeers(Replicate.newBuilder().setKey(p.getKey()).setRecord(d).build());          // lines 18–19
    lastReplicateSentMillis = now();
  }

  /*
   * ownEntryDropped: a new version's d.ds leaves out the client's entry for this datacenter (⟨m, t⟩, t < ut by
   * Obs 7). Under the §4.6 decision it changes no answer: every reader of d.ds also takes ⟨d.sr, d.ut⟩, which
   * dominates it (GET line 4 and slice line 23 take maxDS(d.ds, {⟨d.sr, d.ut⟩}); a remote GET, a slice and pruning
   * require d.ut ≤ DSV[d.sr] / sv[d.sr] / floor[d.sr] besides d.ds ≤ it; a local GET reads no d.ds). What it saves:
   * a version whose client depends only on its own datacenter stores and replicates no dependency list (no list,
   * array and DcTime per version to allocate, keep for a second, replicate and follow on every GET and prune).
   * Only the paper's literal GET rule (a test variant) reads d.ds without d.ut: that variant keeps the entry.
   */

  /** Replicate from p^k_n: Alg 5.2 lines 20–22. */
  private void onReplicate(Replicate m, NodeId from) {
    Record d = m.getRecord();
    Invariants.check(d.getSr() == from.dc(), "replicate from %s carries source replica %s", from, d.getSr());
    Deps.checkOnePerDc(d.getDsList(), dsv.length);
    Invariants.check(Deps.allBelow(d.getDsList(), d.getUt()), "Obs 7: replicated version's ut %s not above its"
        + " dependencies %s (from %s)", d.getUt(), d.getDsList(), from); // what prune's shortcut relies on
    store().put(m.getKey(), d);                                                           // line 21
    vv[from.dc()] = Math.max(vv[from.dc()], d.getUt());                                   // line 22 (FIFO: monotone)
    prune(m.getKey());
  }

  // ---------------------------------------------------------------- Alg 5.3: heartbeats and DSV

  /** Every Δ: if no replicate was sent in the past Δ, updateHLC() and send ⟨Heartbeat VV[m]⟩ to the peers. */
  private void heartbeat(long deltaMillis) {
    // The pace timer may tick more often than Δ (every θ): at most one heartbeat per Δ, as with a Δ timer.
    if (now() - lastReplicateSentMillis >= deltaMillis && now() - lastHeartbeatMillis >= deltaMillis) {
      lastHeartbeatMillis = now();
      long t = issued(hlc.now());                                                         // updateHLC(), lines 10–14
      sendToPeers(Heartbeat.newBuilder().setTime(t).build());
    }
  }

  /** ⟨Heartbeat hlc⟩ from p^k_n: VV[k] ← hlc. */
  private void onHeartbeat(Heartbeat h, NodeId from) {
    vv[from.dc()] = Math.max(vv[from.dc()], h.getTime());
  }

  /** Every θ: DSV ← max(DSV, entry-wise min over the partitions of DC m of their VV) (all-to-all exchange). */
  private void computeDsv() {
    vv[dc()] = hlc.current();
    partitionVv[partition()] = vv.clone();
    for (int i = 0; i < dsv.length; i++) {
      long min = Long.MAX_VALUE;
      for (long[] pv : partitionVv) {
        min = Math.min(min, pv[i]);
      }
      long before = dsv[i];
      dsv[i] = Math.max(dsv[i], min);
      Invariants.check(dsv[i] >= before, "DSV not monotone at %s", self());
    }
    partitionDsv[partition()] = dsv.clone();
    VvReport.Builder b = VvReport.newBuilder();
    for (long t : vv) { // as addAllVv(Deps.toList(vv)), without boxing
      b.addVv(t);
    }
    for (long t : dsv) {
      b.addDsv(t);
    }
    VvReport report = b.build();
    for (NodeId other : topology().datacenter(dc())) {
      if (!other.equals(self())) {
        send(other, report);
      }
    }
    persistState();
  }

  private void onVvReport(VvReport r, NodeId from) {
    Invariants.check(from.dc() == dc(), "VV report from another datacenter: %s", from);
    long[] pv = partitionVv[from.partition()];
    for (int i = 0; i < pv.length; i++) {
      pv[i] = Math.max(pv[i], r.getVv(i));
    }
    long[] reported = new long[r.getDsvCount()];
    for (int i = 0; i < reported.length; i++) {
      reported[i] = r.getDsv(i);
    }
    partitionDsv[from.partition()] = reported; // FIFO: latest
  }

  // ---------------------------------------------------------------- Alg 5.4: read-only transactions

  /**
   * Coordinator: Alg 5.4 lines 9–18. One client round trip; slices answered in parallel, nothing blocks. A slice
   * not answered within {@code SLICE_TIMEOUT} fails the transaction (read-only, so it had no effect); it is not
   * resent, as a late slice may find the versions of its snapshot pruned.
   */
  private void onRotx(Request<RotxReq> req) {
    RotxReq q = req.body();
    Deps.maxInto(dsv, q.getDsvList());                                                   // line 10: max(DSV, dsv,
    for (DcTime e : q.getDsList()) {
      dsv[e.getDc()] = Math.max(dsv[e.getDc()], e.getTime());                            //          ds)
    }
    TreeMap<Integer, Long> ds = Deps.of(q.getDsList());                                   // lines 11, 17: client's ds
    Map<String, KeyValue> vset = new HashMap<>();
    SliceReq s = SliceReq.newBuilder().addAllKeys(q.getKeysList()).addAllSv(Deps.toList(dsv)).build(); // line 12
    List<NodeId> others = q.getKeysList().stream().map(topology()::partitionOf).filter(p -> p != partition())
        .distinct().sorted().map(p -> topology().node(dc(), p)).toList();
    if (q.getKeysList().stream().anyMatch(this::hostedHere)) {
      collect(slice(s), vset, ds);
    }
    callAll(others, s, SliceReply.class, others.size(), SLICE_TIMEOUT)                   // lines 13–14, in parallel
        .onQuorum(replies -> {
          replies.values().forEach(r -> collect(r, vset, ds));
          RotxReply.Builder reply = RotxReply.newBuilder();
          q.getKeysList().stream().distinct().forEach(k -> reply.addValues(vset.get(k)));
          req.reply(reply.addAllDsv(Deps.toList(dsv)).addAllDs(Deps.toProto(ds)).build()); // line 18
        })
        .onFailure(f -> req.fail("a slice did not answer: " + f));
  }

  private static final Duration SLICE_TIMEOUT = Duration.ofSeconds(2);

  /** Lines 15–17: collect a slice's versions. */
  private static void collect(SliceReply r, Map<String, KeyValue> vset, TreeMap<Integer, Long> ds) {
    r.getValuesList().forEach(kv -> vset.put(kv.getKey(), kv));                         // line 16
    Deps.maxDS(ds, r.getDsList());                                                        // line 17
  }

  /** Slice: Alg 5.4 lines 20–24, for every key of the request hosted here. */
  private SliceReply slice(SliceReq s) {
    long[] sv = s.getSvList().stream().mapToLong(Long::longValue).toArray();
    dsv[dc()] = Math.max(dsv[dc()], sv[dc()]);                                            // line 21
    SliceReply.Builder reply = SliceReply.newBuilder();
    TreeMap<Integer, Long> ds = new TreeMap<>();
    for (String k : s.getKeysList().stream().filter(this::hostedHere).toList()) {
      Optional<Record> d = store().newest(k, r -> stableUnder(r, sv));                   // line 22
      KeyValue.Builder kv = KeyValue.newBuilder().setKey(k);
      d.ifPresent(r -> {
        kv.setFound(true).setValue(r.getValue());
        Deps.withSelf(r).forEach((dc, h) -> ds.merge(dc, h, Math::max));                // line 23
      });
      reply.addValues(kv);
    }
    return reply.addAllDs(Deps.toProto(ds)).build();                                     // line 24
  }

  private boolean hostedHere(String key) {
    return topology().partitionOf(key) == partition();
  }

  /** Every ⟨i, h⟩ ∈ maxDS(d.ds, {⟨d.sr, d.ut⟩}) has h ≤ v[i] (local versions are not exempt). */
  private static boolean stableUnder(Record d, long[] v) {
    return d.getUt() <= v[d.getSr()] && allAtMost(d.getDsList(), v);
  }

  /** Every entry ⟨i, h⟩ of ds has h ≤ v[i]. (A loop, not a stream: it runs for every version read or pruned.) */
  private static boolean allAtMost(java.util.List<DcTime> ds, long[] v) {
    for (int i = 0; i < ds.size(); i++) {
      DcTime e = ds.get(i);
      if (e.getTime() > v[e.getDc()]) {
        return false;
      }
    }
    return true;
  }

  // ---------------------------------------------------------------- garbage collection

  /**
   * Drops versions older than the newest one stable under floor = (entry-wise min of the latest DSV reported by
   * every partition of this datacenter, its own included) − {@code pruneLag} (default 1 s). GET reads at or above
   * what is stable under this node's DSV (monotone, ≥ floor). A ROTX snapshot sv is ≥ its coordinator's DSV when
   * taken, and a coordinator's later (higher) reports travel behind its SliceReq on the same FIFO channel, so
   * sv ≥ the coordinator's row of the min here; the lag covers a restarted node resuming from a DSV persisted
   * up to 50 ms earlier. (A first version pruned on each node's own DSV − 1 s failed: DSVs of a datacenter can
   * differ by the whole length of a healed inter-datacenter partition for a moment, e.g. behind a slow partition.)
   */
  private void prune(String key) {
    long[] floor = pruneFloor;
    long least = Long.MAX_VALUE;
    for (int i = 0; i < floor.length; i++) {
      long min = dsv[i];
      for (long[] pd : partitionDsv) {
        min = Math.min(min, pd.length > i ? pd[i] : 0);
      }
      floor[i] = min - pruneLagTs;
      least = Math.min(least, floor[i]);
    }
    pruneFloorLeast = least;
    store().prune(key, stableUnderFloor);
  }

  /** The floor of the current {@link #prune} (one array, refilled per call: it runs after every PUT and Replicate). */
  private long[] pruneFloor;
  /** The least entry of {@link #pruneFloor}. */
  private long pruneFloorLeast;

  /**
   * {@code stableUnder(d, pruneFloor)}. A version's dependencies are all below its ut (Obs 7, asserted when a version
   * is made or replicated here), so ut ≤ every entry of the floor already answers yes without reading d.ds: the
   * versions pruned are about a second old and no longer in the processor's caches, and d.ds is four objects away.
   */
  private final Predicate<Record> stableUnderFloor =
      r -> r.getUt() <= pruneFloorLeast || stableUnder(r, pruneFloor);
}
