package org.kvlab.protocols.nukv;

import org.kvlab.consensus.raft.RaftCodec;
import org.kvlab.consensus.raft.RaftJournal;
import org.kvlab.store.VersionedStore;

/** Where a NuKV replica's Raft journal lives: versions of one reserved key, each a {@link Stored} with its record. */
final class NuKVJournal {
  /** The reserved key; user keys cannot start with a NUL character through the client API's tools. */
  static final String KEY = "\u0000nukv.raft";
  static final RaftJournal.Format<Stored> FORMAT = RaftJournal.format(KEY,
      (seq, r) -> Stored.newBuilder().setSeq(seq).setJournal(r).build(), Stored::getJournal, Stored::getSeq);

  private NuKVJournal() {}

  /** The journal {@code store} holds (tests, benchmarks). */
  static RaftJournal<Stored> open(VersionedStore<Stored> store, RaftCodec codec) {
    return new RaftJournal<>(store, FORMAT, codec);
  }
}
