package org.kvlab.store;

import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A store that hands every call to another one; a wrapper overrides only what it observes (for example {@code put},
 * to count writes) instead of restating the whole interface.
 */
public abstract class ForwardingStore<R> implements VersionedStore<R> {
  protected final VersionedStore<R> inner;

  protected ForwardingStore(VersionedStore<R> inner) {
    this.inner = inner;
  }

  @Override
  public void put(String key, R record) {
    inner.put(key, record);
  }

  @Override
  public Optional<R> newest(String key, Predicate<? super R> filter) {
    return inner.newest(key, filter);
  }

  @Override
  public List<R> versions(String key) {
    return inner.versions(key);
  }

  @Override
  public int prune(String key, Predicate<? super R> stable) {
    return inner.prune(key, stable);
  }

  @Override
  public int pruneRange(String key, byte[] from, byte[] below) {
    return inner.pruneRange(key, from, below);
  }

  @Override
  public long keyCount() {
    return inner.keyCount();
  }

  @Override
  public void sync() {
    inner.sync();
  }

  @Override
  public void close() {
    inner.close();
  }
}
