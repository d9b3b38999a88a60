package org.kvlab.designer.sim;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Client;
import org.kvlab.api.Handlers;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.NodeId;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.api.VersionKey;
import org.kvlab.clock.HybridLogicalClock;
import org.kvlab.protocols.eventual.GetReply;
import org.kvlab.protocols.eventual.GetReq;
import org.kvlab.protocols.eventual.PutReply;
import org.kvlab.protocols.eventual.PutReq;
import org.kvlab.protocols.eventual.Record;
import org.kvlab.protocols.eventual.Replicate;

/**
 * Eventual consistency broken on purpose, for the Simulate tab's tests (registered for tests only, in
 * {@code src/test/resources/META-INF/services}): now and then (one read in {@link #STALE_EVERY}, drawn from the
 * server's own random source, so a seed decides) a read returns the version before the newest, which the
 * session checker catches as soon as the reading session had seen the newest. Some seeds hit it, some do not.
 * The server overrides {@code toString()}, the hook the simulator shows as the protocol's state.
 */
public final class BrokenEventual implements Protocol {
  static final int STALE_EVERY = 2000;
  static final MessageTypes MESSAGES =
      MessageTypes.of(GetReq.class, GetReply.class, PutReq.class, PutReply.class, Replicate.class);
  static final RecordType<Record> RECORD = RecordType.of(Record.class, r -> VersionKey.of(r.getUt(), r.getSr()));

  @Override
  public String name() {
    return "broken-eventual";
  }

  @Override
  public String summary() {
    return "broken on purpose (designer tests): a read now and then returns the version before the newest";
  }

  @Override
  public MessageTypes messages() {
    return MESSAGES;
  }

  @Override
  public RecordType<? extends Message> record() {
    return RECORD;
  }

  @Override
  public Server<? extends Message> newServer() {
    return new BrokenServer();
  }

  @Override
  public Client newClient() {
    return new Client() {
      @Override
      public CompletableFuture<Optional<ByteString>> get(String key) {
        return call(serverFor(key), GetReq.newBuilder().setKey(key).build(), GetReply.class)
            .thenApply(r -> r.getFound() ? Optional.of(r.getValue()) : Optional.empty());
      }

      @Override
      public CompletableFuture<Void> put(String key, ByteString value) {
        return call(serverFor(key), PutReq.newBuilder().setKey(key).setValue(value).build(), PutReply.class)
            .thenApply(r -> null);
      }
    };
  }

  static final class BrokenServer extends Server<Record> {
    private HybridLogicalClock hlc;
    private long puts;
    private long replicated;
    private long staleReads;

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

    private void onGet(Request<GetReq> req) {
      List<Record> versions = store().versions(req.body().getKey());
      GetReply.Builder reply = GetReply.newBuilder();
      int pick = versions.size() > 1 && random().nextInt(STALE_EVERY) == 0 ? 1 : 0; // BUG: a stale version
      if (pick == 1) {
        staleReads++;
      }
      if (!versions.isEmpty()) {
        Record d = versions.get(pick);
        reply.setFound(true).setValue(d.getValue()).setUt(d.getUt()).setSr(d.getSr());
      }
      req.reply(reply.build());
    }

    private void onPut(Request<PutReq> req) {
      String key = req.body().getKey();
      Record d = Record.newBuilder().setValue(req.body().getValue()).setUt(hlc.now()).setSr(dc()).build();
      store().put(key, d);
      puts++;
      req.reply(PutReply.newBuilder().setUt(d.getUt()).build());
      sendToPeers(Replicate.newBuilder().setKey(key).setRecord(d).build());
    }

    private void onReplicate(Replicate m, NodeId from) {
      store().put(m.getKey(), m.getRecord());
      replicated++;
    }

    @Override
    public String toString() {
      return "puts " + puts + ", replicated in " + replicated + ", stale reads served " + staleReads;
    }
  }
}
