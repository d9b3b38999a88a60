package ${package};

import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;
import org.kvlab.api.Server;

/**
 * ${ProtocolName}, server side: one handler per event of the paper. Handlers of one node run one at a
 * time on one thread and never block; time, randomness, timers, sends and storage come from the context
 * (the simulator replays them). Starts as last-writer-wins with asynchronous replication (Eventual).
 */
final class ${ProtocolName}Server extends Server<Record> {
  private long lastUt; // the last update time this server gave out

  @Override
  protected void register(Handlers on) {
    on.request(GetReq.class, this::onGet);
    on.request(PutReq.class, this::onPut);
    on.message(Replicate.class, this::onReplicate);
    // TODO periodic tasks of the paper (heartbeats, stabilization): on.every(params().duration("heartbeat", ...), ...)
  }

  /** GET(k). TODO the paper's read rule: which version is visible (e.g. "newest with ut <= GST or local"). */
  private void onGet(Request<GetReq> req) {
    GetReply.Builder reply = GetReply.newBuilder();
    store().newest(req.body().getKey()).ifPresent(d ->
        reply.setFound(true).setValue(d.getValue()).setUt(d.getUt()).setSr(d.getSr()));
    req.reply(reply.build());
  }

  /**
   * PUT(k, v): stamp, store, answer, replicate. TODO the paper's write rule; a "wait until" keeps the
   * request and answers it later (after(...) or a queue), never sleeps.
   */
  private void onPut(Request<PutReq> req) {
    String key = req.body().getKey();
    long ut = Math.max(nowMicros(), lastUt + 1);
    lastUt = ut;
    Record d = Record.newBuilder().setValue(req.body().getValue()).setUt(ut).setSr(dc()).build();
    store().put(key, d);
    store().prune(key, r -> true); // only the newest version is read; TODO keep what the paper's reads need
    req.reply(PutReply.newBuilder().setUt(ut).build());
    sendToPeers(Replicate.newBuilder().setKey(key).setRecord(d).build());
  }

  /** Replicate(k, d) from a peer. TODO the paper's rule for remote versions (when they become visible). */
  private void onReplicate(Replicate m, NodeId from) {
    Invariants.check(m.getRecord().getSr() == from.dc(), "replicate from %s carries source replica %s",
        from, m.getRecord().getSr());
    lastUt = Math.max(lastUt, m.getRecord().getUt());
    store().put(m.getKey(), m.getRecord());
    store().prune(m.getKey(), r -> true);
  }
}
