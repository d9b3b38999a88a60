package org.kvlab.protocols.cops;

import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.kvlab.api.Acks;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.api.Slot;

/**
 * COPS server (Lloyd et al., SOSP 2011; seed 003 §3.2.1): a local PUT is visible at once and replicated
 * with its dependencies; a replicated version waits until every dependency is visible in this datacenter,
 * asked of the partitions that hold them (dep_check), and then becomes visible.
 */
class CopsServer extends Server<Record> {
  static final int VISIBLE = 1;
  static final int STABLE = 2;
  /** Where kvlab kept this server's state among the store's keys before the protocol kit: such a store is refused. */
  static final String OLD_KEYS = "\u0000cops.";

  private Duration depRetry;
  private Slot<Clock> clock;             // the last version this server made
  private Slot<Replication> replication; // per writing datacenter the newest version applied; the versions waiting
  private long lastVer;                  // largest version this server has seen or made
  private long[] received;               // per writing datacenter: newest version received (applied or waiting)
  private final Map<Dep, Acks<Integer>> stability = new HashMap<>(); // own writes: datacenters that applied them

  @Override
  protected void register(Handlers on) {
    on.request(GetReq.class, this::onGet);
    on.request(PutReq.class, this::onPut);
    on.message(Replicate.class, this::onReplicate);
    on.call(DepCheck.class, this::onDepCheck);
    on.message(Visible.class, (m, from) -> onVisibleAt(m.getVersion(), from.dc()));
  }

  @Override
  protected void onStart() {
    for (String key : List.of(OLD_KEYS + "clock", OLD_KEYS + "pending")) { // a store that took a write or a replica
      Invariants.check(store().newest(key).isEmpty(), "the store of %s holds COPS's state under the key \\0cops.%s,"
          + " where kvlab kept it before the protocol kit; this version keeps it in its slots and would start without"
          + " it. Fix: start on a fresh store (./kvlab local down --wipe, or delete the server's data directory)",
          self(), key.substring(OLD_KEYS.length()));
    }
    depRetry = params().duration("depRetry", Duration.ofMillis(500));
    clock = slot(Clock.getDefaultInstance());
    replication = slot(Replication.getDefaultInstance());
    lastVer = Math.max(nowMicros(), clock.get().getLastVer());
    if (replication.get().getAppliedCount() == 0) { // a fresh store: nothing applied yet
      replication.set(Replication.newBuilder().addAllApplied(Collections.nCopies(topology().datacenters(), 0L)).build());
    }
    received = replication.get().getAppliedList().stream().mapToLong(Long::longValue).toArray();
    // After a restart the waiting versions are checked again, oldest first (their checks were lost with the crash).
    replication.get().getWaitingList().forEach(this::await);
  }

  /** get(k): the newest visible version; stable tells the client it need not depend on it. */
  private void onGet(Request<GetReq> req) {
    GetReply.Builder reply = GetReply.newBuilder();
    store().newest(req.body().getKey()).ifPresent(r -> reply
        .setFound(true).setValue(r.getValue()).setVer(r.getVer()).setSr(r.getSr()).setStable(r.getState() == STABLE));
    req.reply(reply.build());
  }

  /**
   * put_after(k, v, deps): a version above the clock, every dependency and every version of k; visible
   * here at once (the client read or wrote its dependencies in this datacenter); replicated with deps.
   */
  private void onPut(Request<PutReq> req) {
    String key = req.body().getKey();
    long ver = Math.max(nowMicros(), lastVer + 1);
    for (Dep d : req.body().getDepsList()) {
      ver = Math.max(ver, d.getVer() + 1);
    }
    ver = Math.max(ver, store().newest(key).map(r -> r.getVer() + 1).orElse(0L));
    lastVer = ver;
    Record r = Record.newBuilder().setValue(req.body().getValue()).setVer(ver).setSr(dc()).setState(VISIBLE).build();
    Dep version = Dep.newBuilder().setKey(key).setVer(ver).setSr(dc()).build();
    sendToPeers(Replicate.newBuilder().setKey(key).setValue(r.getValue()).setVer(ver).setSr(dc())
        .addAllDeps(req.body().getDepsList()).build());
    clock.set(Clock.newBuilder().setLastVer(ver).build());
    store().put(key, r);
    prune(key);
    req.reply(PutReply.newBuilder().setVer(ver).build());
    List<Integer> others = peers().stream().map(NodeId::dc).toList();
    stability.put(version, Acks.all(others, () -> markStable(version, r)));
  }

  /** Replicate from the writing datacenter: kept in the slot while it waits for its dependencies. */
  private void onReplicate(Replicate m, NodeId from) {
    Invariants.check(m.getSr() == from.dc(), "replicate from %s carries source replica %s", from, m.getSr());
    lastVer = Math.max(lastVer, m.getVer());
    if (m.getVer() <= applied(m.getSr())) { // a duplicate of an applied version
      send(from, Visible.newBuilder().setVersion(versionOf(m)).build());
    } else if (m.getVer() > received[m.getSr()]) { // else a duplicate of a version still waiting
      replication.set(replication.get().toBuilder().addWaiting(m).build());
      await(m);
    }
  }

  /**
   * A replicated version waits until each of its dependencies is visible in this datacenter (dep_check) and the
   * version its datacenter made before it is applied here, then becomes visible: a datacenter's versions are applied
   * in the order it made them, so "applied[sr] &gt;= ver" says exactly which of sr's versions are here.
   */
  private void await(Replicate m) {
    long before = received[m.getSr()];
    received[m.getSr()] = m.getVer();
    // In the client's order: a message's hashCode() mixes in its descriptor's identity hash, so a HashSet's order
    // (and with it the order of the dep_checks) would change from one JVM to the next and a seed would not replay.
    Set<Dep> unchecked = new LinkedHashSet<>(dependenciesToCheck(m));
    for (Dep d : List.copyOf(unchecked)) {
      depCheck(d, () -> unchecked.remove(d));
    }
    waitUntil(() -> unchecked.isEmpty() && applied(m.getSr()) == before, () -> apply(m));
  }

  /** The dependencies a replicated version waits for (all of them; a test mutant skips them). */
  List<Dep> dependenciesToCheck(Replicate m) {
    return m.getDepsList();
  }

  /** dep_check(d) at the partition of this datacenter that holds d's key; {@code then} runs once d is visible there. */
  private void depCheck(Dep d, Runnable then) {
    NodeId holder = topology().serverFor(d.getKey(), dc());
    if (holder.equals(self())) {
      waitUntil(() -> isApplied(d), then);
    } else { // asked again every depRetry: the holder may restart and forget the check
      call(holder, DepCheck.newBuilder().setDep(d).build(), DepOk.class, depRetry).retryOnTimeout()
          .onReply(ok -> then.run());
    }
  }

  /** dep_check(d) from another partition of this datacenter: answered once d is visible here. */
  private void onDepCheck(Request<DepCheck> req) {
    Dep d = req.body().getDep();
    Invariants.check(req.from().map(NodeId::dc).orElse(-1) == dc(), "dep_check of %s from %s, not from datacenter %s",
        d, req.from(), dc());
    waitUntil(() -> isApplied(d), () -> req.reply(DepOk.getDefaultInstance()));
  }

  /** d is here: written here, or applied here (versions of one datacenter are applied in order). */
  private boolean isApplied(Dep d) {
    return d.getSr() == dc() || applied(d.getSr()) >= d.getVer();
  }

  private long applied(int sr) {
    return replication.get().getApplied(sr);
  }

  /** Every dependency is visible here: the version becomes visible (without its dependency list: garbage). */
  private void apply(Replicate m) {
    int sr = m.getSr();
    Invariants.check(m.getVer() > applied(sr), "version %s of dc %s applied after %s", m.getVer(), sr, applied(sr));
    Replication.Builder r = replication.get().toBuilder().setApplied(sr, m.getVer());
    int oldest = 0;
    while (r.getWaiting(oldest).getSr() != sr) {
      oldest++;
    }
    Invariants.check(r.getWaiting(oldest).equals(m), "dc %s's oldest waiting version is not the one applied", sr);
    replication.set(r.removeWaiting(oldest).build());
    store().put(m.getKey(), Record.newBuilder().setValue(m.getValue()).setVer(m.getVer()).setSr(sr)
        .setState(VISIBLE).build());
    prune(m.getKey());
    send(topology().node(sr, partition()), Visible.newBuilder().setVersion(versionOf(m)).build());
  }

  private static Dep versionOf(Replicate m) {
    return Dep.newBuilder().setKey(m.getKey()).setVer(m.getVer()).setSr(m.getSr()).build();
  }

  /** Own write applied in datacenter dc; once every datacenter has it, it is stable. */
  private void onVisibleAt(Dep version, int otherDc) {
    Acks<Integer> acks = stability.get(version);
    if (acks != null) {
      acks.ack(otherDc);
    }
  }

  private void markStable(Dep version, Record visible) {
    stability.remove(version);
    store().put(version.getKey(), visible.toBuilder().setState(STABLE).build());
    prune(version.getKey());
  }

  /** Keeps the newest version only. */
  private void prune(String key) {
    store().prune(key, r -> true);
  }

  static int compare(Dep a, Dep b) {
    int c = Long.compare(a.getVer(), b.getVer());
    return c != 0 ? c : Integer.compare(a.getSr(), b.getSr());
  }
}
