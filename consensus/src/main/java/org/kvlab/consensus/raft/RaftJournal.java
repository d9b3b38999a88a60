package org.kvlab.consensus.raft;

import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.log.SnapshotChunk;
import io.microraft.model.log.SnapshotEntry;
import io.microraft.model.persistence.RaftEndpointPersistentState;
import io.microraft.model.persistence.RaftTermPersistentState;
import io.microraft.persistence.RaftStore;
import io.microraft.persistence.RestoredRaftState;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.kvlab.api.Invariants;
import org.kvlab.api.VersionKey;
import org.kvlab.store.VersionedStore;

/**
 * MicroRaft's persistent state in kvlab's store, so the same code is durable on JE and replayable in the
 * simulator: an append-only journal under one reserved key ({@link Format#key}) whose versions are numbered records
 * (a log entry, a truncation, the term and vote, the group members, the local endpoint, a snapshot chunk). Restoring
 * replays the journal in order. Durability follows the cluster's {@code storage.durability}: under {@code sync}
 * kvlab holds replies and channel acknowledgements until a group fsync covers the journal records
 * written before them, which is what Raft asks of {@link #flush()} (so flush itself does nothing). Not the kit's
 * durable slot ({@link org.kvlab.api.ServerContext#slot}): a slot is one value rewritten whole at the end of every
 * turn, and the journal is a log that grows by a record per entry, is compacted by pruning and writes a snapshot's
 * chunks a slice per turn; as a slot it would rewrite the whole log and snapshot on every commit.
 *
 * <p>Compaction: once every chunk of a snapshot is persisted (MicroRaft takes one every
 * {@code snapshotEvery} commits, or a lagging replica receives one from the leader), the journal restates its
 * whole meaning after the records it has: the endpoint, members and term and each log entry after the snapshot,
 * one record each, after which every record before the snapshot's first chunk record is superseded (and pruned,
 * see below). Each record of the
 * restatement says again what the journal already means, so a replay that reads the old records and then a part
 * of the restatement (a crash while writing it) means the same as the old journal, and a replay from the
 * snapshot's chunks on means all of it. The chunk records themselves stay where they were written and are not
 * written again (a snapshot is written to the journal once); only if some of them were pruned already (an older
 * snapshot completed while this one was arriving) are the chunks restated too, from memory, before the entries.
 * No record is larger than one snapshot chunk (one part of the application's state) or one log entry, however
 * large the snapshot.
 *
 * <p>Pruning: the records before the snapshot's chunks (the previous snapshot and the entries since it) are removed
 * by version key ({@link VersionedStore#pruneRange} from the oldest record left: the store reads none of them; the
 * journal's version key is its position) and not within the snapshot's own persist, which MicroRaft runs on the replica's event loop: after the
 * restatement is written they are only marked superseded, and every later record other than a snapshot chunk prunes
 * {@value #PRUNE_PER_RECORD} of them, oldest first. Pruning later is safe because a replay that meets superseded
 * records before the snapshot's chunks and restatement ends in the same state (as after a crash in the middle of a
 * prune), and what a crash leaves of the store is a prefix of its puts and deletes, so the records left are always
 * a suffix of the journal. A compaction that finds the
 * previous one's records not all pruned yet (snapshots closer together than {@value #PRUNE_PER_RECORD} records per
 * superseded record) prunes the rest at once, so superseded records of at most one compaction wait. The journal
 * thus holds at most about two snapshots and {@code 2 * snapshotEvery} entries; in a steady stream of writes the
 * previous snapshot's records are gone after about a quarter of the interval. A restart forgets which records were
 * superseded; the next compaction prunes them with its own.
 *
 * <p>Held chunks: the chunks of a snapshot this replica takes itself (announced by {@link #taking}) are not written in
 * MicroRaft's {@code persistSnapshotChunk}, which runs in the snapshot's event-loop turn, but held in memory and
 * written later by {@link #writeHeld}, a slice per turn ({@link RaftGroup} calls it from a timer), the compaction with
 * the last of them. Safe because the journal keeps meaning what it meant before the snapshot until its last chunk is
 * written: the previous snapshot and every entry since, none of which the held snapshot's compaction has superseded
 * yet; MicroRaft's {@code truncateLogEntriesUntil} for the held snapshot (at or below its index, right after its
 * chunks) is not written, as the snapshot's completion implies it. A crash with k of n chunks written restarts from
 * the previous snapshot and the whole log (the k records are a partial snapshot, which {@link #dropPartial} voids at
 * the next start). Raft loses nothing by forgetting a snapshot as long as the entries it covers are kept, and a
 * snapshot holds only committed entries, so a leader may send followers the one it holds before it is written. What
 * MicroRaft's {@link #flush()} after the chunks must make durable before anything depends on it is the entries and
 * the term, which are written as before. Everything else is written at once: a chunk received from a leader, or of
 * another snapshot, first writes every held chunk (so at most one snapshot is held), and so does {@link #restored}
 * (a RaftNode rebuilt from the journal restores the snapshot its predecessor took).
 */
public final class RaftJournal<R> implements RaftStore {
  /** How the journal's records are kept among the application's records in its store. */
  public interface Format<R> {
    /** The reserved key the records are versions of (user keys cannot start with a NUL character). */
    String key();

    /** The store record holding journal record {@code r} at position {@code seq}; its version key is {@link
     * #versionKey}(seq). */
    R record(long seq, JournalRecord r);

    JournalRecord journal(R stored);

    long seq(R stored);
  }

  /**
   * The format of a store that holds only the journal, under {@code key}: records are {@link JournalEntry}s, whose
   * version key is {@link #versionKey}(seq) (the server's {@code RecordType} must give it).
   */
  public static Format<JournalEntry> entries(String key) {
    return format(key, (seq, r) -> JournalEntry.newBuilder().setSeq(seq).setRecord(r).build(),
        JournalEntry::getRecord, JournalEntry::getSeq);
  }

  /** The format that keeps journal record r at position seq as {@code record(seq, r)} under {@code key}. */
  public static <R> Format<R> format(String key, BiFunction<Long, JournalRecord, R> record,
      Function<R, JournalRecord> journal, ToLongFunction<R> seq) {
    return new Format<>() {
      @Override
      public String key() {
        return key;
      }

      @Override
      public R record(long at, JournalRecord r) {
        return record.apply(at, r);
      }

      @Override
      public JournalRecord journal(R stored) {
        return journal.apply(stored);
      }

      @Override
      public long seq(R stored) {
        return seq.applyAsLong(stored);
      }
    };
  }

  /** Superseded records pruned with each record appended (but a snapshot chunk's) while some wait. */
  public static final int PRUNE_PER_RECORD = 4;

  private final VersionedStore<R> store;
  private final Format<R> format;
  private final String key;
  private final RaftCodec codec;
  private final State state = new State();
  private long seq;
  /** The journal's oldest record still in the store (records before it are pruned). */
  private long oldest;
  /** Records before this one are superseded: a compaction restated what they mean after them. */
  private long supersededBelow;
  /** Whether this replica's own snapshots' chunks are held and written later (see the class comment). */
  private boolean holdOwn = true;
  /** The index of the snapshot this replica is taking, until its chunks are all written (0: none). */
  private long ownIndex;
  /** Chunks MicroRaft persisted so far of the snapshot at {@link #ownIndex}. */
  private int ownChunks;
  /** The snapshot at {@link #ownIndex}'s chunks not written yet, in chunk order. */
  private final ArrayDeque<SnapshotChunk> held = new ArrayDeque<>();

  /** Opens the journal {@code store} holds under {@code format}'s key (replays it). */
  public RaftJournal(VersionedStore<R> store, Format<R> format, RaftCodec codec) {
    this.store = store;
    this.format = format;
    this.key = format.key();
    this.codec = codec;
    List<R> newestFirst = store.versions(key);
    for (int i = newestFirst.size() - 1; i >= 0; i--) {
      state.apply(format.journal(newestFirst.get(i)), format.seq(newestFirst.get(i)));
    }
    this.seq = newestFirst.isEmpty() ? 0 : format.seq(newestFirst.get(0));
    this.oldest = newestFirst.isEmpty() ? 1 : format.seq(newestFirst.get(newestFirst.size() - 1));
    this.supersededBelow = oldest;
  }

  /**
   * From now on holds this replica's own snapshots' chunks (true, the default) or writes them in MicroRaft's persist,
   * in the snapshot's turn (a benchmark compares both on one journal).
   */
  public void holdOwnSnapshots(boolean hold) {
    writeHeld(Long.MAX_VALUE);
    holdOwn = hold;
  }

  /**
   * This replica is taking a snapshot at {@code index}: MicroRaft persists its chunks next, and they are held (see the
   * class comment). Chunks still held of an earlier snapshot are written first, and a partial snapshot at the same
   * index in the journal (chunks written or received before a crash; the one taken now may be cut otherwise) is voided.
   */
  public void taking(long index) {
    writeHeld(Long.MAX_VALUE);
    Invariants.check(index > state.snapshotIndex, "Raft snapshot at %s taken, the journal has one at %s", index,
        state.snapshotIndex);
    if (state.pending.containsKey(index)) {
      record(JournalRecord.newBuilder().setDeleteChunks(index).build());
    }
    ownIndex = holdOwn ? index : 0;
    ownChunks = 0;
  }

  /** Chunks held, not written yet (0: the journal holds every snapshot MicroRaft persisted). */
  public int held() {
    return held.size();
  }

  /**
   * Writes held chunks, in order, until {@code budget} bytes of chunk records are written (at least one chunk) or none
   * is left; the last one completes the snapshot and compacts the journal. Returns the chunks still held.
   */
  public int writeHeld(long budget) {
    long written = 0;
    while (!held.isEmpty() && (written == 0 || written < budget)) {
      SnapshotChunk c = held.poll();
      JournalRecord r = JournalRecord.newBuilder().setChunk(RaftCodec.chunk(c)).build();
      written += r.getSerializedSize();
      boolean completed = record(r);
      Invariants.check(completed == held.isEmpty(), "Raft snapshot at %s: writing chunk %s of %s %s",
          c.getIndex(), c.getSnapshotChunkIndex(), c.getSnapshotChunkCount(),
          completed ? "completed it early" : "did not complete it");
      if (completed) {
        checkpoint();
        ownIndex = 0;
      }
    }
    return held.size();
  }

  /**
   * Voids the journal's partial snapshots: chunks written of a snapshot that never completed (a crash while they were
   * written or received). A server calls it as it starts, so that a snapshot taken or received again at the same index
   * is not completed with chunks of the earlier one, which may be cut otherwise (after a restart the store may hold
   * newer versions, so a snapshot at the same index may hold more keys). Returns how many it voided.
   */
  public int dropPartial() {
    List<Long> partial = new ArrayList<>(state.pending.keySet());
    for (long index : partial) {
      record(JournalRecord.newBuilder().setDeleteChunks(index).build());
    }
    return partial.size();
  }

  /** The version key of the journal record at position {@code seq}: the application's record type must give it. */
  public static byte[] versionKey(long seq) {
    return VersionKey.of(seq);
  }

  /** Journal records (versions of the key) in the store: tests check compaction with it. */
  public int records() {
    return store.versions(key).size();
  }

  /** Journal records in the store, from the positions of the first and last (none is read; benchmarks, tests). */
  public long storedRecords() {
    return seq - oldest + 1;
  }

  /** Superseded records still in the store, waiting to be pruned (tests). */
  public long superseded() {
    return supersededBelow - oldest;
  }

  /** Appends a record and applies it to the in-memory mirror; true if it completed a snapshot. */
  private boolean record(JournalRecord r) {
    store.put(key, format.record(++seq, r));
    boolean completed = state.apply(r, seq);
    if (!r.hasChunk()) {
      pruneSuperseded(PRUNE_PER_RECORD); // not in a snapshot's persist: MicroRaft runs it on the event loop
    }
    return completed;
  }

  /** Prunes up to {@code n} superseded records, oldest first. */
  private void pruneSuperseded(long n) {
    if (oldest < supersededBelow) {
      long below = Math.min(supersededBelow, oldest + n);
      store.pruneRange(key, versionKey(oldest), versionKey(below));
      oldest = below;
    }
  }

  @Override
  public void persistAndFlushLocalEndpoint(RaftEndpointPersistentState s) {
    record(JournalRecord.newBuilder().setEndpoint(s.getLocalEndpoint().getId().toString())
        .setEndpointVoting(s.isVoting()).build());
  }

  @Override
  public void persistAndFlushInitialGroupMembers(RaftGroupMembersView v) {
    record(JournalRecord.newBuilder().setHasMembers(true).setMembersLogIndex(v.getLogIndex())
        .addAllMembers(RaftCodec.ids(v.getMembers())).addAllVotingMembers(RaftCodec.ids(v.getVotingMembers())).build());
  }

  @Override
  public void persistAndFlushTerm(RaftTermPersistentState s) {
    JournalRecord.Builder b = JournalRecord.newBuilder().setHasTerm(true).setTerm(s.getTerm());
    if (s.getVotedFor() != null) {
      b.setVotedFor(s.getVotedFor().getId().toString());
    }
    record(b.build());
  }

  @Override
  public void persistLogEntries(List<LogEntry> entries) {
    for (LogEntry e : entries) {
      record(JournalRecord.newBuilder().setEntry(codec.entry(e)).build());
    }
  }

  @Override
  public void persistSnapshotChunk(SnapshotChunk chunk) {
    if (ownIndex > 0 && chunk.getIndex() == ownIndex) {
      // This replica's own snapshot (see taking): held, written by writeHeld. MicroRaft persists its chunks in order.
      Invariants.check(chunk.getSnapshotChunkIndex() == ownChunks, "Raft snapshot at %s: chunk %s persisted"
          + " after %s", ownIndex, chunk.getSnapshotChunkIndex(), ownChunks);
      ownChunks++;
      held.add(chunk);
      return;
    }
    writeHeld(Long.MAX_VALUE); // a leader's snapshot arriving: at most one snapshot is held, and it is older
    ownIndex = 0;
    if (record(JournalRecord.newBuilder().setChunk(RaftCodec.chunk(chunk)).build())) {
      checkpoint();
    }
  }

  /**
   * Restates the journal record by record (see the class comment) and supersedes everything before the snapshot's
   * chunk records (or, if they are restated too, before the restatement).
   */
  private void checkpoint() {
    // Every chunk record is still in the journal and none is superseded (a chunk of this snapshot persisted before an
    // older snapshot completed is, and may be pruned any time).
    boolean inPlace = state.snapshotFrom >= supersededBelow;
    long from = inPlace ? state.snapshotFrom : seq + 1;
    List<JournalRecord> restated = new ArrayList<>();
    for (JournalRecord r : new JournalRecord[] {state.endpoint, state.members, state.term}) {
      if (r != null) {
        restated.add(r);
      }
    }
    if (!inPlace) {
      restated.addAll(state.snapshot);
    }
    restated.addAll(state.log.values());
    for (JournalRecord r : restated) {
      boolean completed = record(r);
      Invariants.check(!completed, "restating snapshot %s completed a snapshot again", state.snapshotIndex);
    }
    Invariants.check(from <= seq, "Raft journal compaction from %s past its last record %s", from, seq);
    Invariants.check(from >= supersededBelow, "Raft journal compaction from %s, below the superseded %s", from,
        supersededBelow);
    pruneSuperseded(supersededBelow - oldest); // what an earlier compaction left (see the class comment)
    supersededBelow = from;
    checkpoints++;
    if (inPlace) {
      chunksKeptInPlace++;
    }
  }

  /** Compactions so far (tests). */
  private int checkpoints;

  public int checkpoints() {
    return checkpoints;
  }

  /** Compactions that left the snapshot's chunk records where they were (tests). */
  private int chunksKeptInPlace;

  public int chunksKeptInPlace() {
    return chunksKeptInPlace;
  }

  @Override
  public void truncateLogEntriesFrom(long index) {
    // Raft truncates only entries not committed, and a snapshot holds only committed ones.
    Invariants.check(index > Math.max(ownIndex, state.snapshotIndex), "Raft log truncated from %s, a snapshot at"
        + " %s covers it", index, Math.max(ownIndex, state.snapshotIndex));
    record(JournalRecord.newBuilder().setTruncateFrom(index).build());
  }

  @Override
  public void truncateLogEntriesUntil(long index) {
    if (!held.isEmpty() && index <= ownIndex) {
      // After the held snapshot's chunks: not written, the snapshot's completion drops every entry it covers (until
      // then the journal keeps them: the previous snapshot does not cover them).
      return;
    }
    writeHeld(Long.MAX_VALUE);
    record(JournalRecord.newBuilder().setTruncateUntil(index).build());
  }

  @Override
  public void deleteSnapshotChunks(long index, int count) {
    record(JournalRecord.newBuilder().setDeleteChunks(index).build());
  }

  @Override
  public void flush() {
    // kvlab's runtime makes replies and acknowledgements wait for the group fsync (durability: sync)
  }

  /**
   * What this journal holds, as MicroRaft restores it; null if it holds no endpoint and members yet. Held chunks are
   * written first: a RaftNode rebuilt from the journal restores the snapshot its predecessor took (else it would take
   * it again, below what this replica applied).
   */
  public RestoredRaftState restored() {
    writeHeld(Long.MAX_VALUE);
    var models = codec.models();
    if (state.endpoint == null || state.members == null) {
      return null; // crashed before the first records were written: start afresh (nothing was acknowledged)
    }
    JournalRecord m = state.members;
    RaftGroupMembersView members = models.createRaftGroupMembersViewBuilder().setLogIndex(m.getMembersLogIndex())
        .setMembers(RaftCodec.endpoints(m.getMembersList()))
        .setVotingMembers(RaftCodec.endpoints(m.getVotingMembersList())).build();
    RaftEndpointPersistentState endpoint = models.createRaftEndpointPersistentStateBuilder()
        .setLocalEndpoint(RaftCodec.endpoint(state.endpoint.getEndpoint())).setVoting(state.endpoint.getEndpointVoting())
        .build();
    RaftTermPersistentState term = state.term == null
        ? models.createRaftTermPersistentStateBuilder().setTerm(0).setVotedFor(null).build()
        : models.createRaftTermPersistentStateBuilder().setTerm(state.term.getTerm())
            .setVotedFor(state.term.getVotedFor().isEmpty() ? null : RaftCodec.endpoint(state.term.getVotedFor())).build();
    SnapshotEntry snapshot = null;
    if (!state.snapshot.isEmpty()) {
      List<SnapshotChunk> chunks = new ArrayList<>();
      for (JournalRecord r : state.snapshot) {
        chunks.add(codec.snapshotChunk(r.getChunk()));
      }
      Chunk first = state.snapshot.get(0).getChunk();
      snapshot = models.createSnapshotEntryBuilder().setIndex(first.getIndex()).setTerm(first.getTerm())
          .setSnapshotChunks(chunks).setGroupMembersView(chunks.get(0).getGroupMembersView()).build();
    }
    List<LogEntry> log = new ArrayList<>();
    long expected = state.snapshot.isEmpty() ? (state.log.isEmpty() ? 0 : state.log.firstKey()) : state.snapshotIndex + 1;
    for (JournalRecord r : state.log.values()) {
      Invariants.check(r.getEntry().getIndex() == expected, "Raft journal has a gap: entry %s after %s",
          r.getEntry().getIndex(), expected - 1);
      expected++;
      log.add(codec.logEntry(r.getEntry()));
    }
    return new RestoredRaftState(endpoint, members, term, snapshot, log);
  }

  /** The journal's meaning so far: what a replay of its records gives. */
  private static final class State {
    JournalRecord endpoint;
    JournalRecord members;
    JournalRecord term;
    final TreeMap<Long, JournalRecord> log = new TreeMap<>();
    /** The newest complete snapshot's chunk records, in chunk order (empty if none). */
    List<JournalRecord> snapshot = List.of();
    long snapshotIndex;
    /** The journal position of the first record of the newest complete snapshot's chunks. */
    long snapshotFrom;
    /** Chunks of snapshots being persisted, by snapshot index and chunk index. */
    final TreeMap<Long, TreeMap<Integer, JournalRecord>> pending = new TreeMap<>();
    /** The journal position of the first chunk record of each snapshot being persisted. */
    final TreeMap<Long, Long> pendingFrom = new TreeMap<>();

    /** Applies one record, at position {@code at} of the journal; true if it completed a snapshot. */
    boolean apply(JournalRecord r, long at) {
      if (r.hasCheckpoint()) {
        // A whole journal state in one record (journals written before 2026-11 end their compactions with one).
        endpoint = null;
        members = null;
        term = null;
        log.clear();
        snapshot = List.of();
        snapshotIndex = 0;
        snapshotFrom = 0;
        pending.clear();
        pendingFrom.clear();
        for (JournalRecord inner : r.getCheckpoint().getRecordsList()) {
          apply(inner, at);
        }
        Invariants.check(snapshotIndex == r.getCheckpoint().getSnapshotIndex(),
            "Raft checkpoint restored snapshot %s, wrote %s", snapshotIndex, r.getCheckpoint().getSnapshotIndex());
        return false;
      } else if (r.hasChunk()) {
        Chunk c = r.getChunk();
        if (c.getIndex() <= snapshotIndex) {
          return false; // a chunk of a snapshot already superseded
        }
        TreeMap<Integer, JournalRecord> chunks = pending.computeIfAbsent(c.getIndex(), i -> new TreeMap<>());
        chunks.put(c.getChunkIndex(), r);
        pendingFrom.putIfAbsent(c.getIndex(), at);
        if (chunks.size() < c.getChunkCount()) {
          return false;
        }
        snapshot = List.copyOf(chunks.values());
        snapshotIndex = c.getIndex();
        snapshotFrom = pendingFrom.get(snapshotIndex);
        pending.headMap(snapshotIndex, true).clear();
        pendingFrom.headMap(snapshotIndex, true).clear();
        log.headMap(snapshotIndex, true).clear(); // what the snapshot covers
        return true;
      } else if (r.getDeleteChunks() > 0) {
        pending.remove(r.getDeleteChunks());
        pendingFrom.remove(r.getDeleteChunks());
      } else if (r.hasEntry()) {
        log.put(r.getEntry().getIndex(), r);
      } else if (r.getTruncateFrom() > 0) {
        log.tailMap(r.getTruncateFrom(), true).clear();
      } else if (r.getTruncateUntil() > 0) {
        log.headMap(r.getTruncateUntil(), true).clear();
      } else if (r.getHasTerm()) {
        term = r;
      } else if (r.getHasMembers()) {
        members = r;
      } else if (!r.getEndpoint().isEmpty()) {
        endpoint = r;
      }
      return false;
    }
  }
}
