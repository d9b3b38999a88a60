package org.kvlab.protocols.primarybackup;

import com.google.protobuf.ByteString;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Client;

/**
 * Primary-backup, client side: each operation goes to the key's partition in the session's datacenter, which
 * answers it if it is the primary and forwards it to the primary otherwise.
 */
final class PrimaryBackupClient extends Client {

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
