package org.kvlab.protocols.gentlerain;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;
import org.kvlab.api.Server;

/**
 * GentleRain, server p^m_n (Du et al., SoCC 2014; seed 003 §3, Alg 8.1). Conditions: C1, a version's
 * ut exceeds the times of its dependencies; C2, when GST = T every version with ut <= T has arrived
 * here. Together they make "newest version that is local or has ut <= GST" causally safe.
 *
 * <p>The heartbeat and GST steps run on a paced timer: at the paper's periods while clients are active, every
 * {@code idleInterval} when the cluster is idle (the framework's idle back-off, docs/protocols.md; C1 and C2
 * hold for any period).
 */
class GentleRainServer extends Server<Record> {
  // All times are physical microseconds: ut is made strictly increasing per server (max(PC, VV[m] + 1)),
  // and at millisecond resolution that rule runs ut ahead of the clock once a server takes more than
  // 1,000 PUTs a second, so dependent PUTs elsewhere wait: it capped each server at 1,000 PUTs a second
  // (GentleRainScenarioTest, "...thousandsOfPutsASecond...").
  private long[] vv;         // VV[k]: latest time heard from peer p^k_n; VV[m]: latest local update/clock time
  private boolean[] heard;   // VV[k] set since this incarnation started (VV is volatile state)
  private long gst;          // Global Stable Time of this datacenter, as known here; never decreases
  private long lastSent;     // when the last replicate/heartbeat went to the peers
  private long prunedBelow;  // versions older than the newest with ut <= prunedBelow may be gone
  private long[][] childVv;  // GST tree: last VVMessage of each child (null until heard)
  private long lastGstStep;  // when the GST step last ran
  private long heartbeatMicros;
  private long pruneLag;
  private long gstMicros;

  @Override
  protected void register(Handlers on) {
    on.request(GetReq.class, this::onGet);
    on.request(PutReq.class, this::onPut);
    on.request(RotxReq.class, this::onRotx);
    on.call(SliceReq.class, this::onSlice);
    on.message(Replicate.class, this::onReplicate);
    on.message(Heartbeat.class, this::onHeartbeat);
    on.message(VVMessage.class, this::onVv);
    on.message(GSTMessage.class, this::onGst);
    Duration heartbeat = params().duration("heartbeat", Duration.ofMillis(10));
    Duration gstInterval = params().duration("gstInterval", Duration.ofMillis(5));
    heartbeatMicros = micros(heartbeat);
    gstMicros = micros(gstInterval);
    pruneLag = micros(params().duration("pruneLag", Duration.ofSeconds(1)));
    on.every(heartbeat.compareTo(gstInterval) < 0 ? heartbeat : gstInterval, params().duration("idleInterval",
        Duration.ofSeconds(1)), params().duration("idleAfter", Duration.ofSeconds(1)), this::step);
  }

  @Override
  protected void onStart() {
    vv = new long[topology().datacenters()];
    heard = new boolean[vv.length];
    childVv = new long[children().size()][];
    // After a crash VV[m] is lost: start it past anything this server may have promised before (a
    // snapshot time may exceed the clock), so new versions still get fresh, larger update times.
    vv[dc()] = nowMicros() + (store().keyCount() > 0 ? micros(params().duration("recoveryMargin", Duration.ofMillis(250))) : 0);
  }

  /** Every min(heartbeat, gstInterval) (while engaged): the heartbeat step, and the GST step when it is due. */
  private void step() {
    long now = nowMicros();
    onHeartbeatTimer();
    if (now - lastGstStep >= gstMicros) {
      lastGstStep = now;
      onGstTimer();
    }
  }

  private static long micros(Duration d) {
    return d.toNanos() / 1000;
  }

  /** GET(k) (Alg 8.1): GST = max(GST, gst); newest version with sr == m or ut <= GST ("<=" per errata, §10). */
  private void onGet(Request<GetReq> req) {
    raiseGst(req.body().getGst());
    GetReply.Builder reply = GetReply.newBuilder().setGst(gst);
    store().newest(req.body().getKey(), this::visible)
        .ifPresent(d -> reply.setFound(true).setValue(d.getValue()).setUt(d.getUt()));
    req.reply(reply.build());
  }

  /** Alg 8.1's visibility rule (overridden only by the test's mutant). */
  boolean visible(Record d) {
    return d.getSr() == dc() || d.getUt() <= gst;
  }

  /**
   * PUT(k, v, dt): wait until PC > dt (deferred, never sleeping), then ut = PC; store; reply; replicate.
   * Deviations: ut is made strictly increasing per server (max(PC, VV[m] + 1)) so (ut, sr) is unique per
   * key and later than any heartbeat or snapshot time promised; and the client's GST raises ours, so a
   * reader of this local version learns a GST that covers the remote versions it depends on.
   */
  private void onPut(Request<PutReq> req) {
    waitUntilClock(req.body().getDt() + 1, () -> put(req)); // "wait until PC > dt"
  }

  private void put(Request<PutReq> req) {
    long dt = req.body().getDt();
    raiseGst(req.body().getGst());
    String key = req.body().getKey();
    long ut = Math.max(nowMicros(), vv[dc()] + 1);
    Invariants.check(ut > dt, "C1: version ut %s not above its dependency time %s", ut, dt);
    vv[dc()] = ut;
    heard[dc()] = true;
    Record d = Record.newBuilder().setValue(req.body().getValue()).setUt(ut).setSr(dc()).build();
    store().put(key, d);
    prune(key);
    req.reply(PutReply.newBuilder().setUt(ut).build());
    sendToPeers(Replicate.newBuilder().setKey(key).setRecord(d).build());
    lastSent = nowMicros();
  }

  /** Replicate(d) from p^k_n: insert d; VV[k] = d.ut. */
  private void onReplicate(Replicate m, NodeId from) {
    Invariants.check(m.getRecord().getSr() == from.dc(), "replicate from %s carries sr %s", from, m.getRecord().getSr());
    store().put(m.getKey(), m.getRecord());
    heardFrom(from.dc(), m.getRecord().getUt());
    prune(m.getKey());
  }

  private void onHeartbeat(Heartbeat m, NodeId from) {
    heardFrom(from.dc(), m.getTime());
  }

  private void heardFrom(int k, long t) {
    vv[k] = Math.max(vv[k], t);
    heard[k] = true;
  }

  /** Every heartbeat period: if nothing went to the peers for that long, VV[m] = PC; send Heartbeat(VV[m]). */
  private void onHeartbeatTimer() {
    long now = nowMicros();
    if (now - lastSent < heartbeatMicros) {
      return;
    }
    vv[dc()] = Math.max(vv[dc()], now); // later PUTs get ut > VV[m]
    heard[dc()] = true;
    sendToPeers(Heartbeat.newBuilder().setTime(vv[dc()]).build());
    lastSent = now;
  }

  // ------------------------------------------------------------------------------------------------
  // GST over a tree of the datacenter's partitions: parent of p is (p - 1) / 2, root is partition 0.

  private List<Integer> children() {
    List<Integer> out = new ArrayList<>();
    for (int c = 2 * partition() + 1; c <= 2 * partition() + 2 && c < topology().partitions(); c++) {
      out.add(c);
    }
    return out;
  }

  /** Every gstInterval: send the entry-wise min of the subtree's VVs up; the root turns it into GST. */
  private void onGstTimer() {
    long[] min = vv.clone();
    for (long[] c : childVv) {
      if (c == null) {
        return; // a child not heard from yet: the subtree minimum is unknown
      }
      for (int i = 0; i < min.length; i++) {
        min[i] = Math.min(min[i], c[i]);
      }
    }
    if (partition() == 0) {
      long newGst = Long.MAX_VALUE;
      for (long t : min) {
        newGst = Math.min(newGst, t);
      }
      adoptTreeGst(newGst);
    } else {
      VVMessage.Builder m = VVMessage.newBuilder();
      for (long t : min) {
        m.addVvItem(t);
      }
      send(new NodeId(dc(), (partition() - 1) / 2), m.build());
    }
  }

  private void onVv(VVMessage m, NodeId from) {
    childVv[children().indexOf(from.partition())] = m.getVvItemList().stream().mapToLong(Long::longValue).toArray();
  }

  private void onGst(GSTMessage m, NodeId from) {
    adoptTreeGst(m.getGst());
  }

  /** GST from the tree: adopt it and push it down to the children. */
  private void adoptTreeGst(long newGst) {
    raiseGst(newGst);
    for (int c : children()) {
      send(new NodeId(dc(), c), GSTMessage.newBuilder().setGst(gst).build());
    }
  }

  /** GST never decreases; GST <= min VV (C2) once every entry of VV was refreshed in this incarnation. */
  private void raiseGst(long g) {
    if (g <= gst) {
      return;
    }
    gst = g;
    boolean all = true;
    long minVv = Long.MAX_VALUE;
    for (int i = 0; i < vv.length; i++) {
      all &= heard[i];
      minVv = Math.min(minVv, vv[i]);
    }
    Invariants.check(!all || gst <= minVv, "C2: GST %s above min VV %s at %s", gst, minVv, self());
  }

  /** Keeps the newest version with ut <= GST - pruneLag and everything newer (readers may lag GST a bit). */
  private void prune(String key) {
    long bound = gst - pruneLag;
    if (bound > 0) {
      store().prune(key, d -> d.getUt() <= bound);
      prunedBelow = Math.max(prunedBelow, bound);
    }
  }

  // ------------------------------------------------------------------------------------------------
  // Read-only transactions (GET-ROTX, seed 003 §3 / §5.5.5, without the Eiger fallback): the coordinator
  // waits until GST >= the client's DT, takes S = GST as the snapshot time, and every slice returns, per
  // key, the newest version with ut <= S. C2 makes S complete at every slice; the slice's own VV check is a
  // guard for slices whose VV restarted after a crash. A slice's server may crash: the call is resent.

  private void onRotx(Request<RotxReq> req) {
    raiseGst(req.body().getGst());
    long dt = req.body().getDt();
    waitUntil(() -> gst >= dt, () -> rotx(req)); // "wait until GST >= dt"
  }

  private void rotx(Request<RotxReq> req) {
    long s = gst;
    List<String> keys = req.body().getKeysList();
    SliceReq sliceReq = SliceReq.newBuilder().addAllKeys(keys).setSnapshot(s).build();
    List<NodeId> others = keys.stream().map(topology()::partitionOf).filter(p -> p != partition()).distinct()
        .map(p -> new NodeId(dc(), p)).toList();
    slice(keys, s, mine -> {
      if (mine == null) {
        req.fail("snapshot older than pruned versions");
        return;
      }
      callAll(others, sliceReq, SliceReply.class, others.size(), Duration.ofMillis(500)).retryOnTimeout()
          .onQuorum(replies -> {
            RotxReply.Builder reply = RotxReply.newBuilder().addAllItems(mine).setGst(s);
            replies.values().forEach(r -> reply.addAllItems(r.getItemsList()));
            req.reply(reply.build());
          })
          .onFailure(f -> req.fail(f.reason()));
    });
  }

  private void onSlice(Request<SliceReq> req) {
    slice(req.body().getKeysList(), req.body().getSnapshot(), items -> {
      if (items == null) {
        req.fail("snapshot older than pruned versions");
      } else {
        req.reply(SliceReply.newBuilder().addAllItems(items).build());
      }
    });
  }

  /** Slice of the keys hosted here: VV[m] = max(VV[m], S) so later local PUTs get ut > S; wait until VV >= S; read. */
  private void slice(List<String> keys, long s, Consumer<List<Item>> done) {
    List<String> mine = keys.stream().filter(k -> topology().partitionOf(k) == partition()).toList();
    if (mine.isEmpty()) {
      done.accept(List.of());
      return;
    }
    vv[dc()] = Math.max(vv[dc()], s);
    waitUntil(() -> Arrays.stream(vv).allMatch(t -> t >= s), () -> { // "wait until VV >= S"
      if (s < prunedBelow) {
        done.accept(null); // the snapshot may have been pruned: the coordinator fails the transaction
        return;
      }
      List<Item> items = new ArrayList<>();
      for (String key : mine) {
        Item.Builder item = Item.newBuilder().setKey(key);
        store().newest(key, d -> d.getUt() <= s).ifPresent(d -> item.setFound(true).setValue(d.getValue()).setUt(d.getUt()));
        items.add(item.build());
      }
      done.accept(items);
    });
  }
}
