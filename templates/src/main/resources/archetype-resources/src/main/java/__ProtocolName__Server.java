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
 *
 * <p>The paper's other steps have a tool each in the protocol kit (docs/spi.md, "The kit"): "wait until cond" is
 * {@code waitUntil(() -> cond, action)} (re-checked after every event of this node, never polled) or
 * {@code waitUntilClock(micros, action)}; a request another server must answer is {@code call(to, m, Reply.class,
 * timeout)} or {@code callAll(servers, m, Reply.class, needed, timeout)} (the callee registers {@code on.call});
 * a client request another server must handle is {@code forward(to, req, timeout)}; state that must survive a
 * crash is a {@code slot(State.getDefaultInstance())}; {@code incarnation()} numbers this server's starts.
 * protocols/primarybackup uses them.
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
   * request and answers it when the condition holds: waitUntil(...) or waitUntilClock(...), never a sleep or a poll.
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

  /** Replicate(k, d) from a peer: stored once visible(d) holds (at once if it holds now). */
  private void onReplicate(Replicate m, NodeId from) {
    Invariants.check(m.getRecord().getSr() == from.dc(), "replicate from %s carries source replica %s",
        from, m.getRecord().getSr());
    lastUt = Math.max(lastUt, m.getRecord().getUt());
    waitUntil(() -> visible(m.getRecord()), () -> {
      store().put(m.getKey(), m.getRecord());
      store().prune(m.getKey(), r -> true);
    });
  }

  /**
   * TODO the paper's rule for remote versions: when one may become visible (e.g. "its dependencies are here"). Read
   * only this server's state: the kit re-checks it after every event of this node. Eventual: at once.
   */
  private boolean visible(Record d) {
    return true;
  }
}
