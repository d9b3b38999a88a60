package org.kvlab.testing;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
import org.kvlab.testing.kit.Echo;
import org.kvlab.testing.kit.EchoReply;
import org.kvlab.testing.kit.KitGet;
import org.kvlab.testing.kit.KitGetReply;
import org.kvlab.testing.kit.KitPut;
import org.kvlab.testing.kit.KitPutReply;
import org.kvlab.testing.kit.KitRecord;
import org.kvlab.testing.kit.Received;
import org.kvlab.testing.kit.ReceivedReply;
import org.kvlab.testing.kit.SendSeq;
import org.kvlab.testing.kit.SendSeqReply;
import org.kvlab.testing.kit.Seq;

/** A protocol for testing the framework: echo, numbered peer messages, and a local store. */
public final class Testkit implements Protocol {
  public static final MessageTypes MESSAGES = MessageTypes.of(Echo.class, EchoReply.class, SendSeq.class,
      SendSeqReply.class, Received.class, ReceivedReply.class, Seq.class, KitPut.class, KitPutReply.class,
      KitGet.class, KitGetReply.class, org.kvlab.testing.kit.ClockReq.class, org.kvlab.testing.kit.ClockReply.class);

  @Override
  public String name() {
    return "testkit";
  }

  @Override
  public String summary() {
    return "framework test protocol";
  }

  @Override
  public MessageTypes messages() {
    return MESSAGES;
  }

  @Override
  public RecordType<KitRecord> record() {
    return RecordType.of(KitRecord.class, r -> VersionKey.of(r.getUt(), r.getSr()));
  }

  @Override
  public Server<KitRecord> newServer() {
    return new KitServer();
  }

  @Override
  public Client newClient() {
    return new KitClient();
  }

  static final class KitServer extends Server<KitRecord> {
    private final Map<NodeId, List<Long>> received = new HashMap<>();
    private final Map<NodeId, Long> nextToSend = new HashMap<>();
    private long lastUt;

    @Override
    protected void register(Handlers on) {
      on.request(Echo.class, r -> r.reply(EchoReply.newBuilder().setPayload(r.body().getPayload()).build()));
      on.request(SendSeq.class, this::onSendSeq);
      on.request(Received.class, this::onReceived);
      on.message(Seq.class, (m, from) -> received.computeIfAbsent(from, f -> new ArrayList<>()).add(m.getN()));
      on.request(KitPut.class, this::onPut);
      on.request(org.kvlab.testing.kit.ClockReq.class,
          r -> r.reply(org.kvlab.testing.kit.ClockReply.newBuilder().setMillis(now()).build()));
      on.request(KitGet.class, r -> {
        KitGetReply.Builder b = KitGetReply.newBuilder();
        store().newest(r.body().getKey()).ifPresent(v -> b.setFound(true).setValue(v.getValue()));
        r.reply(b.build());
      });
    }

    private void onSendSeq(Request<SendSeq> r) {
      NodeId to = NodeId.parse(r.body().getTo());
      long n = nextToSend.getOrDefault(to, 1L);
      for (int i = 0; i < r.body().getCount(); i++) {
        send(to, Seq.newBuilder().setN(n++).build());
      }
      nextToSend.put(to, n);
      r.reply(SendSeqReply.newBuilder().setLast(n - 1).build());
    }

    private void onReceived(Request<Received> r) {
      r.reply(ReceivedReply.newBuilder()
          .addAllNumbers(received.getOrDefault(NodeId.parse(r.body().getFrom()), List.of())).build());
    }

    private void onPut(Request<KitPut> r) {
      lastUt = Math.max(lastUt + 1, now());
      store().put(r.body().getKey(), KitRecord.newBuilder().setValue(r.body().getValue()).setUt(lastUt).setSr(dc()).build());
      r.reply(KitPutReply.newBuilder().setUt(lastUt).build());
    }
  }

  /** Client with extra calls for the tests. */
  public static final class KitClient extends Client {
    @Override
    public CompletableFuture<Optional<ByteString>> get(String key) {
      return call(serverFor(key), KitGet.newBuilder().setKey(key).build(), KitGetReply.class)
          .thenApply(r -> r.getFound() ? Optional.of(r.getValue()) : Optional.empty());
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteString value) {
      return call(serverFor(key), KitPut.newBuilder().setKey(key).setValue(value).build(), KitPutReply.class)
          .thenApply(r -> null);
    }
  }
}
