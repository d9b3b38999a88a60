package org.kvlab.protocols.accf;

import com.google.protobuf.ByteString;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Client;

/** ACCF, client c (seed 003 §7.2.1, Alg 7.1): the session keeps DS_c, one entry per tracking group. */
final class AccfClient extends Client {
  private final TreeMap<Integer, Long> ds = new TreeMap<>();
  private int cg = -1; // -1: the contacted server's own checking group

  @Override
  protected void onStart() {
    String name = params().string("checkingGroup", "");
    if (!name.isEmpty()) {
      Groups groups = new Groups(topology(), params());
      cg = groups.checkingIndex(name);
      if (cg < 0) {
        throw new IllegalArgumentException("parameter checkingGroup: no checking group \"" + name
            + "\" in this cluster's checking parameter: name one of its groups or leave it out");
      }
    }
  }

  /** GET(k, cg): lines 1-6; DS_c = max(DS_c, d.ds). */
  @Override
  public CompletableFuture<Optional<ByteString>> get(String key) {
    GetReq req = GetReq.newBuilder().setKey(key).setCg(cg).addAllDs(Deps.toProto(ds)).build();
    return call(serverFor(key), req, GetReply.class).thenApply(r -> {
      Deps.maxInto(ds, r.getDsList());
      return r.getFound() ? Optional.of(r.getValue()) : Optional.empty();
    });
  }

  /** PUT(k, v): lines 7-11; DS_c = max(DS_c, <tg, ut>). */
  @Override
  public CompletableFuture<Void> put(String key, ByteString value) {
    PutReq req = PutReq.newBuilder().setKey(key).setValue(value).addAllDs(Deps.toProto(ds)).build();
    return call(serverFor(key), req, PutReply.class).thenApply(r -> {
      ds.merge(r.getTg(), r.getUt(), Math::max);
      return null;
    });
  }
}
