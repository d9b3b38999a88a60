package org.kvlab.protocols.gentlerain;

import com.google.protobuf.ByteString;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Client;
import org.kvlab.api.ReadOnlyTransactions;

/** GentleRain, client side (seed 003 §3, Alg 8.2): the session keeps DT and GST. */
final class GentleRainClient extends Client implements ReadOnlyTransactions {
  private long dt;  // dependency time: highest ut of versions read or written
  private long gst; // latest GST seen

  /** GET(k): send gst; DT = max(DT, ut), GST = max(GST, gst). */
  @Override
  public CompletableFuture<Optional<ByteString>> get(String key) {
    return call(serverFor(key), GetReq.newBuilder().setKey(key).setGst(gst).build(), GetReply.class)
        .thenApply(r -> {
          dt = Math.max(dt, r.getUt());
          gst = Math.max(gst, r.getGst());
          return r.getFound() ? Optional.of(r.getValue()) : Optional.empty();
        });
  }

  /** PUT(k, v): send dt (and gst); DT = max(DT, ut). */
  @Override
  public CompletableFuture<Void> put(String key, ByteString value) {
    PutReq req = PutReq.newBuilder().setKey(key).setValue(value).setDt(dt).setGst(gst).build();
    return call(serverFor(key), req, PutReply.class).thenApply(r -> {
      dt = Math.max(dt, r.getUt());
      return null;
    });
  }

  /** ROTX(kset): one round trip to a coordinator, which reads every key at one snapshot time. */
  @Override
  public CompletableFuture<Map<String, Optional<ByteString>>> readOnlyTx(Collection<String> keys) {
    if (keys.isEmpty()) {
      return CompletableFuture.completedFuture(Map.of());
    }
    RotxReq req = RotxReq.newBuilder().addAllKeys(keys).setDt(dt).setGst(gst).build();
    return call(serverFor(keys.iterator().next()), req, RotxReply.class).thenApply(r -> {
      gst = Math.max(gst, r.getGst());
      Map<String, Optional<ByteString>> out = new LinkedHashMap<>();
      for (Item i : r.getItemsList()) {
        dt = Math.max(dt, i.getUt());
        out.put(i.getKey(), i.getFound() ? Optional.of(i.getValue()) : Optional.empty());
      }
      return out;
    });
  }
}
