package org.kvlab.runtime;

import io.netty.channel.EventLoop;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.kvlab.store.VersionedStore;

/**
 * Group commit for {@code sync} durability. The event loop counts writes ({@link #onWrite()}) and runs
 * acknowledgements through {@link #afterSync(Runnable)}: an acknowledgement that follows unsynced
 * writes waits until a background thread has fsynced them. The thread syncs everything written so far
 * in one call, so many waiting replies share one fsync, and the event loop never blocks on the disk.
 *
 * <p>An acknowledgement covers the writes of the whole event-loop task that asked for it, including
 * writes made after the {@code afterSync} call: a handler may reply first and then write (a protocol
 * that answers a put and then sends the update to its peers puts the message in the durable outbox
 * after its reply). So {@code afterSync} only queues the action; a task run right after the current
 * one ("sealing") fixes the number of writes the queued actions wait for.
 */
final class SyncBarrier implements AutoCloseable {
  private final VersionedStore<?> store;
  private final EventLoop loop;
  private final Consumer<Throwable> onFailure;
  private final Thread thread;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wanted = lock.newCondition();

  // event-loop state
  private long written;
  private ArrayDeque<Runnable> unsealed = new ArrayDeque<>();
  private boolean sealScheduled;
  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();

  // shared state (guarded by lock)
  private long requested;
  private volatile long synced;
  private boolean closed;
  private long syncs;

  private record Waiting(long epoch, Runnable action) {}

  SyncBarrier(VersionedStore<?> store, EventLoop loop, String name, Consumer<Throwable> onFailure) {
    this.store = store;
    this.loop = loop;
    this.onFailure = onFailure;
    this.thread = new Thread(this::run, "kvlab-sync-" + name);
    this.thread.setDaemon(true);
    this.thread.start();
  }

  /** Event loop: a write was made to the store (or to its channel log). */
  void onWrite() {
    written++;
  }

  /** Event loop: the number of writes made so far. */
  long written() {
    return written;
  }

  /** Any thread: the number of writes known to be durable (every write up to this count is). */
  long synced() {
    return synced;
  }

  /**
   * Event loop: runs {@code action} once every write made so far, and every write made by the rest of
   * the current event-loop task, is synced. Actions run in the order they were given.
   */
  void afterSync(Runnable action) {
    unsealed.add(action);
    if (!sealScheduled && !loop.isShuttingDown()) {
      sealScheduled = true;
      loop.execute(this::seal);
    }
  }

  /** Event loop, after the task(s) that queued actions: they wait for every write made until now. */
  private void seal() {
    sealScheduled = false;
    ArrayDeque<Runnable> batch = unsealed;
    unsealed = new ArrayDeque<>();
    long epoch = written;
    if (synced >= epoch) {
      release(); // earlier waiters first, so actions stay in order
      batch.forEach(Runnable::run);
      return;
    }
    for (Runnable action : batch) {
      waiting.add(new Waiting(epoch, action));
    }
    lock.lock();
    try {
      if (epoch > requested) {
        requested = epoch;
        wanted.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Event loop: number of acknowledgements waiting for a sync. */
  int waiting() {
    return waiting.size() + unsealed.size();
  }

  long syncCount() {
    return syncs;
  }

  private void release() {
    long done = synced;
    while (!waiting.isEmpty() && waiting.peekFirst().epoch() <= done) {
      waiting.pollFirst().action().run();
    }
  }

  private void run() {
    while (true) {
      long target;
      lock.lock();
      try {
        while (!closed && requested <= synced) {
          wanted.awaitUninterruptibly();
        }
        if (closed) {
          return;
        }
        target = requested;
      } finally {
        lock.unlock();
      }
      try {
        store.sync();
      } catch (Throwable t) {
        onFailure.accept(t);
        return;
      }
      syncs++;
      synced = target;
      if (!loop.isShuttingDown()) {
        loop.execute(this::release);
      }
    }
  }

  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      wanted.signal();
    } finally {
      lock.unlock();
    }
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
