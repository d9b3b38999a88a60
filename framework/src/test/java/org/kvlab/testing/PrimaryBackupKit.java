package org.kvlab.testing;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.Client;
import org.kvlab.api.Handlers;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.NodeId;
import org.kvlab.api.RecordType;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.api.Slot;
import org.kvlab.api.VersionKey;
import org.kvlab.testing.kitpb.PbApplied;
import org.kvlab.testing.kitpb.PbApply;
import org.kvlab.testing.kitpb.PbGet;
import org.kvlab.testing.kitpb.PbGetReply;
import org.kvlab.testing.kitpb.PbIncarnation;
import org.kvlab.testing.kitpb.PbNumber;
import org.kvlab.testing.kitpb.PbPut;
import org.kvlab.testing.kitpb.PbPutReply;
import org.kvlab.testing.kitpb.PbRecord;
import org.kvlab.testing.kitpb.PbState;
import org.kvlab.testing.kitpb.PbWaitClock;
import org.kvlab.testing.kitpb.PbWaitVer;

/**
 * A primary-backup protocol written with the protocol kit, for testing it in both drivers: the primary of a
 * partition is its server in datacenter 0; any other server {@code forward}s a client's PUT or GET to it; the
 * primary numbers the write from its durable {@code slot}, stores it and {@code callAll}s every backup (the
 * partition's servers in the other datacenters) with {@code retryOnTimeout}, and replies once all applied it. The
 * client reads special keys: {@code ver/N} waits ({@code waitUntil}) until the server applied version N and reads
 * the version it reached, {@code clock/M} waits ({@code waitUntilClock}) until its clock reads M and reads the
 * clock, {@code incarnation} reads the server's incarnation. Values of those reads are decimal numbers.
 */
public final class PrimaryBackupKit extends BaseProtocol {
  public static final MessageTypes MESSAGES = MessageTypes.of(PbPut.class, PbPutReply.class, PbGet.class,
      PbGetReply.class, PbApply.class, PbApplied.class, PbWaitVer.class, PbWaitClock.class, PbNumber.class,
      PbIncarnation.class, PbState.class);

  public PrimaryBackupKit() {
    super("kitpb", "framework test protocol: primary-backup on the protocol kit", MESSAGES,
        RecordType.of(PbRecord.class, r -> VersionKey.of(r.getVer(), r.getInc())), PbServer::new, PbClient::new);
  }

  static final class PbServer extends Server<PbRecord> {
    static final Duration FORWARD_TIMEOUT = Duration.ofMillis(1500);
    static final Duration CALL_TIMEOUT = Duration.ofMillis(100);
    private Slot<PbState> state;
    private long applied; // the highest version this server stored

    @Override
    protected void register(Handlers on) {
      on.request(PbPut.class, this::onPut);
      on.request(PbGet.class, this::onGet);
      on.call(PbApply.class, this::onApply);
      on.request(PbWaitVer.class, r -> waitUntil(() -> applied >= r.body().getVer(), Duration.ofSeconds(1),
          () -> r.reply(number(applied)), () -> r.unknown("version " + r.body().getVer() + " not applied in 1 s")));
      on.request(PbWaitClock.class, r -> waitUntilClock(r.body().getMicros(), () -> r.reply(number(nowMicros()))));
      on.request(PbIncarnation.class, r -> r.reply(number(incarnation())));
    }

    @Override
    protected void onStart() {
      state = slot(PbState.getDefaultInstance());
      applied = state.get().getVer();
    }

    private NodeId primary() {
      return topology().node(0, partition());
    }

    private void onPut(Request<PbPut> req) {
      if (!self().equals(primary())) {
        forward(primary(), req, FORWARD_TIMEOUT);
        return;
      }
      long ver = state.get().getVer() + 1;
      state.set(PbState.newBuilder().setVer(ver).build());
      PbApply apply = PbApply.newBuilder().setKey(req.body().getKey()).setValue(req.body().getValue()).setVer(ver)
          .setInc(incarnation()).build();
      store(apply);
      callAll(peers(), apply, PbApplied.class, peers().size(), CALL_TIMEOUT)
          .retryOnTimeout()
          .onQuorum(acks -> req.reply(PbPutReply.newBuilder().setVer(ver).build()))
          .onFailure(f -> req.unknown("backups did not apply version " + ver + ": " + f.reason()));
    }

    private void onApply(Request<PbApply> call) {
      store(call.body()); // a retried call stores the same record again: the store takes it
      call.reply(PbApplied.newBuilder().setVer(call.body().getVer()).build());
    }

    private void store(PbApply a) {
      store().put(a.getKey(), PbRecord.newBuilder().setValue(a.getValue()).setVer(a.getVer()).setInc(a.getInc()).build());
      applied = Math.max(applied, a.getVer());
    }

    private void onGet(Request<PbGet> req) {
      if (!self().equals(primary())) {
        forward(primary(), req, FORWARD_TIMEOUT);
        return;
      }
      PbGetReply.Builder b = PbGetReply.newBuilder();
      store().newest(req.body().getKey()).ifPresent(r -> b.setFound(true).setValue(r.getValue()));
      req.reply(b.build());
    }

    private static PbNumber number(long n) {
      return PbNumber.newBuilder().setN(n).build();
    }
  }

  static final class PbClient extends Client {
    @Override
    public CompletableFuture<Optional<ByteString>> get(String key) {
      if (key.startsWith("ver/")) {
        return number(call(serverFor(key), PbWaitVer.newBuilder().setVer(Long.parseLong(key.substring(4))).build(),
            PbNumber.class));
      }
      if (key.startsWith("clock/")) {
        return number(call(serverFor(key),
            PbWaitClock.newBuilder().setMicros(Long.parseLong(key.substring(6))).build(), PbNumber.class));
      }
      if (key.equals("incarnation")) {
        return number(call(serverFor(key), PbIncarnation.getDefaultInstance(), PbNumber.class));
      }
      return call(serverFor(key), PbGet.newBuilder().setKey(key).build(), PbGetReply.class)
          .thenApply(r -> r.getFound() ? Optional.of(r.getValue()) : Optional.empty());
    }

    private static CompletableFuture<Optional<ByteString>> number(CompletableFuture<PbNumber> n) {
      return n.thenApply(r -> Optional.of(ByteString.copyFromUtf8(Long.toString(r.getN()))));
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteString value) {
      return call(serverFor(key), PbPut.newBuilder().setKey(key).setValue(value).build(), PbPutReply.class)
          .thenApply(r -> null);
    }
  }
}
