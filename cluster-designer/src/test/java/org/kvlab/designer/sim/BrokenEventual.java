package org.kvlab.designer.sim;

import com.google.protobuf.Message;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.kvlab.api.Client;
import org.kvlab.api.Handlers;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.protocols.eventual.Eventual;
import org.kvlab.protocols.eventual.GetReply;
import org.kvlab.protocols.eventual.GetReq;
import org.kvlab.protocols.eventual.PutReq;
import org.kvlab.protocols.eventual.Record;
import org.kvlab.protocols.eventual.Replicate;

/**
 * Eventual consistency broken on purpose, for the Simulate tab's tests (registered for tests only, in
 * {@code src/test/resources/META-INF/services}). It is {@link Eventual} — its messages, records, client and server
 * code — with one thing changed: now and then (one read in {@link #STALE_EVERY} of a key that has an older
 * version, drawn from the server's own random source, so a seed decides) a read returns the version before the
 * newest, which the session checker catches as soon as the reading session had seen the newest. Some seeds hit
 * it, some do not. Eventual's server keeps only the newest version of a key; this wrapper remembers the one
 * before it (by version order) as the writes and replications go through. The server overrides
 * {@code toString()}, the hook the simulator shows as the protocol's state.
 */
public final class BrokenEventual implements Protocol {
  static final int STALE_EVERY = 2000;
  private final Protocol eventual = new Eventual();

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
    return eventual.messages();
  }

  @Override
  public RecordType<? extends Message> record() {
    return eventual.record();
  }

  @Override
  public Map<String, String> parameters() {
    return eventual.parameters();
  }

  @Override
  public Client newClient() {
    return eventual.newClient();
  }

  @Override
  public Server<? extends Message> newServer() {
    return new BrokenServer(eventual.newServer(), eventual.record());
  }

  /**
   * Eventual's server, bound to this server's context with its handlers passed through: reads may be answered
   * stale, writes and replications are counted and their previous version remembered.
   */
  static final class BrokenServer extends Server<Record> {
    private final Server<? extends Message> eventual;
    private final RecordType<Record> recordType;
    /** Per key: the newest version and the one before it, in version order (either may be null). */
    private final Map<String, Record[]> newestTwo = new HashMap<>();
    private long puts;
    private long replicated;
    private long staleReads;

    @SuppressWarnings("unchecked")
    BrokenServer(Server<? extends Message> eventual, RecordType<? extends Message> recordType) {
      this.eventual = eventual;
      this.recordType = (RecordType<Record>) recordType;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected void register(Handlers on) {
      eventual.bind(context(), new Handlers() {
        @Override
        public <Q extends Message> void request(Class<Q> type, RequestHandler<Q> handler) {
          if (type == GetReq.class) {
            on.request(GetReq.class, req -> onGet(req, (RequestHandler<GetReq>) handler));
          } else if (type == PutReq.class) {
            on.request(PutReq.class, req -> {
              ((RequestHandler<PutReq>) handler).handle(req);
              puts++;
              store().newest(req.body().getKey()).ifPresent(r -> remember(req.body().getKey(), r));
            });
          } else {
            on.request(type, handler);
          }
        }

        @Override
        public <M extends Message> void message(Class<M> type, MessageHandler<M> handler) {
          if (type == Replicate.class) {
            on.message(Replicate.class, (m, from) -> {
              ((MessageHandler<Replicate>) handler).handle(m, from);
              replicated++;
              remember(m.getKey(), m.getRecord());
            });
          } else {
            on.message(type, handler);
          }
        }

        @Override
        public void every(Duration period, Runnable task) {
          on.every(period, task);
        }
      });
    }

    @Override
    protected void onStart() {
      eventual.start();
    }

    private int compare(Record a, Record b) {
      return Arrays.compareUnsigned(recordType.versionKey().apply(a), recordType.versionKey().apply(b));
    }

    /** Keeps the two newest versions of {@code key} seen (Eventual's store keeps only the newest). */
    private void remember(String key, Record r) {
      Record[] two = newestTwo.computeIfAbsent(key, k -> new Record[2]);
      if (two[0] == null) {
        two[0] = r;
      } else if (compare(r, two[0]) > 0) {
        two[1] = two[0];
        two[0] = r;
      } else if (compare(r, two[0]) < 0 && (two[1] == null || compare(r, two[1]) > 0)) {
        two[1] = r;
      }
    }

    private void onGet(Request<GetReq> req, Handlers.RequestHandler<GetReq> eventualGet) {
      Record[] two = newestTwo.get(req.body().getKey());
      if (two != null && two[1] != null && random().nextInt(STALE_EVERY) == 0) { // BUG: a stale version
        staleReads++;
        Record d = two[1];
        req.reply(GetReply.newBuilder().setFound(true).setValue(d.getValue()).setUt(d.getUt()).setSr(d.getSr()).build());
        return;
      }
      eventualGet.handle(req);
    }

    @Override
    public String toString() {
      return "puts " + puts + ", replicated in " + replicated + ", stale reads served " + staleReads;
    }
  }
}
