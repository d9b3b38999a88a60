package org.kvlab.protocols.eventual;

import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.clock.HybridLogicalClock;

/**
 * Eventual consistency, server side (seed 003 §3.4.1): "send every new update to the other replicas; a
 * replica makes a version visible as soon as it receives it; all servers use the same deterministic
 * winner function (last writer wins)".
 */
final class EventualServer extends Server<Record> {
  private HybridLogicalClock hlc; // unique, clock-close update times: (physical millis, counter)

  @Override
  protected void register(Handlers on) {
    on.request(GetReq.class, this::onGet);
    on.request(PutReq.class, this::onPut);
    on.message(Replicate.class, this::onReplicate);
  }

  @Override
  protected void onStart() {
    hlc = new HybridLogicalClock(clock());
  }

  /** GET(k): the newest version; last writer wins. */
  private void onGet(Request<GetReq> req) {
    Record d = store().newest(req.body().getKey()).orElse(null);
    req.reply(d == null ? GetReply.getDefaultInstance()
        : GetReply.newBuilder().setFound(true).setValue(d.getValue()).setUt(d.getUt()).setSr(d.getSr()).build());
  }

  /** PUT(k, v): stamp, store, answer; then replicate to the peers asynchronously. */
  private void onPut(Request<PutReq> req) {
    String key = req.body().getKey();
    Record d = Record.newBuilder().setValue(req.body().getValue()).setUt(hlc.now()).setSr(dc()).build();
    store().put(key, d);
    store().prune(key, r -> true); // only the newest version is ever read
    req.reply(PutReply.newBuilder().setUt(d.getUt()).build());
    if (!peers().isEmpty()) { // one datacenter: nobody to replicate to, nothing to build
      sendToPeers(Replicate.newBuilder().setKey(key).setRecord(d).build());
    }
  }

  /** Replicate(k, d) from a peer: visible at once; the store keeps the last writer. */
  private void onReplicate(Replicate m, NodeId from) {
    Invariants.check(m.getRecord().getSr() == from.dc(), "replicate from %s carries source replica %s",
        from, m.getRecord().getSr());
    store().put(m.getKey(), m.getRecord());
    store().prune(m.getKey(), r -> true);
  }
}
