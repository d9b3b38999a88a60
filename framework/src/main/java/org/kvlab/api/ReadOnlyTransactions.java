package org.kvlab.api;

import com.google.protobuf.ByteString;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Capability of a {@link Client} that offers read-only transactions: reads a set of keys from one
 * causally consistent snapshot. Callers check {@code client instanceof ReadOnlyTransactions}.
 */
public interface ReadOnlyTransactions {
  CompletableFuture<Map<String, Optional<ByteString>>> readOnlyTx(Collection<String> keys);
}
