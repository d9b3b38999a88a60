package org.kvlab.protocols.cops;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.kvlab.api.Acks;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;
import org.kvlab.api.Server;

/**
 * COPS server (Lloyd et al., SOSP 2011; seed 003 §3.2.1): a local PUT is visible at once and replicated
 * with its dependencies; a replicated version is stored pending and becomes visible when every
 * dependency is visible in this datacenter, asked of the partitions that hold them (dep_check, a kit call).
 *
 * <p>No wait per item: the host checks every pending {@code waitUntil} after every event, so one per waiting version
 * or held check would make each event cost as much as the queue is long under load. Waiting versions are indexed by
 * the dependencies they wait for, held checks by the version they wait for; {@link #apply} answers exactly the ones it
 * makes true.
 */
class CopsServer extends Server<Record> {
  static final int VISIBLE = 1;
  static final int STABLE = 2;
  static final int INDEX = 3;
  static final int MARK = 4;
  /** Reserved key whose versions are the replicated versions not applied yet (a restarted server checks them again). */
  static final String PENDING_INDEX = "\u0000cops.pending";
  /** Reserved key holding the last version this server made (versions stay unique across restarts). */
  static final String CLOCK = "\u0000cops.clock";
  /** Reserved key prefix: "\0cops.applied.<dc>" holds the newest version of datacenter dc applied here. */
  static final String APPLIED = "\u0000cops.applied.";

  private long lastVer;                                            // largest version this server has seen or made
  private long[] applied;
  private Duration depRetry;                                          // per writing datacenter: newest version applied here
  private final Map<Dep, Waiting> waiting = new LinkedHashMap<>(); // replicated versions not applied yet, by version
  // the same, by the dependency they wait for; insertion-ordered: a protobuf message's hashCode() mixes in its
  // descriptor's identity hash, so a HashMap's order (iterated when checks are resent) would change from one JVM to the
  // next and a seed would not replay
  private final Map<Dep, List<Waiting>> byDep = new LinkedHashMap<>();
  // dep checks asked of this server, not yet true: per writing datacenter, by the version they wait for (sorted)
  private List<NavigableMap<Long, List<Runnable>>> held;
  private final Map<Dep, Acks<Integer>> stability = new HashMap<>(); // own writes: datacenters that applied them

  /** A replicated version and the dependencies it still waits for. */
  private record Waiting(Dep version, Replicate m, Acks<Dep> deps) {}

  @Override
  protected void register(Handlers on) {
    depRetry = params().duration("depRetry", Duration.ofMillis(500));
    on.request(GetReq.class, this::onGet);
    on.request(PutReq.class, this::onPut);
    on.message(Replicate.class, this::onReplicate);
    on.call(DepCheck.class, this::onDepCheck);
    on.message(Visible.class, (m, from) -> onVisibleAt(m.getVersion(), from.dc()));
  }

  @Override
  protected void onStart() {
    lastVer = Math.max(nowMicros(), store().newest(CLOCK).map(Record::getVer).orElse(0L));
    applied = new long[topology().datacenters()];
    held = new ArrayList<>();
    for (int k = 0; k < applied.length; k++) {
      applied[k] = store().newest(APPLIED + k).map(Record::getVer).orElse(0L);
      held.add(new TreeMap<>());
    }
    recover(); // before any message: the versions waiting before the crash come first in their datacenter's order
  }

  /** After a restart: the pending versions of the index are checked again, oldest first (their checks were lost). */
  private void recover() {
    List<Record> index = new ArrayList<>(store().versions(PENDING_INDEX));
    java.util.Collections.reverse(index); // versions() is newest first; a datacenter's versions are applied in order
    for (Record e : index) {
      Dep version = Dep.newBuilder().setKey(e.getKey()).setVer(e.getVer()).setSr(e.getSr()).build();
      if (applied[e.getSr()] < e.getVer() && !waiting.containsKey(version)) {
        await(Replicate.newBuilder().setKey(e.getKey()).setValue(e.getValue()).setVer(e.getVer()).setSr(e.getSr())
            .addAllDeps(e.getDepsList()).build());
      }
    }
  }

  /** get(k): the newest visible version; stable tells the client it need not depend on it. */
  private void onGet(Request<GetReq> req) {
    GetReply.Builder reply = GetReply.newBuilder();
    store().newest(req.body().getKey(), r -> r.getState() == VISIBLE || r.getState() == STABLE).ifPresent(r -> reply
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
    store().put(CLOCK, Record.newBuilder().setVer(ver).setState(MARK).build());
    store().prune(CLOCK, x -> true);
    store().put(key, r);
    prune(key);
    req.reply(PutReply.newBuilder().setVer(ver).build());
    List<Integer> others = peers().stream().map(NodeId::dc).toList();
    stability.put(version, Acks.all(others, () -> markStable(version, r)));
  }

  /** Replicate from the writing datacenter: stored pending (and indexed), applied once its dependencies are. */
  private void onReplicate(Replicate m, NodeId from) {
    Invariants.check(m.getSr() == from.dc(), "replicate from %s carries source replica %s", from, m.getSr());
    Dep version = Dep.newBuilder().setKey(m.getKey()).setVer(m.getVer()).setSr(m.getSr()).build();
    lastVer = Math.max(lastVer, m.getVer());
    if (waiting.containsKey(version)) {
      return; // a duplicate of a version still waiting
    }
    if (applied[m.getSr()] >= m.getVer()) { // a duplicate of an applied version
      send(from, Visible.newBuilder().setVersion(version).build());
      return;
    }
    store().put(PENDING_INDEX, Record.newBuilder().setKey(m.getKey()).setValue(m.getValue()).setVer(m.getVer())
        .setSr(m.getSr()).setState(INDEX).addAllDeps(m.getDepsList()).build());
    await(m);
  }

  /** Starts the dependency checks of a pending version (the paper's dep_check to the partition of each dependency). */
  private void await(Replicate m) {
    Dep version = Dep.newBuilder().setKey(m.getKey()).setVer(m.getVer()).setSr(m.getSr()).build();
    List<Dep> deps = dependenciesToCheck(m);
    Waiting w = new Waiting(version, m, Acks.all(deps, () -> applyInOrder(m.getSr())));
    waiting.put(version, w);
    List<Dep> asked = new ArrayList<>(); // one check per dependency, however many versions wait for it
    for (Dep d : deps) {
      List<Waiting> ws = byDep.computeIfAbsent(d, x -> new ArrayList<>());
      if (ws.isEmpty()) {
        asked.add(d);
      }
      ws.add(w);
    }
    for (Dep d : asked) {
      check(d);
    }
    applyInOrder(m.getSr());
  }

  /** The dependencies a replicated version waits for (all of them; a test mutant skips them). */
  List<Dep> dependenciesToCheck(Replicate m) {
    return m.getDepsList();
  }

  /**
   * Applies the versions of datacenter sr in the order they arrived (the order sr made them), each once
   * its dependencies are visible: then "applied[sr] >= ver" says exactly which of sr's versions are here.
   */
  private void applyInOrder(int sr) {
    boolean progress = true;
    while (progress) {
      progress = false;
      for (Waiting w : waiting.values()) {
        if (w.version().getSr() == sr) {
          if (w.deps().done()) {
            apply(w);
            progress = true;
          }
          break; // only the oldest of sr's versions may be applied
        }
      }
    }
  }

  /** dep_check(d) at the partition of this datacenter that holds d's key; asked again every depRetry (a restart forgets it). */
  private void check(Dep d) {
    NodeId holder = topology().serverFor(d.getKey(), dc());
    if (holder.equals(self())) {
      whenApplied(d, () -> onDepOk(d));
    } else {
      call(holder, DepCheck.newBuilder().setDep(d).build(), DepOk.class, depRetry).retryOnTimeout()
          .onReply(ok -> onDepOk(d));
    }
  }

  /** dep_check(d) from a partition of this datacenter: answered now if d is applied here, else when it is. */
  private void onDepCheck(Request<DepCheck> req) {
    Invariants.check(req.from().map(n -> n.dc() == dc()).orElse(false), "dependency check from %s, not a server of"
        + " datacenter %s", req.from(), (Object) dc());
    Dep d = req.body().getDep();
    whenApplied(d, () -> req.reply(DepOk.newBuilder().setDep(d).build()));
  }

  /** Runs {@code answer} now if d is applied here, else from the {@link #apply} that applies it. */
  private void whenApplied(Dep d, Runnable answer) {
    if (isApplied(d)) {
      answer.run();
    } else {
      held.get(d.getSr()).computeIfAbsent(d.getVer(), x -> new ArrayList<>()).add(answer);
    }
  }

  /** d is here: written here, or applied here (versions of one datacenter are applied in order). */
  private boolean isApplied(Dep d) {
    return d.getSr() == dc() || applied[d.getSr()] >= d.getVer();
  }

  private void onDepOk(Dep d) {
    List<Waiting> ws = byDep.remove(d);
    if (ws != null) {
      for (Waiting w : ws) {
        w.deps().ack(d);
      }
    }
  }

  /** Every dependency is visible here: the version becomes visible (without its dependency list: garbage). */
  private void apply(Waiting w) {
    Replicate m = w.m();
    Invariants.check(m.getVer() > applied[m.getSr()], "version %s of dc %s applied after %s", m.getVer(), m.getSr(),
        applied[m.getSr()]);
    waiting.remove(w.version());
    applied[m.getSr()] = m.getVer();
    store().put(APPLIED + m.getSr(), Record.newBuilder().setVer(m.getVer()).setSr(m.getSr()).setState(MARK).build());
    store().prune(APPLIED + m.getSr(), x -> true);
    store().put(m.getKey(), Record.newBuilder().setValue(m.getValue()).setVer(m.getVer()).setSr(m.getSr())
        .setState(VISIBLE).build());
    prune(m.getKey());
    store().prune(PENDING_INDEX, e -> applied[e.getSr()] >= e.getVer());
    send(topology().node(m.getSr(), partition()), Visible.newBuilder().setVersion(w.version()).build());
    // Answered after the tables are updated: answering this server itself may apply more (and re-enter here).
    NavigableMap<Long, List<Runnable>> now = held.get(m.getSr()).headMap(m.getVer(), true);
    List<Runnable> answers = new ArrayList<>();
    now.values().forEach(answers::addAll);
    now.clear();
    answers.forEach(Runnable::run);
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

  /** Keeps the newest visible version and the pending ones above it. */
  private void prune(String key) {
    store().prune(key, r -> r.getState() >= VISIBLE);
  }

  static int compare(Dep a, Dep b) {
    int c = Long.compare(a.getVer(), b.getVer());
    return c != 0 ? c : Integer.compare(a.getSr(), b.getSr());
  }
}
