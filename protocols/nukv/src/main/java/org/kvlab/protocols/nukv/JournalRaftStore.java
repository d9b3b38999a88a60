package org.kvlab.protocols.nukv;

import io.microraft.RaftEndpoint;
import io.microraft.model.RaftModelFactory;
import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.log.SnapshotChunk;
import io.microraft.model.persistence.RaftEndpointPersistentState;
import io.microraft.model.persistence.RaftTermPersistentState;
import io.microraft.persistence.RaftStore;
import io.microraft.persistence.RestoredRaftState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;
import org.kvlab.api.Invariants;
import org.kvlab.store.VersionedStore;

/**
 * MicroRaft's persistent state in kvlab's store, so the same code is durable on JE and replayable in the
 * simulator: an append-only journal under one reserved key whose versions are numbered records (a log
 * entry, a truncation, the term and vote, the group members, the local endpoint). Restoring replays the
 * journal in order. Durability follows the cluster's {@code storage.durability}: under {@code sync}
 * kvlab holds replies and channel acknowledgements until a group fsync covers the journal records
 * written before them, which is what Raft asks of {@link #flush()} (so flush itself does nothing).
 *
 * <p>Snapshots are off ({@link RaftGroup} sets the snapshot interval beyond reach), so the journal grows
 * with the log; compacting it is left for later (see docs/protocols.md).
 */
final class JournalRaftStore implements RaftStore {
  /** The reserved key; user keys cannot start with a NUL character through the client API's tools. */
  static final String KEY = "\u0000nukv.raft";

  private final VersionedStore<Stored> store;
  private long seq;

  JournalRaftStore(VersionedStore<Stored> store) {
    this.store = store;
    this.seq = store.newest(KEY).map(Stored::getSeq).orElse(0L);
  }

  private void append(JournalRecord r) {
    store.put(KEY, Stored.newBuilder().setSeq(++seq).setJournal(r).build());
  }

  @Override
  public void persistAndFlushLocalEndpoint(RaftEndpointPersistentState s) {
    append(JournalRecord.newBuilder().setEndpoint(s.getLocalEndpoint().getId().toString())
        .setEndpointVoting(s.isVoting()).build());
  }

  @Override
  public void persistAndFlushInitialGroupMembers(RaftGroupMembersView v) {
    append(JournalRecord.newBuilder().setHasMembers(true).setMembersLogIndex(v.getLogIndex())
        .addAllMembers(ids(v.getMembers())).addAllVotingMembers(ids(v.getVotingMembers())).build());
  }

  @Override
  public void persistAndFlushTerm(RaftTermPersistentState s) {
    JournalRecord.Builder b = JournalRecord.newBuilder().setHasTerm(true).setTerm(s.getTerm());
    if (s.getVotedFor() != null) {
      b.setVotedFor(s.getVotedFor().getId().toString());
    }
    append(b.build());
  }

  @Override
  public void persistLogEntries(List<LogEntry> entries) {
    for (LogEntry e : entries) {
      append(JournalRecord.newBuilder().setEntry(RaftCodec.entry(e)).build());
    }
  }

  @Override
  public void persistSnapshotChunk(SnapshotChunk chunk) {
    Invariants.check(false, "NuKV runs MicroRaft without snapshots, but a snapshot chunk was persisted");
  }

  @Override
  public void truncateLogEntriesFrom(long index) {
    append(JournalRecord.newBuilder().setTruncateFrom(index).build());
  }

  @Override
  public void truncateLogEntriesUntil(long index) {
    append(JournalRecord.newBuilder().setTruncateUntil(index).build());
  }

  @Override
  public void deleteSnapshotChunks(long index, int count) {
    // no snapshots: nothing to delete
  }

  @Override
  public void flush() {
    // kvlab's runtime makes replies and acknowledgements wait for the group fsync (durability: sync)
  }

  private static List<String> ids(Collection<RaftEndpoint> endpoints) {
    List<String> out = new ArrayList<>(endpoints.size());
    for (RaftEndpoint e : endpoints) {
      out.add(e.getId().toString());
    }
    return out;
  }

  /** The state to restart from, or null if this server never persisted any (a fresh start). */
  static RestoredRaftState restore(VersionedStore<Stored> store, RaftModelFactory models, RaftCodec codec) {
    List<Stored> newestFirst = store.versions(KEY);
    if (newestFirst.isEmpty()) {
      return null;
    }
    RaftEndpointPersistentState endpoint = null;
    RaftGroupMembersView members = null;
    RaftTermPersistentState term = null;
    TreeMap<Long, LogEntry> log = new TreeMap<>();
    for (int i = newestFirst.size() - 1; i >= 0; i--) {
      JournalRecord r = newestFirst.get(i).getJournal();
      if (r.hasEntry()) {
        log.put(r.getEntry().getIndex(), codec.logEntry(r.getEntry()));
      } else if (r.getTruncateFrom() > 0) {
        log.tailMap(r.getTruncateFrom(), true).clear();
      } else if (r.getTruncateUntil() > 0) {
        log.headMap(r.getTruncateUntil(), true).clear();
      } else if (r.getHasTerm()) {
        term = models.createRaftTermPersistentStateBuilder().setTerm(r.getTerm())
            .setVotedFor(r.getVotedFor().isEmpty() ? null : RaftCodec.endpoint(r.getVotedFor())).build();
      } else if (r.getHasMembers()) {
        members = models.createRaftGroupMembersViewBuilder().setLogIndex(r.getMembersLogIndex())
            .setMembers(endpoints(r.getMembersList())).setVotingMembers(endpoints(r.getVotingMembersList())).build();
      } else if (!r.getEndpoint().isEmpty()) {
        endpoint = models.createRaftEndpointPersistentStateBuilder().setLocalEndpoint(RaftCodec.endpoint(r.getEndpoint()))
            .setVoting(r.getEndpointVoting()).build();
      }
    }
    if (endpoint == null || members == null) {
      return null; // crashed before the first records were written: start afresh (nothing was acknowledged)
    }
    if (term == null) {
      term = models.createRaftTermPersistentStateBuilder().setTerm(0).setVotedFor(null).build();
    }
    long expected = log.isEmpty() ? 0 : log.firstKey();
    for (long index : log.keySet()) {
      Invariants.check(index == expected, "NuKV Raft journal has a gap: entry %s after %s", index, expected - 1);
      expected++;
    }
    return new RestoredRaftState(endpoint, members, term, null, new ArrayList<>(log.values()));
  }

  private static List<RaftEndpoint> endpoints(List<String> ids) {
    List<RaftEndpoint> out = new ArrayList<>(ids.size());
    for (String id : ids) {
      out.add(RaftCodec.endpoint(id));
    }
    return out;
  }
}
