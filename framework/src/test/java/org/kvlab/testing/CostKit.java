package org.kvlab.testing;

import com.google.protobuf.ByteString;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.Client;
import org.kvlab.api.Handlers;
import org.kvlab.api.RecordType;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.api.VersionKey;
import org.kvlab.testing.kitpb.PbGet;
import org.kvlab.testing.kitpb.PbGetReply;
import org.kvlab.testing.kitpb.PbPut;
import org.kvlab.testing.kitpb.PbPutReply;
import org.kvlab.testing.kitpb.PbRecord;

/**
 * A one-server test protocol for the servers' CPU cost and offloaded work, in both drivers. Every request goes to
 * server 0_0. A GET of an ordinary key reads {@code N} (this server's handling order: 0 for the first request it
 * handled); {@code charge/M} charges {@code M} µs ({@code chargeMicros}) and then reads its order;
 * {@code offload/N} computes {@code 2N} off the loop ({@code offload}) and reads
 * {@code WORKER-THREAD:2N|LOOP-THREAD}; {@code offload-held/N} does the same, its computation first waiting for
 * {@link #RELEASE} (runtime tests only: the simulator computes inline). A PUT is answered at once.
 */
public final class CostKit extends BaseProtocol {
  /** What an {@code offload-held/N} computation waits for (at most 30 s). */
  public static volatile CountDownLatch RELEASE = new CountDownLatch(0);

  public CostKit() {
    super("costkit", "framework test protocol: CPU cost and offloaded work", PrimaryBackupKit.MESSAGES,
        RecordType.of(PbRecord.class, r -> VersionKey.of(r.getVer(), r.getInc())), CostServer::new,
        CostClient::new);
  }

  static final class CostServer extends Server<PbRecord> {
    private long handled;

    @Override
    protected void register(Handlers on) {
      on.request(PbGet.class, this::onGet);
      on.request(PbPut.class, r -> r.reply(PbPutReply.newBuilder().setVer(handled++).build()));
    }

    private void onGet(Request<PbGet> req) {
      String key = req.body().getKey();
      if (key.startsWith("offload")) {
        long n = Long.parseLong(key.substring(key.indexOf('/') + 1));
        boolean held = key.startsWith("offload-held/");
        offload(() -> {
          if (held) {
            await();
          }
          return Thread.currentThread().getName() + ":" + 2 * n;
        }, r -> reply(req, r + "|" + Thread.currentThread().getName()));
        return;
      }
      if (key.startsWith("charge/")) {
        chargeMicros(Long.parseLong(key.substring(7)));
      }
      reply(req, Long.toString(handled++));
    }

    private static void await() {
      try {
        if (!RELEASE.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the test never released the held computation");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }

    private static void reply(Request<PbGet> req, String value) {
      req.reply(PbGetReply.newBuilder().setFound(true).setValue(ByteString.copyFromUtf8(value)).build());
    }
  }

  static final class CostClient extends Client {
    @Override
    public CompletableFuture<Optional<ByteString>> get(String key) {
      return call(topology().node(0, 0), PbGet.newBuilder().setKey(key).build(), PbGetReply.class)
          .thenApply(r -> r.getFound() ? Optional.of(r.getValue()) : Optional.empty());
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteString value) {
      return call(topology().node(0, 0), PbPut.newBuilder().setKey(key).setValue(value).build(), PbPutReply.class)
          .thenApply(r -> null);
    }
  }
}
