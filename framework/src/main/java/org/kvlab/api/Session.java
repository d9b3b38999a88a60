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
 * any thread are handed to the session's thread. Blocking calls throw {@link OperationException}, whose
 * {@link OperationException#outcomeUnknown()} says whether the operation may have taken effect (a timeout
 * of this session, a lost connection, a server's {@link Request#unknown}) or definitely did not.
 */
public final class Session implements AutoCloseable {
  private final Client client;
  private final Executor thread;
  private final Duration timeout;
  private final String protocol;
  private final Runnable onClose;
  private final org.kvlab.history.History.Recorder recorder;
  private final int sessionId;
  /** The datacenter of the session's next operations (recorded with each operation). */
  private volatile int dc;
  /** Moves the client's context to another datacenter, on the session thread; null if the session cannot move. */
  private final java.util.function.IntConsumer mover;
  /** True when called on the session's thread (then an operation starts at once, without a hand-off); may be null. */
  private final java.util.function.BooleanSupplier onThread;

  public Session(Client client, Executor thread, Duration timeout, String protocol, Runnable onClose) {
    this(client, thread, timeout, protocol, onClose, null, 0, 0);
  }

  /**
   * A session that also records every operation into {@code recorder} (wall-clock microseconds), in
   * the simulator's history format, so checkers can run on real runs.
   */
  public Session(Client client, Executor thread, Duration timeout, String protocol, Runnable onClose,
      org.kvlab.history.History.Recorder recorder, int sessionId, int dc) {
    this(client, thread, timeout, protocol, onClose, recorder, sessionId, dc, null);
  }

  /** As above, for a session that can {@link #moveTo} another datacenter ({@code mover} changes its context's). */
  public Session(Client client, Executor thread, Duration timeout, String protocol, Runnable onClose,
      org.kvlab.history.History.Recorder recorder, int sessionId, int dc, java.util.function.IntConsumer mover) {
    this(client, thread, timeout, protocol, onClose, recorder, sessionId, dc, mover, null);
  }

  /**
   * As above; {@code onThread} says whether the caller is on the session's thread {@code thread}: an operation
   * called there (e.g. by a task given to {@link #executor()}) starts at once instead of being handed to the
   * thread's queue again.
   */
  public Session(Client client, Executor thread, Duration timeout, String protocol, Runnable onClose,
      org.kvlab.history.History.Recorder recorder, int sessionId, int dc, java.util.function.IntConsumer mover,
      java.util.function.BooleanSupplier onThread) {
    this.onThread = onThread;
    this.mover = mover;
    this.client = client;
    this.thread = thread;
    this.timeout = timeout;
    this.protocol = protocol;
    this.onClose = onClose;
    this.recorder = recorder;
    this.sessionId = sessionId;
    this.dc = dc;
  }

  /**
   * Sends the session's next operations to datacenter {@code dc} (a client that switches datacenters, the case
   * per-key session guarantees exist for; the simulator's {@code Script.moveTo}). The session keeps its state
   * (NuKV's hrm/hwm/dtr/dtw, a causal client's dependencies); whether the protocol's guarantees survive the move is
   * what the checkers judge. Clients that read {@code context().dc()} per operation follow the move; one that
   * cached it at start does not.
   */
  public void moveTo(int dc) {
    if (mover == null) {
      throw new OperationException("this session cannot move between datacenters (only sessions opened by"
          + " ClientRuntime.openSession can)");
    }
    await(CompletableFuture.runAsync(() -> mover.accept(dc), thread), "move to datacenter " + dc);
    this.dc = dc;
  }

  /** The datacenter the session's operations go to now. */
  public int dc() {
    return dc;
  }

  private static long micros() {
    return java.util.concurrent.TimeUnit.NANOSECONDS.toMicros(System.nanoTime());
  }

  private <T> CompletableFuture<T> recorded(org.kvlab.history.Operation.Type type, String key, ByteString value,
      CompletableFuture<T> op, long id, long invoked,
      java.util.function.Function<T, Map<String, Optional<ByteString>>> reads) {
    return recorded(type, key, value, op, id, invoked, reads, null);
  }

  /** As above; {@code txn} builds a TXN's record from its result (null result: not OK). */
  private <T> CompletableFuture<T> recorded(org.kvlab.history.Operation.Type type, String key, ByteString value,
      CompletableFuture<T> op, long id, long invoked,
      java.util.function.Function<T, Map<String, Optional<ByteString>>> reads,
      java.util.function.Function<T, org.kvlab.history.Operation.Txn> txn) {
    if (recorder == null) {
      return op;
    }
    int opDc = dc; // where the operation was sent (a later moveTo does not change it)
    // A recorded operation ends by the session's timeout at the latest, as INFO: an operation never
    // answered is in the history (outcome unknown), not left out of it. A late answer is ignored.
    CompletableFuture<T> bounded = new CompletableFuture<>();
    String what = type.name().toLowerCase(java.util.Locale.ROOT) + (key == null ? "" : " " + key);
    Runnable expire = () -> bounded.completeExceptionally(OperationException.unknown(what + " timed out after "
        + timeout.toMillis() + " ms (it may still take effect)"));
    java.util.concurrent.Future<?> timer = thread instanceof java.util.concurrent.ScheduledExecutorService ses
        ? ses.schedule(expire, timeout.toMillis(), TimeUnit.MILLISECONDS) : null;
    if (timer == null) {
      CompletableFuture.delayedExecutor(timeout.toMillis(), TimeUnit.MILLISECONDS, thread).execute(expire);
    }
    op.whenComplete((r, e) -> {
      if (timer != null) {
        timer.cancel(false);
      }
      if (e == null) {
        bounded.complete(r);
      } else {
        bounded.completeExceptionally(org.kvlab.history.History.cause(e));
      }
    });
    // copy(): a caller cancelling what it got (await does, on its timeout) must not cancel the recording.
    return bounded.whenComplete((r, e) -> {
      // One rule for every history (History.outcomeOf): the exception says whether the outcome is unknown.
      recorder.add(new org.kvlab.history.Operation(id, sessionId, opDc, type, key, value,
          e == null && reads != null ? reads.apply(r) : null, invoked, micros(),
          org.kvlab.history.History.outcomeOf(e), e == null ? null : org.kvlab.history.History.errorText(e),
          txn == null ? null : txn.apply(e == null ? r : null)));
    }).copy();
  }

  public String protocol() {
    return protocol;
  }

  /**
   * The session's thread. A caller that issues many operations at once (the open-loop load generator) can
   * hand them to it in one task, instead of one hand-off (and possibly one wake-up of that thread) per
   * operation; the {@code ...Async} methods may be called from it as from any thread (and, if the session knows
   * its thread, start there at once).
   */
  public Executor executor() {
    return thread;
  }


  public boolean supportsReadOnlyTx() {
    return client instanceof ReadOnlyTransactions;
  }

  public CompletableFuture<Optional<ByteString>> getAsync(String key) {
    long id = recorder == null ? 0 : recorder.nextId();
    long invoked = micros();
    return recorded(org.kvlab.history.Operation.Type.GET, key, null, onSessionThread(() -> client.get(key)), id,
        invoked, v -> Map.of(key, v));
  }

  public CompletableFuture<Void> putAsync(String key, ByteString value) {
    long id = recorder == null ? 0 : recorder.nextId();
    long invoked = micros();
    return recorded(org.kvlab.history.Operation.Type.PUT, key, value, onSessionThread(() -> client.put(key, value)),
        id, invoked, null);
  }

  public CompletableFuture<Map<String, Optional<ByteString>>> readOnlyTxAsync(Collection<String> keys) {
    if (!(client instanceof ReadOnlyTransactions rotx)) {
      return CompletableFuture.failedFuture(new OperationException("protocol '" + protocol
          + "' does not offer read-only transactions; use a protocol that does (e.g. gentlerain, causalspartanx)"));
    }
    long id = recorder == null ? 0 : recorder.nextId();
    long invoked = micros();
    return recorded(org.kvlab.history.Operation.Type.ROTX, null, null, onSessionThread(() -> rotx.readOnlyTx(keys)),
        id, invoked, v -> new java.util.TreeMap<>(v));
  }

  public boolean supportsTransactions() {
    return client instanceof Transactions;
  }

  /** A one-shot multi-key transaction; recorded as a TXN with its request and, if OK, its result. */
  public CompletableFuture<TxnResult> transactAsync(TxnRequest request) {
    if (!(client instanceof Transactions tx)) {
      return CompletableFuture.failedFuture(new OperationException("protocol '" + protocol
          + "' does not offer multi-key transactions; use a protocol that does (e.g. camu)"));
    }
    long id = recorder == null ? 0 : recorder.nextId();
    long invoked = micros();
    return recorded(org.kvlab.history.Operation.Type.TXN, null, null, onSessionThread(() -> tx.transact(request)),
        id, invoked, r -> new java.util.TreeMap<>(r.reads()), r -> new org.kvlab.history.Operation.Txn(request, r));
  }

  public TxnResult transact(TxnRequest request) {
    return await(transactAsync(request), request.describe());
  }

  public boolean supportsSessionGuarantees() {
    return client instanceof SessionGuarantees;
  }

  /** A GET with a per-operation read level ({@link SessionGuarantees}; fails clearly if the protocol has none). */
  public CompletableFuture<Optional<ByteString>> getAsync(String key, SessionGuarantees.ReadLevel level) {
    if (!(client instanceof SessionGuarantees sg)) {
      return CompletableFuture.failedFuture(noLevels());
    }
    long id = recorder == null ? 0 : recorder.nextId();
    long invoked = micros();
    return recorded(org.kvlab.history.Operation.Type.GET, key, null, onSessionThread(() -> sg.get(key, level)), id,
        invoked, v -> Map.of(key, v));
  }

  /** A PUT with a per-operation write level ({@link SessionGuarantees}; fails clearly if the protocol has none). */
  public CompletableFuture<Void> putAsync(String key, ByteString value, SessionGuarantees.WriteLevel level) {
    if (!(client instanceof SessionGuarantees sg)) {
      return CompletableFuture.failedFuture(noLevels());
    }
    long id = recorder == null ? 0 : recorder.nextId();
    long invoked = micros();
    return recorded(org.kvlab.history.Operation.Type.PUT, key, value,
        onSessionThread(() -> sg.put(key, value, level)), id, invoked, null);
  }

  private OperationException noLevels() {
    return new OperationException("protocol '" + protocol + "' has no per-operation consistency levels; use a"
        + " protocol that has (e.g. nukv), or plain get/put");
  }

  public Optional<ByteString> get(String key, SessionGuarantees.ReadLevel level) {
    return await(getAsync(key, level), "get " + key);
  }

  public void put(String key, ByteString value, SessionGuarantees.WriteLevel level) {
    await(putAsync(key, value, level), "put " + key);
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
    if (onThread != null && onThread.getAsBoolean()) {
      // Already on the session thread (the open-loop generator's batches): no second hand-off and future chain.
      try {
        return op.get();
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(new java.util.concurrent.CompletionException(e)); // as supplyAsync fails
      }
    }
    return CompletableFuture.supplyAsync(op, thread).thenCompose(f -> f);
  }

  private <T> T await(CompletableFuture<T> future, String what) {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      future.cancel(false);
      throw OperationException.unknown(what + " timed out after " + timeout.toMillis() + " ms (it may still take "
          + "effect): the server may be overloaded, waiting on an unreachable peer, or down (check ./kvlab local status)");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw OperationException.unknown(what + " interrupted (it may still take effect)");
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
    return OperationException.unknown(what + " failed: " + cause, cause); // nothing says it did not take effect
  }

  @Override
  public void close() {
    if (onClose != null) {
      onClose.run();
    }
  }
}
