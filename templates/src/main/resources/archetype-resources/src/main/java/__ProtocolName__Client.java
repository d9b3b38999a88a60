package ${package};

import com.google.protobuf.ByteString;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Client;

/**
 * ${ProtocolName}, client side: one instance per session; each operation is a request to the key's
 * partition in the session's datacenter. TODO the session metadata of the paper (dependency times,
 * vectors) in fields, sent with each request and updated from each reply.
 */
final class ${ProtocolName}Client extends Client {

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
}
