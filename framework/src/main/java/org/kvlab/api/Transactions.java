package org.kvlab.api;

import java.util.concurrent.CompletableFuture;

/**
 * Capability of a {@link Client} that offers one-shot multi-key transactions ({@link TxnRequest}: read and write sets
 * declared up front, or a named deterministic procedure). Callers check {@code client instanceof Transactions}.
 * The future completes once every partition the transaction touches has executed it.
 */
public interface Transactions {
  CompletableFuture<TxnResult> transact(TxnRequest request);
}
