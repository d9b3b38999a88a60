package org.kvlab.protocols.eventual;

import com.google.protobuf.Message;
import java.util.List;
import org.kvlab.api.Client;
import org.kvlab.api.Handlers;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.NodeId;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Request;
import org.kvlab.api.Server;

/**
 * Deliberately broken variants of Eventual, to show the simulator and checkers catch real bugs.
 * Each differs from {@link EventualServer} in one rule.
 */
final class Mutants {
  private Mutants() {}

  /** Base for mutants: the Eventual plug-in with another server. */
  abstract static class Mutant implements Protocol {
    @Override
    public MessageTypes messages() {
      return Eventual.MESSAGES;
    }

    @Override
    public RecordType<? extends Message> record() {
      return Eventual.RECORD;
    }

    @Override
    public Client newClient() {
      return new EventualClient();
    }

    @Override
    public String summary() {
      return "broken on purpose";
    }
  }

  /**
   * Bug: replicas apply replicated writes in arrival order instead of last-writer-wins, so two
   * datacenters that take concurrent writes of one key can settle on different values.
   * Expected catch: convergence.
   */
  static final class LastArrivalWins extends Mutant {
    @Override
    public String name() {
      return "eventual-last-arrival-wins";
    }

    @Override
    public Server<? extends Message> newServer() {
      return new Server<Record>() {
        private long arrivals;

        @Override
        protected void register(Handlers on) {
          on.request(GetReq.class, this::onGet);
          on.request(PutReq.class, this::onPut);
          on.message(Replicate.class, this::onReplicate);
        }

        private Record stamp(com.google.protobuf.ByteString value, int sr) {
          return Record.newBuilder().setValue(value).setUt(++arrivals).setSr(sr).build(); // BUG: local order
        }

        private void onGet(Request<GetReq> req) {
          GetReply.Builder reply = GetReply.newBuilder();
          store().newest(req.body().getKey()).ifPresent(d -> reply.setFound(true).setValue(d.getValue()));
          req.reply(reply.build());
        }

        private void onPut(Request<PutReq> req) {
          Record d = stamp(req.body().getValue(), dc());
          store().put(req.body().getKey(), d);
          req.reply(PutReply.newBuilder().setUt(d.getUt()).build());
          sendToPeers(Replicate.newBuilder().setKey(req.body().getKey()).setRecord(d).build());
        }

        private void onReplicate(Replicate m, NodeId from) {
          store().put(m.getKey(), stamp(m.getRecord().getValue(), m.getRecord().getSr()));
        }
      };
    }
  }

  /**
   * Bug: a read is served from a lagging copy — every other read skips the newest version of the key.
   * Expected catch: session (read-your-writes / monotonic reads).
   */
  static final class StaleReads extends Mutant {
    @Override
    public String name() {
      return "eventual-stale-reads";
    }

    @Override
    public Server<? extends Message> newServer() {
      return new Server<Record>() {
        private final org.kvlab.clock.HybridLogicalClock[] hlc = new org.kvlab.clock.HybridLogicalClock[1];
        private long reads;

        @Override
        protected void register(Handlers on) {
          on.request(GetReq.class, this::onGet);
          on.request(PutReq.class, this::onPut);
          on.message(Replicate.class, (m, from) -> store().put(m.getKey(), m.getRecord()));
        }

        @Override
        protected void onStart() {
          hlc[0] = new org.kvlab.clock.HybridLogicalClock(clock());
        }

        private void onGet(Request<GetReq> req) {
          List<Record> versions = store().versions(req.body().getKey());
          int pick = (reads++ % 2 == 1 && versions.size() > 1) ? 1 : 0; // BUG: sometimes the previous version
          GetReply.Builder reply = GetReply.newBuilder();
          if (!versions.isEmpty()) {
            reply.setFound(true).setValue(versions.get(pick).getValue());
          }
          req.reply(reply.build());
        }

        private void onPut(Request<PutReq> req) {
          Record d = Record.newBuilder().setValue(req.body().getValue()).setUt(hlc[0].now()).setSr(dc()).build();
          store().put(req.body().getKey(), d);
          req.reply(PutReply.newBuilder().setUt(d.getUt()).build());
          sendToPeers(Replicate.newBuilder().setKey(req.body().getKey()).setRecord(d).build());
        }
      };
    }
  }
}
