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

  /** Event loop: a write was made to the store. */
  void onWrite() {
    written++;
  }

  /** Event loop: runs {@code action} now if every write so far is synced, else after the next sync. */
  void afterSync(Runnable action) {
    if (synced >= written) {
      action.run();
      return;
    }
    waiting.add(new Waiting(written, action));
    lock.lock();
    try {
      if (written > requested) {
        requested = written;
        wanted.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Event loop: number of acknowledgements waiting for a sync. */
  int waiting() {
    return waiting.size();
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
