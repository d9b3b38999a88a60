package org.kvlab.testing;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
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
import org.kvlab.testing.kit.KitGet;
import org.kvlab.testing.kit.KitGetReply;
import org.kvlab.testing.kit.KitPut;
import org.kvlab.testing.kit.KitPutReply;
import org.kvlab.testing.kit.KitRecord;

/**
 * A test protocol whose server answers by the key's prefix, to test how outcomes travel (simulator and
 * real runtime alike):
 *
 * <ul>
 *   <li>{@code fail/...}: {@link Request#fail} with a reason that says "timed out" (a definite failure
 *       all the same); nothing is stored;
 *   <li>{@code unknown/...}: a PUT is stored, then answered {@link Request#unknown}; a GET is answered
 *       unknown;
 *   <li>{@code held/...}: a PUT is stored and never answered;
 *   <li>{@code never/...}: the client's future never completes (no request is sent);
 *   <li>anything else: an ordinary store.
 * </ul>
 *
 * With {@code primaryInDc0}, every session calls the server of datacenter 0 (a primary), so sessions
 * of other datacenters cross the WAN.
 */
public final class OutcomeKit implements Protocol {
  public static final String FAIL_REASON = "replica 1_0 did not confirm: timed out after 100 ms";

  private final boolean primaryInDc0;

  public OutcomeKit() {
    this(false);
  }

  public OutcomeKit(boolean primaryInDc0) {
    this.primaryInDc0 = primaryInDc0;
  }

  @Override
  public String name() {
    return "outcomekit";
  }

  @Override
  public String summary() {
    return "framework test protocol: answers fail, unknown or never by key prefix";
  }

  @Override
  public MessageTypes messages() {
    return Testkit.MESSAGES;
  }

  @Override
  public RecordType<KitRecord> record() {
    return RecordType.of(KitRecord.class, r -> VersionKey.of(r.getUt(), r.getSr()));
  }

  @Override
  public Server<KitRecord> newServer() {
    return new OutcomeServer();
  }

  @Override
  public Client newClient() {
    return new OutcomeClient(primaryInDc0);
  }

  static final class OutcomeServer extends Server<KitRecord> {
    private final List<Request<KitPut>> held = new ArrayList<>();
    private long lastUt;

    @Override
    protected void register(Handlers on) {
      on.request(KitPut.class, this::onPut);
      on.request(KitGet.class, this::onGet);
    }

    private void onPut(Request<KitPut> r) {
      String key = r.body().getKey();
      if (key.startsWith("fail/")) {
        r.fail(FAIL_REASON);
        return;
      }
      lastUt = Math.max(lastUt + 1, nowMicros());
      store().put(key, KitRecord.newBuilder().setValue(r.body().getValue()).setUt(lastUt).setSr(dc()).build());
      if (key.startsWith("unknown/")) {
        r.unknown("stored on " + self() + "; replication not confirmed");
      } else if (key.startsWith("held/")) {
        held.add(r); // never answered
      } else {
        r.reply(KitPutReply.newBuilder().setUt(lastUt).build());
      }
    }

    private void onGet(Request<KitGet> r) {
      String key = r.body().getKey();
      if (key.startsWith("fail/")) {
        r.fail(FAIL_REASON);
      } else if (key.startsWith("unknown/")) {
        r.unknown("read of " + key + " not confirmed");
      } else {
        KitGetReply.Builder b = KitGetReply.newBuilder();
        store().newest(key).ifPresent(v -> b.setFound(true).setValue(v.getValue()));
        r.reply(b.build());
      }
    }
  }

  static final class OutcomeClient extends Client {
    private final boolean primaryInDc0;

    OutcomeClient(boolean primaryInDc0) {
      this.primaryInDc0 = primaryInDc0;
    }

    private NodeId target(String key) {
      return primaryInDc0 ? topology().serverFor(key, 0) : serverFor(key);
    }

    @Override
    public CompletableFuture<Optional<ByteString>> get(String key) {
      if (key.startsWith("never/")) {
        return new CompletableFuture<>();
      }
      return call(target(key), KitGet.newBuilder().setKey(key).build(), KitGetReply.class)
          .thenApply(r -> r.getFound() ? Optional.of(r.getValue()) : Optional.empty());
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteString value) {
      if (key.startsWith("never/")) {
        return new CompletableFuture<>();
      }
      return call(target(key), KitPut.newBuilder().setKey(key).setValue(value).build(), KitPutReply.class)
          .thenApply(r -> null);
    }
  }
}
