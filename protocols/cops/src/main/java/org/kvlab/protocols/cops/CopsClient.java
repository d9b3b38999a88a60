package org.kvlab.protocols.cops;

import com.google.protobuf.ByteString;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * COPS client library (one per session): the context is the nearest dependencies, one version per key.
 * A read adds the version it returns (unless it is stable: visible everywhere, nothing to check); a
 * write depends on the whole context, then replaces it with itself (it covers the rest transitively).
 */
final class CopsClient extends org.kvlab.api.Client {
  private final Map<String, Dep> deps = new LinkedHashMap<>();

  @Override
  public CompletableFuture<Optional<ByteString>> get(String key) {
    return call(serverFor(key), GetReq.newBuilder().setKey(key).build(), GetReply.class).thenApply(r -> {
      if (!r.getFound()) {
        return Optional.empty();
      }
      if (!r.getStable()) {
        Dep d = Dep.newBuilder().setKey(key).setVer(r.getVer()).setSr(r.getSr()).build();
        deps.merge(key, d, (a, b) -> CopsServer.compare(a, b) >= 0 ? a : b);
      }
      return Optional.of(r.getValue());
    });
  }

  @Override
  public CompletableFuture<Void> put(String key, ByteString value) {
    PutReq req = PutReq.newBuilder().setKey(key).setValue(value).addAllDeps(deps.values()).build();
    return call(serverFor(key), req, PutReply.class).thenApply(r -> {
      deps.clear(); // dependency garbage collection: the new version depends on all of them
      deps.put(key, Dep.newBuilder().setKey(key).setVer(r.getVer()).setSr(dc()).build());
      return null;
    });
  }
}
