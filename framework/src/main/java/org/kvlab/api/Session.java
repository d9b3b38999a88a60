package org.kvlab.api;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * One client session: a protocol {@link Client} bound to its own thread, with an asynchronous API
 * ({@code ...Async}) and a blocking facade for YCSB threads and the shell. Thread-safe: operations from
 * any thread are handed to the session's thread. Blocking calls throw {@link OperationException}.
 */
public final class Session implements AutoCloseable {
  private final Client client;
  private final Executor thread;
  private final Duration timeout;
  private final String protocol;
  private final Runnable onClose;

  public Session(Client client, Executor thread, Duration timeout, String protocol, Runnable onClose) {
    this.client = client;
    this.thread = thread;
    this.timeout = timeout;
    this.protocol = protocol;
    this.onClose = onClose;
  }

  public String protocol() {
    return protocol;
  }

  public boolean supportsReadOnlyTx() {
    return client instanceof ReadOnlyTransactions;
  }

  public CompletableFuture<Optional<ByteString>> getAsync(String key) {
    return onSessionThread(() -> client.get(key));
  }

  public CompletableFuture<Void> putAsync(String key, ByteString value) {
    return onSessionThread(() -> client.put(key, value));
  }

  public CompletableFuture<Map<String, Optional<ByteString>>> readOnlyTxAsync(Collection<String> keys) {
    if (!(client instanceof ReadOnlyTransactions rotx)) {
      return CompletableFuture.failedFuture(new OperationException("protocol '" + protocol
          + "' does not offer read-only transactions; use a protocol that does (e.g. gentlerain, causalspartanx)"));
    }
    return onSessionThread(() -> rotx.readOnlyTx(keys));
  }

  public Optional<ByteString> get(String key) {
    return await(getAsync(key), "get " + key);
  }

  public void put(String key, ByteString value) {
    await(putAsync(key, value), "put " + key);
  }

  public Map<String, Optional<ByteString>> readOnlyTx(Collection<String> keys) {
    return await(readOnlyTxAsync(keys), "read-only transaction " + keys);
  }

  private <T> CompletableFuture<T> onSessionThread(Supplier<CompletableFuture<T>> op) {
    return CompletableFuture.supplyAsync(op, thread).thenCompose(f -> f);
  }

  private <T> T await(CompletableFuture<T> future, String what) {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      future.cancel(false);
      throw new OperationException(what + " timed out after " + timeout.toMillis() + " ms: the server may be "
          + "overloaded, waiting on an unreachable peer, or down (check ./kvlab local status)");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OperationException(what + " interrupted");
    } catch (ExecutionException e) {
      throw unwrap(what, e.getCause());
    }
  }

  private static OperationException unwrap(String what, Throwable cause) {
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof OperationException op) {
      return op;
    }
    return new OperationException(what + " failed: " + cause, cause);
  }

  @Override
  public void close() {
    if (onClose != null) {
      onClose.run();
    }
  }
}
