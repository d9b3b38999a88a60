package org.kvlab.protocols.nukv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.microraft.model.RaftModelFactory;
import io.microraft.model.impl.DefaultRaftModelFactory;
import io.microraft.model.log.LogEntry;
import io.microraft.persistence.RestoredRaftState;
import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.consensus.raft.Checkpoint;
import org.kvlab.consensus.raft.JournalRecord;
import org.kvlab.consensus.raft.RaftCodec;
import org.kvlab.consensus.raft.RaftJournal;
import org.kvlab.store.Durability;
import org.kvlab.store.InMemoryStore;
import org.kvlab.store.JeStore;

/**
 * The Raft journal (kvlab-consensus's RaftJournal) in a NuKV replica's store, with NuKV's records and snapshot parts:
 * what MicroRaft persisted is what a restart restores, truncations included.
 */
class NuKVJournalTest {
  private final RaftModelFactory models = new DefaultRaftModelFactory();
  private final RaftCodec codec = new RaftCodec(models, Op.parser());

  private LogEntry entry(long index, int term, String key) {
    return models.createLogEntryBuilder().setIndex(index).setTerm(term)
        .setOperation(Op.newBuilder().setKey(key).build()).build();
  }

  @Test
  void when_entriesTermAndMembersArePersisted_then_aRestartRestoresThemWithTruncationsApplied() throws Exception {
    InMemoryStore<Stored> store = new InMemoryStore<>(NuKV.RECORD);
    assertNull(NuKVJournal.open(store, codec).restored(), "nothing persisted: a fresh start");
    RaftCodec.Endpoint self = new RaftCodec.Endpoint(NodeId.of(0, 0, 1));
    List<io.microraft.RaftEndpoint> members = List.of(new RaftCodec.Endpoint(NodeId.of(0, 0, 0)), self,
        new RaftCodec.Endpoint(NodeId.of(0, 0, 2)));
    RaftJournal<Stored> journal = NuKVJournal.open(store, codec);
    journal.persistAndFlushLocalEndpoint(models.createRaftEndpointPersistentStateBuilder().setLocalEndpoint(self)
        .setVoting(true).build());
    journal.persistAndFlushInitialGroupMembers(models.createRaftGroupMembersViewBuilder().setLogIndex(0)
        .setMembers(members).setVotingMembers(members).build());
    journal.persistAndFlushTerm(models.createRaftTermPersistentStateBuilder().setTerm(2)
        .setVotedFor(members.get(0)).build());
    journal.persistLogEntries(List.of(entry(1, 1, "a"), entry(2, 1, "b"), entry(3, 2, "c")));
    journal.truncateLogEntriesFrom(3); // a new leader overwrote entry 3
    journal.persistLogEntries(List.of(entry(3, 3, "c2"), entry(4, 3, "d")));
    journal.persistAndFlushTerm(models.createRaftTermPersistentStateBuilder().setTerm(3).setVotedFor(null).build());

    RaftJournal<Stored> reopened = NuKVJournal.open(store, codec); // continues the journal's numbering
    reopened.persistLogEntries(List.of(entry(5, 3, "e")));
    RestoredRaftState r = NuKVJournal.open(store, codec).restored();
    assertEquals(NodeId.of(0, 0, 1), r.getLocalEndpointPersistentState().getLocalEndpoint().getId());
    assertEquals(3, r.getInitialGroupMembers().getMembers().size());
    assertEquals(3, r.getTermPersistentState().getTerm());
    assertNull(r.getTermPersistentState().getVotedFor());
    assertEquals(List.of("a", "b", "c2", "d", "e"),
        r.getLogEntries().stream().map(e -> ((Op) e.getOperation()).getKey()).toList());
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L), r.getLogEntries().stream().map(LogEntry::getIndex).toList());
    assertEquals(3, r.getLogEntries().get(2).getTerm());
  }

  @Test
  void when_aSnapshotIsComplete_then_theJournalIsCompactedAndARestartRestoresTheSnapshotAndTheEntriesAfterIt()
      throws Exception {
    InMemoryStore<Stored> store = new InMemoryStore<>(NuKV.RECORD);
    RaftCodec.Endpoint self = new RaftCodec.Endpoint(NodeId.of(0, 0, 0));
    List<io.microraft.RaftEndpoint> members = List.of(self, new RaftCodec.Endpoint(NodeId.of(0, 0, 1)),
        new RaftCodec.Endpoint(NodeId.of(0, 0, 2)));
    var view = models.createRaftGroupMembersViewBuilder().setLogIndex(0).setMembers(members).setVotingMembers(members)
        .build();
    RaftJournal<Stored> journal = NuKVJournal.open(store, codec);
    journal.persistAndFlushLocalEndpoint(models.createRaftEndpointPersistentStateBuilder().setLocalEndpoint(self)
        .setVoting(true).build());
    journal.persistAndFlushInitialGroupMembers(view);
    journal.persistAndFlushTerm(models.createRaftTermPersistentStateBuilder().setTerm(1).setVotedFor(self).build());
    for (long i = 1; i <= 120; i++) {
      journal.persistLogEntries(List.of(entry(i, 1, "k" + i)));
    }
    int before = journal.records();
    // A snapshot at 100 in two chunks, the second persisted first (MicroRaft may persist them in any order), and a
    // stale chunk of an abandoned snapshot at 90 that a deletion voids.
    journal.persistSnapshotChunk(chunk(90, 0, 2, "stale", view));
    journal.deleteSnapshotChunks(90, 2);
    journal.persistSnapshotChunk(chunk(100, 1, 2, "b", view));
    assertEquals(before + 3, journal.records(), "an incomplete snapshot compacts nothing");
    journal.persistSnapshotChunk(chunk(100, 0, 2, "a", view));
    journal.truncateLogEntriesUntil(100);
    journal.persistLogEntries(List.of(entry(121, 1, "k121")));
    // Compacted: the 2 chunks, the restatement (endpoint, members, term, entries 101-120) and the 2 records after it;
    // the 125 records before the first chunk are superseded, and the 2 records after the restatement pruned 4 each.
    assertEquals(1, journal.checkpoints());
    assertEquals(125 - 2 * RaftJournal.PRUNE_PER_RECORD, journal.superseded());
    assertEquals(3 + 2 + 20 + 2 + journal.superseded(), journal.records());
    assertEquals(journal.storedRecords(), journal.records());
    assertRestoresSnapshot100(store, 121); // superseded records still there: the same state

    // Later records prune the superseded ones, oldest first, until none is left.
    long i = 122;
    for (; journal.superseded() > 0; i++) {
      journal.persistLogEntries(List.of(entry(i, 1, "k" + i)));
    }
    assertEquals(152, i, "30 records pruned the 117 left, 4 each");
    assertEquals(3 + 2 + 20 + 2 + 30, journal.records(), "compaction replaced " + before + " records");
    assertEquals(journal.storedRecords(), journal.records());
    assertTrue(store.versions(NuKVJournal.KEY).get(journal.records() - 1).getJournal().hasChunk(),
        "the oldest record is the snapshot's first chunk");
    assertRestoresSnapshot100(store, 151);
  }

  private void assertRestoresSnapshot100(InMemoryStore<Stored> store, long lastEntry) {
    RestoredRaftState r = NuKVJournal.open(store, codec).restored();
    assertEquals(100, r.getSnapshotEntry().getIndex());
    @SuppressWarnings("unchecked")
    List<io.microraft.model.log.SnapshotChunk> chunks =
        (List<io.microraft.model.log.SnapshotChunk>) r.getSnapshotEntry().getOperation();
    assertEquals(List.of("a", "b"), chunks.stream()
        .map(c -> part(c.getOperation()).getOps(0).getKey()).toList());
    assertEquals(3, r.getSnapshotEntry().getGroupMembersView().getMembers().size());
    assertEquals(java.util.stream.LongStream.rangeClosed(101, lastEntry).boxed().toList(),
        r.getLogEntries().stream().map(LogEntry::getIndex).toList());
    assertEquals(1, r.getTermPersistentState().getTerm());
    assertEquals(NodeId.of(0, 0, 0), r.getLocalEndpointPersistentState().getLocalEndpoint().getId());
  }

  /**
   * Issue 15: compaction scales with the snapshot. A snapshot of 100,000 keys (100 chunks of 1,000, as the server cuts
   * them) is compacted into records none larger than a chunk (the earlier journal wrote the whole snapshot as one
   * record); a restart restores every chunk in order; the next snapshot prunes the previous one's records.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS)
  void when_aSnapshotHoldsManyKeys_then_noJournalRecordIsLargerThanAChunkAndARestartRestoresItAll() throws Exception {
    InMemoryStore<Stored> store = new InMemoryStore<>(NuKV.RECORD);
    RaftCodec.Endpoint self = new RaftCodec.Endpoint(NodeId.of(0, 0, 0));
    List<io.microraft.RaftEndpoint> members = List.of(self, new RaftCodec.Endpoint(NodeId.of(0, 0, 1)),
        new RaftCodec.Endpoint(NodeId.of(0, 0, 2)));
    var view = models.createRaftGroupMembersViewBuilder().setLogIndex(0).setMembers(members).setVotingMembers(members)
        .build();
    RaftJournal<Stored> journal = NuKVJournal.open(store, codec);
    journal.persistAndFlushLocalEndpoint(models.createRaftEndpointPersistentStateBuilder().setLocalEndpoint(self)
        .setVoting(true).build());
    journal.persistAndFlushInitialGroupMembers(view);
    journal.persistAndFlushTerm(models.createRaftTermPersistentStateBuilder().setTerm(1).setVotedFor(self).build());
    int chunks = 100;
    int perChunk = NuKVServer.SNAPSHOT_CHUNK_KEYS;
    for (int round = 1; round <= 2; round++) {
      long index = round * 1_000L;
      for (long i = index - 999; i <= index + 10; i++) {
        journal.persistLogEntries(List.of(entry(i, 1, "e" + i)));
      }
      for (int c = 0; c < chunks; c++) {
        journal.persistSnapshotChunk(bigChunk(index, c, chunks, perChunk, view));
      }
      journal.truncateLogEntriesUntil(index);
      assertEquals(round, journal.checkpoints());
      // Round 1 supersedes the 3 first records and 1,010 entries, round 2 the first snapshot and 1,023 records more
      // (the first round's were pruned by the 1,010 entries of round 2); the truncation pruned 4.
      assertEquals((round == 1 ? 3 + 1_010 : chunks + 13 + 1 + 1_010) - RaftJournal.PRUNE_PER_RECORD,
          journal.superseded(), "round " + round);
      assertEquals(3 + chunks + 10 + 1 + journal.superseded(), journal.records(),
          "round " + round + ": the restatement, the truncation and the superseded records");
    }
    int largestChunk = 0;
    for (int c = 0; c < chunks; c++) {
      largestChunk = Math.max(largestChunk, JournalRecord.newBuilder()
          .setChunk(RaftCodec.chunk(bigChunk(2_000, c, chunks, perChunk, view))).build().getSerializedSize());
    }
    for (Stored r : store.versions(NuKVJournal.KEY)) {
      assertTrue(r.getSerializedSize() <= largestChunk + 64, "a journal record of " + r.getSerializedSize()
          + " bytes, a chunk is " + largestChunk);
    }

    RestoredRaftState r = NuKVJournal.open(store, codec).restored();
    assertEquals(2_000, r.getSnapshotEntry().getIndex());
    @SuppressWarnings("unchecked")
    List<io.microraft.model.log.SnapshotChunk> restored =
        (List<io.microraft.model.log.SnapshotChunk>) r.getSnapshotEntry().getOperation();
    assertEquals(chunks, restored.size());
    long keys = 0;
    for (int c = 0; c < chunks; c++) {
      SnapshotPart part = part(restored.get(c).getOperation());
      assertEquals(c, restored.get(c).getSnapshotChunkIndex());
      assertEquals("2000/" + c + "/0", part.getOps(0).getKey());
      keys += part.getOpsCount();
    }
    assertEquals((long) chunks * perChunk, keys);
    assertEquals(java.util.stream.LongStream.rangeClosed(2_001, 2_010).boxed().toList(),
        r.getLogEntries().stream().map(LogEntry::getIndex).toList());
  }

  /**
   * Issue 15: a snapshot is written to the journal once. The compaction restates the endpoint, members, term and the
   * entries after the snapshot and prunes everything before the snapshot's first chunk, so the chunk records stay
   * where MicroRaft persisted them; a restart restores the snapshot and the entries after it.
   */
  @Test
  void when_aSnapshotCompletes_then_itsChunksAreNotWrittenAgainAndARestartRestoresIt() throws Exception {
    InMemoryStore<Stored> store = new InMemoryStore<>(NuKV.RECORD);
    var view = view();
    RaftJournal<Stored> journal = sixtyEntriesAndASnapshotAt50(store, view);
    assertEquals(1, journal.checkpoints());
    assertEquals(1, journal.chunksKeptInPlace());
    List<Stored> records = store.versions(NuKVJournal.KEY);
    assertEquals(5, records.stream().filter(r -> r.getJournal().hasChunk()).count(), "each chunk once");
    // The chunks, then the restatement: endpoint, members, term, entries 51-60; the 63 records before the chunks are
    // superseded, not pruned yet (nothing was written after the restatement).
    assertEquals(63, journal.superseded());
    assertEquals(5 + 3 + 10 + 63, records.size());

    RestoredRaftState r = NuKVJournal.open(store, codec).restored();
    assertEquals(50, r.getSnapshotEntry().getIndex());
    @SuppressWarnings("unchecked")
    List<io.microraft.model.log.SnapshotChunk> chunks =
        (List<io.microraft.model.log.SnapshotChunk>) r.getSnapshotEntry().getOperation();
    assertEquals(5, chunks.size());
    assertEquals(java.util.stream.LongStream.rangeClosed(51, 60).boxed().toList(),
        r.getLogEntries().stream().map(LogEntry::getIndex).toList());
    assertEquals(NodeId.of(0, 0, 0), r.getLocalEndpointPersistentState().getLocalEndpoint().getId());
    assertEquals(1, r.getTermPersistentState().getTerm());

    // A restart forgets which records were superseded: they stay until the next compaction. The next snapshot, in the
    // reopened journal, supersedes them with this one's chunks; later records prune them.
    RaftJournal<Stored> reopened = NuKVJournal.open(store, codec);
    assertEquals(0, reopened.superseded());
    for (long i = 61; i <= 110; i++) {
      reopened.persistLogEntries(List.of(entry(i, 1, "k" + i)));
    }
    assertEquals(5 + 3 + 10 + 63 + 50, reopened.records(), "nothing pruned after the restart");
    for (int c = 0; c < 5; c++) {
      reopened.persistSnapshotChunk(bigChunk(100, c, 5, 10, view));
    }
    assertEquals(1, reopened.chunksKeptInPlace());
    assertEquals(5 + 3 + 10 + 63 + 50, reopened.superseded());
    assertEquals(100, NuKVJournal.open(store, codec).restored().getSnapshotEntry().getIndex());
    for (long i = 111; reopened.superseded() > 0; i++) {
      reopened.persistLogEntries(List.of(entry(i, 1, "k" + i)));
    }
    records = store.versions(NuKVJournal.KEY);
    assertEquals(5, records.stream().filter(x -> x.getJournal().hasChunk()).count(), "the first snapshot's are gone");
    assertTrue(records.get(records.size() - 1).getJournal().hasChunk(), "the oldest record is the first chunk");
    assertEquals(100, records.get(records.size() - 1).getJournal().getChunk().getIndex());
    assertEquals(100, NuKVJournal.open(store, codec).restored().getSnapshotEntry().getIndex());
  }

  /**
   * A snapshot being received (chunk 0 of the snapshot at 200) while an older one completes (at 100): that compaction
   * supersedes the received chunk's record (it is pruned later, with the others before the snapshot at 100). When the
   * snapshot at 200 completes, its chunks are restated from memory (though the superseded record is still in the
   * store: it may be pruned any time), so a restart restores it whole, before and after the pruning.
   */
  @Test
  void when_aCompactionPrunedAChunkOfASnapshotStillArriving_then_itsCompletionRestatesTheChunks() throws Exception {
    InMemoryStore<Stored> store = new InMemoryStore<>(NuKV.RECORD);
    var view = view();
    RaftJournal<Stored> journal = started(store, view);
    for (long i = 1; i <= 120; i++) {
      journal.persistLogEntries(List.of(entry(i, 1, "k" + i)));
    }
    journal.persistSnapshotChunk(bigChunk(200, 0, 2, 3, view));
    journal.persistSnapshotChunk(bigChunk(100, 0, 2, 3, view));
    journal.persistSnapshotChunk(bigChunk(100, 1, 2, 3, view));
    assertEquals(1, journal.chunksKeptInPlace());
    assertEquals(124, journal.superseded(), "the 123 first records and the chunk of 200 written before the snapshot");
    assertEquals(1, store.versions(NuKVJournal.KEY).stream()
        .filter(r -> r.getJournal().hasChunk() && r.getJournal().getChunk().getIndex() == 200).count(),
        "superseded, not pruned yet");
    journal.persistSnapshotChunk(bigChunk(200, 1, 2, 3, view));
    assertEquals(2, journal.checkpoints());
    assertEquals(1, journal.chunksKeptInPlace(), "the second compaction restated the chunks");
    assertRestoresSnapshot200(store);

    for (long i = 201; journal.superseded() > 0; i++) {
      journal.persistLogEntries(List.of(entry(i, 1, "k" + i)));
    }
    assertEquals(2, store.versions(NuKVJournal.KEY).stream()
        .filter(r -> r.getJournal().hasChunk() && r.getJournal().getChunk().getIndex() == 200).count(),
        "the chunk of 200 written before the snapshot at 100 is pruned, the 2 restated ones are left");
    assertEquals(0, store.versions(NuKVJournal.KEY).stream()
        .filter(r -> r.getJournal().hasChunk() && r.getJournal().getChunk().getIndex() == 100).count());
    assertRestoresSnapshot200(store);
  }

  private void assertRestoresSnapshot200(InMemoryStore<Stored> store) {
    RestoredRaftState r = NuKVJournal.open(store, codec).restored();
    assertEquals(200, r.getSnapshotEntry().getIndex());
    @SuppressWarnings("unchecked")
    List<io.microraft.model.log.SnapshotChunk> chunks =
        (List<io.microraft.model.log.SnapshotChunk>) r.getSnapshotEntry().getOperation();
    assertEquals(List.of("200/0/0", "200/1/0"), chunks.stream()
        .map(c -> part(c.getOperation()).getOps(0).getKey()).toList());
    for (LogEntry e : r.getLogEntries()) {
      assertTrue(e.getIndex() > 200, "an entry the snapshot covers: " + e.getIndex());
    }
  }

  /**
   * A replica that stops at any point of the deferred prune (after any number of the superseded records are pruned,
   * oldest first, as a crash leaves them) restores the same state: the snapshot, the entries after it, term and
   * endpoint.
   */
  @Test
  void when_aReplicaRestartsAtAnyPointOfTheDeferredPrune_then_itRestoresTheSameState() throws Exception {
    InMemoryStore<Stored> store = new InMemoryStore<>(NuKV.RECORD);
    var view = view();
    RaftJournal<Stored> journal = sixtyEntriesAndASnapshotAt50(store, view);
    List<Stored> newestFirst = store.versions(NuKVJournal.KEY);
    assertEquals(63, journal.superseded());
    for (int pruned = 0; pruned <= 63; pruned++) {
      InMemoryStore<Stored> left = new InMemoryStore<>(NuKV.RECORD);
      for (int i = newestFirst.size() - 1 - pruned; i >= 0; i--) {
        left.put(NuKVJournal.KEY, newestFirst.get(i));
      }
      RestoredRaftState r = NuKVJournal.open(left, codec).restored();
      assertEquals(50, r.getSnapshotEntry().getIndex(), pruned + " pruned");
      @SuppressWarnings("unchecked")
      List<io.microraft.model.log.SnapshotChunk> chunks =
          (List<io.microraft.model.log.SnapshotChunk>) r.getSnapshotEntry().getOperation();
      assertEquals(List.of("50/0/0", "50/1/0", "50/2/0", "50/3/0", "50/4/0"), chunks.stream()
          .map(c -> part(c.getOperation()).getOps(0).getKey()).toList(), pruned + " pruned");
      assertEquals(java.util.stream.LongStream.rangeClosed(51, 60).boxed().toList(),
          r.getLogEntries().stream().map(LogEntry::getIndex).toList(), pruned + " pruned");
      assertEquals(1, r.getTermPersistentState().getTerm());
      assertEquals(NodeId.of(0, 0, 0), r.getLocalEndpointPersistentState().getLocalEndpoint().getId());
      assertEquals(3, r.getInitialGroupMembers().getMembers().size());
    }
  }

  /**
   * On JE, as a server runs it: a replica closed with superseded records left (a restart forgets them) restores
   * everything from the journal, keeps appending, and its next compaction supersedes and later records prune them.
   */
  @Test
  void when_aJeReplicaRestartsWithSupersededRecordsLeft_then_itRestoresEverythingAndPrunesThemLater(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    var view = view();
    try (JeStore<Stored> store = new JeStore<>(NuKV.RECORD, dir, Durability.SYNC)) {
      RaftJournal<Stored> journal = started(store, view);
      for (long i = 1; i <= 60; i++) {
        journal.persistLogEntries(List.of(entry(i, 1, "k" + i)));
      }
      for (int c = 0; c < 5; c++) {
        journal.persistSnapshotChunk(bigChunk(50, c, 5, 10, view));
      }
      journal.persistLogEntries(List.of(entry(61, 1, "k61"), entry(62, 1, "k62")));
      assertEquals(63 - 2 * RaftJournal.PRUNE_PER_RECORD, journal.superseded());
      store.sync();
    }
    try (JeStore<Stored> store = new JeStore<>(NuKV.RECORD, dir, Durability.SYNC)) {
      RestoredRaftState r = NuKVJournal.open(store, codec).restored();
      assertEquals(50, r.getSnapshotEntry().getIndex());
      assertEquals(java.util.stream.LongStream.rangeClosed(51, 62).boxed().toList(),
          r.getLogEntries().stream().map(LogEntry::getIndex).toList());
      RaftJournal<Stored> journal = NuKVJournal.open(store, codec);
      assertEquals(journal.storedRecords(), journal.records());
      for (long i = 63; i <= 110; i++) {
        journal.persistLogEntries(List.of(entry(i, 1, "k" + i)));
      }
      for (int c = 0; c < 5; c++) {
        journal.persistSnapshotChunk(bigChunk(100, c, 5, 10, view));
      }
      for (long i = 111; journal.superseded() > 0; i++) {
        journal.persistLogEntries(List.of(entry(i, 1, "k" + i)));
      }
      List<Stored> records = store.versions(NuKVJournal.KEY);
      assertEquals(journal.storedRecords(), records.size());
      assertEquals(100, records.get(records.size() - 1).getJournal().getChunk().getIndex(),
          "the oldest record is the snapshot at 100's first chunk");
      assertEquals(5, records.stream().filter(x -> x.getJournal().hasChunk()).count());
    }
    try (JeStore<Stored> store = new JeStore<>(NuKV.RECORD, dir, Durability.SYNC)) {
      RestoredRaftState r = NuKVJournal.open(store, codec).restored();
      assertEquals(100, r.getSnapshotEntry().getIndex());
      long last = r.getLogEntries().get(r.getLogEntries().size() - 1).getIndex();
      assertEquals(java.util.stream.LongStream.rangeClosed(101, last).boxed().toList(),
          r.getLogEntries().stream().map(LogEntry::getIndex).toList());
      assertEquals(NodeId.of(0, 0, 0), r.getLocalEndpointPersistentState().getLocalEndpoint().getId());
    }
  }

  /**
   * Journals left by earlier versions: the layout is unchanged, so a journal compacted by the earlier prune (every
   * record before the snapshot's chunks removed at once, as the store's prune does here) is continued as it is; a journal compacted into one checkpoint record (the first
   * version) restores too and is compacted the new way at the next snapshot.
   */
  @Test
  void when_aJournalWasWrittenByAnEarlierVersion_then_itIsRestoredAndContinued() throws Exception {
    var view = view();
    InMemoryStore<Stored> store = new InMemoryStore<>(NuKV.RECORD);
    RaftJournal<Stored> old = started(store, view);
    for (long i = 1; i <= 60; i++) {
      old.persistLogEntries(List.of(entry(i, 1, "k" + i)));
    }
    for (int c = 0; c < 5; c++) {
      old.persistSnapshotChunk(bigChunk(50, c, 5, 10, view));
    }
    long firstChunk = store.versions(NuKVJournal.KEY).stream().filter(x -> x.getJournal().hasChunk())
        .mapToLong(Stored::getSeq).min().orElseThrow();
    store.prune(NuKVJournal.KEY, x -> x.getSeq() <= firstChunk); // every version older than the newest such one
    assertEquals(5 + 3 + 10, old.records(), "pruned at once");
    continueTo100(store, view);

    // The first version's layout: a single checkpoint record holding endpoint, members, term, the snapshot's chunks
    // and the entries after it.
    InMemoryStore<Stored> first = new InMemoryStore<>(NuKV.RECORD);
    Checkpoint.Builder cp = Checkpoint.newBuilder().setSnapshotIndex(50);
    for (Stored x : store.versions(NuKVJournal.KEY)) {
      if (!x.getJournal().hasChunk() && !x.getJournal().hasEntry()) {
        cp.addRecords(x.getJournal()); // endpoint, members, term
      }
    }
    for (int c = 0; c < 5; c++) {
      cp.addRecords(JournalRecord.newBuilder().setChunk(RaftCodec.chunk(bigChunk(50, c, 5, 10, view))));
    }
    for (long i = 51; i <= 60; i++) {
      cp.addRecords(JournalRecord.newBuilder().setEntry(codec.entry(entry(i, 1, "k" + i))));
    }
    first.put(NuKVJournal.KEY, Stored.newBuilder().setSeq(7).setJournal(JournalRecord.newBuilder()
        .setCheckpoint(cp)).build());
    RestoredRaftState r = NuKVJournal.open(first, codec).restored();
    assertEquals(50, r.getSnapshotEntry().getIndex());
    assertEquals(java.util.stream.LongStream.rangeClosed(51, 60).boxed().toList(),
        r.getLogEntries().stream().map(LogEntry::getIndex).toList());
    continueTo100(first, view);
  }

  /**
   * Issue 15: a snapshot taken as the replica takes it now, parts handed over as their encodings ({@link
   * SnapshotSource}), on JE as a server runs it (user keys and the journal in one store). The journal's chunk records
   * are byte for byte what the parsed parts would give; the live journal restores the encoded parts (the watchdog's
   * rebuild); a restart after the second such snapshot parses them back to what a full read of the store lists, with
   * the entries after it; the restarted replica continues the journal, and the next snapshot, whose first take reads
   * every key again, is restored too.
   */
  @Test
  void when_snapshotsAreTakenAsEncodedParts_then_theJournalHoldsTheirBytesAndARestartRestoresThem(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    var view = view();
    SnapshotPart second;
    try (JeStore<Stored> store = new JeStore<>(NuKV.RECORD, dir, Durability.SYNC)) {
      SnapshotSource source = new SnapshotSource(store);
      RaftJournal<Stored> journal = started(store, view);
      for (int k = 0; k < 2_500; k++) {
        userWrite(store, source, "user" + k, 1 + k);
      }
      for (long i = 1; i <= 60; i++) {
        journal.persistLogEntries(List.of(entry(i, 1, "k" + i)));
      }
      List<ByteString> firstParts = persistTaken(journal, source, 50, view);
      assertEquals(3, firstParts.size());
      assertEquals(1, journal.checkpoints());
      for (ByteString p : firstParts) {
        SnapshotPart parsed = part(p);
        assertEquals(p, parsed.toByteString());
        assertEquals(p, RaftCodec.chunk(chunkOf(50, 0, 3, p, view)).getPart(), "a chunk record's part");
      }
      for (int k = 0; k < 2_500; k += 9) {
        userWrite(store, source, "user" + k, 10_000 + k);
      }
      for (long i = 61; i <= 110; i++) {
        journal.persistLogEntries(List.of(entry(i, 1, "k" + i)));
      }
      List<ByteString> secondParts = persistTaken(journal, source, 100, view);
      assertEquals(278, source.lastEncoded(), "only the changed keys are encoded");
      assertEquals(2, journal.checkpoints());
      second = merged(secondParts);
      assertEquals(fullRead(store, 2_500, 100), second);

      // The watchdog's rebuild restores from the live journal: the same parts, still encoded.
      @SuppressWarnings("unchecked")
      List<io.microraft.model.log.SnapshotChunk> live = (List<io.microraft.model.log.SnapshotChunk>)
          journal.restored().getSnapshotEntry().getOperation();
      assertEquals(secondParts, live.stream().map(io.microraft.model.log.SnapshotChunk::getOperation).toList());
      assertEquals(3, live.get(0).getGroupMembersView().getMembers().size());
      store.sync();
    }
    try (JeStore<Stored> store = new JeStore<>(NuKV.RECORD, dir, Durability.SYNC)) {
      RestoredRaftState r = NuKVJournal.open(store, codec).restored();
      assertEquals(100, r.getSnapshotEntry().getIndex());
      @SuppressWarnings("unchecked")
      List<io.microraft.model.log.SnapshotChunk> chunks =
          (List<io.microraft.model.log.SnapshotChunk>) r.getSnapshotEntry().getOperation();
      assertEquals(second, merged(chunks.stream().map(io.microraft.model.log.SnapshotChunk::getOperation).toList()));
      assertEquals(3, r.getSnapshotEntry().getGroupMembersView().getMembers().size());
      assertEquals(java.util.stream.LongStream.rangeClosed(101, 110).boxed().toList(),
          r.getLogEntries().stream().map(LogEntry::getIndex).toList());

      // The restarted replica: a new source (every key read again at its first snapshot), the journal continued.
      SnapshotSource source = new SnapshotSource(store);
      RaftJournal<Stored> journal = NuKVJournal.open(store, codec);
      for (int k = 0; k < 2_500; k += 2) {
        userWrite(store, source, "user" + k, 20_000 + k);
      }
      for (long i = 111; i <= 160; i++) {
        journal.persistLogEntries(List.of(entry(i, 1, "k" + i)));
      }
      persistTaken(journal, source, 150, view);
      assertEquals(1_250, source.lastReads(), "the keys put since the restart, read from the store");
      assertEquals(1, journal.checkpoints());
      RestoredRaftState again = NuKVJournal.open(store, codec).restored();
      assertEquals(150, again.getSnapshotEntry().getIndex());
      @SuppressWarnings("unchecked")
      List<io.microraft.model.log.SnapshotChunk> chunks150 =
          (List<io.microraft.model.log.SnapshotChunk>) again.getSnapshotEntry().getOperation();
      SnapshotPart third = merged(chunks150.stream().map(io.microraft.model.log.SnapshotChunk::getOperation).toList());
      // The source saw only the even keys since the restart: the snapshot lists those (the replay puts every key
      // of the restored snapshot, so a server's source sees them all), each at its newest version.
      assertEquals(1_250, third.getOpsCount());
      for (Op op : third.getOpsList()) {
        assertEquals(store.newest(op.getKey()).orElseThrow().getVersion(), op.getVersion());
      }
    }
  }

  private static void userWrite(org.kvlab.store.VersionedStore<Stored> store, SnapshotSource source, String key,
      long t) {
    Version v = Version.newBuilder().setT(t).setDc(0).setIdx(t)
        .setValue(com.google.protobuf.ByteString.copyFromUtf8("value " + t)).build();
    store.put(key, Stored.newBuilder().setVersion(v).build());
    source.put(key, v);
  }

  /** The source's snapshot at {@code index} (1,000 keys a part, as the server), each part persisted as MicroRaft does. */
  private List<ByteString> persistTaken(RaftJournal<Stored> journal, SnapshotSource source, long index,
      io.microraft.model.log.RaftGroupMembersView view) {
    List<ByteString> parts = new ArrayList<>();
    source.take(new long[] {index, 0}, NuKVServer.SNAPSHOT_CHUNK_KEYS, k -> null, parts::add);
    for (int c = 0; c < parts.size(); c++) {
      journal.persistSnapshotChunk(chunkOf(index, c, parts.size(), parts.get(c), view));
    }
    return parts;
  }

  private io.microraft.model.log.SnapshotChunk chunkOf(long index, int chunk, int count, Object part,
      io.microraft.model.log.RaftGroupMembersView view) {
    return models.createSnapshotChunkBuilder().setIndex(index).setTerm(1).setOperation(part)
        .setSnapshotChunkIndex(chunk).setSnapshotChunkCount(count).setGroupMembersView(view).build();
  }

  /** The parts (either form) as one part: sv and every Op in order. */
  private static SnapshotPart merged(List<?> parts) {
    SnapshotPart.Builder all = SnapshotPart.newBuilder();
    parts.forEach(p -> all.mergeFrom(part(p)));
    return all.build();
  }

  /** Keys user0.. in key order at their newest versions, sv {index, 0}: what a full read of the store lists. */
  private static SnapshotPart fullRead(org.kvlab.store.VersionedStore<Stored> store, int keys, long index) {
    java.util.TreeSet<String> sorted = new java.util.TreeSet<>();
    for (int k = 0; k < keys; k++) {
      sorted.add("user" + k);
    }
    SnapshotPart.Builder all = SnapshotPart.newBuilder().addSv(index).addSv(0);
    for (String k : sorted) {
      all.addOps(Op.newBuilder().setKey(k).setVersion(store.newest(k).orElseThrow().getVersion()));
    }
    return all.build();
  }

  /** Reopens the journal, which holds a snapshot at 50 and entries to 60, and runs it past a snapshot at 100. */
  private void continueTo100(InMemoryStore<Stored> store, io.microraft.model.log.RaftGroupMembersView view) {
    RaftJournal<Stored> journal = NuKVJournal.open(store, codec);
    for (long i = 61; i <= 110; i++) {
      journal.persistLogEntries(List.of(entry(i, 1, "k" + i)));
    }
    for (int c = 0; c < 5; c++) {
      journal.persistSnapshotChunk(bigChunk(100, c, 5, 10, view));
    }
    assertEquals(1, journal.checkpoints());
    for (long i = 111; journal.superseded() > 0; i++) {
      journal.persistLogEntries(List.of(entry(i, 1, "k" + i)));
    }
    List<Stored> records = store.versions(NuKVJournal.KEY);
    assertEquals(100, records.get(records.size() - 1).getJournal().getChunk().getIndex());
    RestoredRaftState r = NuKVJournal.open(store, codec).restored();
    assertEquals(100, r.getSnapshotEntry().getIndex());
    assertEquals(101, r.getLogEntries().get(0).getIndex());
    assertEquals(1, r.getTermPersistentState().getTerm());
    assertEquals(NodeId.of(0, 0, 0), r.getLocalEndpointPersistentState().getLocalEndpoint().getId());
  }

  /**
   * A replica's own snapshot is held and written a chunk per turn, with log entries between: a crash after k of its n
   * chunk records, for every k, restarts from the previous snapshot and every entry since (k < n) or from the new
   * snapshot (k = n); the snapshot taken again at the same index after the restart (cut otherwise) is restored whole,
   * without the chunks written before the crash. In memory (the crash loses the journal object: held chunks and all).
   */
  @Test
  void when_aReplicaCrashesAfterAnyNumberOfItsHeldSnapshotsChunks_then_itRestoresThePreviousSnapshotAndTheWholeLog()
      throws Exception {
    restartAfterEveryHeldChunk(k -> new InMemoryStore<>(NuKV.RECORD), store -> store);
  }

  /** The same on JE: the store closed after k chunk records and opened again. */
  @Test
  void when_aJeReplicaCrashesAfterAnyNumberOfItsHeldSnapshotsChunks_then_itRestoresThePreviousSnapshotAndTheWholeLog(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    restartAfterEveryHeldChunk(k -> new JeStore<>(NuKV.RECORD, dir.resolve("k" + k), Durability.SYNC), store -> {
      JeStore<Stored> je = (JeStore<Stored>) store;
      java.nio.file.Path at = je.dir();
      je.close();
      return new JeStore<>(NuKV.RECORD, at, Durability.SYNC);
    });
  }

  /** Log entries from..to (term 1) persisted one by one, as MicroRaft appends them. */
  private void persistEntries(RaftJournal<Stored> journal, long from, long to) {
    for (long i = from; i <= to; i++) {
      journal.persistLogEntries(List.of(entry(i, 1, "k" + i)));
    }
  }

  private void restartAfterEveryHeldChunk(java.util.function.IntFunction<org.kvlab.store.VersionedStore<Stored>> open,
      java.util.function.UnaryOperator<org.kvlab.store.VersionedStore<Stored>> crash) throws Exception {
    var view = view();
    int n = 5;
    for (int k = 0; k <= n; k++) {
      org.kvlab.store.VersionedStore<Stored> store = open.apply(k);
      try {
        RaftJournal<Stored> journal = started(store, view);
        persistEntries(journal, 1, 60);
        for (int c = 0; c < n; c++) {
          journal.persistSnapshotChunk(bigChunk(50, c, n, 10, view)); // written at once (not announced by taking)
        }
        journal.truncateLogEntriesUntil(50);
        persistEntries(journal, 61, 110);
        // MicroRaft's takeSnapshot: the state machine's chunks, each persisted, then the log truncated.
        journal.taking(100);
        int records = journal.records();
        for (int c = 0; c < n; c++) {
          journal.persistSnapshotChunk(bigChunk(100, c, n, 10, view));
        }
        journal.truncateLogEntriesUntil(90);
        assertEquals(records, journal.records(), "k=" + k + ": nothing written in the snapshot's turn");
        assertEquals(n, journal.held());
        assertRestores(store, 50, 51, 110, "k=" + k + ", held");
        for (int j = 1; j <= k; j++) {
          assertEquals(n - j, journal.writeHeld(1), "one chunk a turn");
          journal.persistLogEntries(List.of(entry(110 + j, 1, "k" + (110 + j))));
        }
        assertEquals(k == n ? 2 : 1, journal.checkpoints(), "k=" + k);

        store = crash.apply(store);
        if (k < n) {
          assertRestores(store, 50, 51, 110 + k, "k=" + k + " after the crash");
        } else {
          assertRestores(store, 100, 101, 110 + k, "k=" + k + " after the crash");
        }
        RaftJournal<Stored> reopened = NuKVJournal.open(store, codec);
        assertEquals(k > 0 && k < n ? 1 : 0, reopened.dropPartial(), "k=" + k + ": the partial snapshot voided");
        persistEntries(reopened, 111 + k, 120);
        // Taken again after the restart, from a store holding more (3 chunks, other keys); or the next one (k = n).
        long at = k < n ? 100 : 120;
        reopened.taking(at);
        for (int c = 0; c < 3; c++) {
          reopened.persistSnapshotChunk(chunk(at, c, 3, "retaken" + c, view));
        }
        reopened.truncateLogEntriesUntil(at);
        assertEquals(0, reopened.writeHeld(Long.MAX_VALUE));
        RestoredRaftState r = assertRestores(store, at, at + 1, 120, "k=" + k + ", taken again");
        @SuppressWarnings("unchecked")
        List<io.microraft.model.log.SnapshotChunk> chunks =
            (List<io.microraft.model.log.SnapshotChunk>) r.getSnapshotEntry().getOperation();
        assertEquals(List.of("retaken0", "retaken1", "retaken2"), chunks.stream()
            .map(c -> part(c.getOperation()).getOps(0).getKey()).toList(), "k=" + k);
      } finally {
        store.close();
      }
    }
  }

  /** Restores the store's journal: the snapshot at {@code snapshot} and entries first..last (none if first > last). */
  private RestoredRaftState assertRestores(org.kvlab.store.VersionedStore<Stored> store, long snapshot, long first,
      long last, String what) {
    RestoredRaftState r = NuKVJournal.open(store, codec).restored();
    assertEquals(snapshot, r.getSnapshotEntry().getIndex(), what);
    assertEquals(java.util.stream.LongStream.rangeClosed(first, last).boxed().toList(),
        r.getLogEntries().stream().map(LogEntry::getIndex).toList(), what);
    assertEquals(1, r.getTermPersistentState().getTerm(), what);
    return r;
  }

  /**
   * Held chunks are written at once, before anything that could supersede them or that they must precede: a leader's
   * snapshot arriving, a rebuild's restore.
   */
  @Test
  void when_aLeadersSnapshotArrivesWhileChunksAreHeld_then_theyAreWrittenFirst() throws Exception {
    InMemoryStore<Stored> store = new InMemoryStore<>(NuKV.RECORD);
    var view = view();
    RaftJournal<Stored> journal = started(store, view);
    persistEntries(journal, 1, 60);
    journal.taking(50);
    for (int c = 0; c < 3; c++) {
      journal.persistSnapshotChunk(bigChunk(50, c, 3, 10, view));
    }
    journal.truncateLogEntriesUntil(50);
    assertEquals(3, journal.held());
    journal.persistSnapshotChunk(bigChunk(200, 0, 2, 3, view)); // a leader's snapshot, received chunk by chunk
    assertEquals(0, journal.held());
    assertEquals(1, journal.checkpoints());
    assertRestores(store, 50, 51, 60, "the held snapshot written before the leader's chunk");
    journal.persistSnapshotChunk(bigChunk(200, 1, 2, 3, view));
    journal.truncateLogEntriesUntil(200);
    assertRestoresSnapshot200(store);

    journal.taking(210);
    journal.persistSnapshotChunk(bigChunk(210, 0, 1, 3, view));
    assertEquals(1, journal.held());
    assertEquals(210, journal.restored().getSnapshotEntry().getIndex(), "a rebuild restores it");
    assertEquals(0, journal.held());
  }

  private io.microraft.model.log.RaftGroupMembersView view() {
    List<io.microraft.RaftEndpoint> members = List.of(new RaftCodec.Endpoint(NodeId.of(0, 0, 0)),
        new RaftCodec.Endpoint(NodeId.of(0, 0, 1)), new RaftCodec.Endpoint(NodeId.of(0, 0, 2)));
    return models.createRaftGroupMembersViewBuilder().setLogIndex(0).setMembers(members).setVotingMembers(members)
        .build();
  }

  private RaftJournal<Stored> started(org.kvlab.store.VersionedStore<Stored> store,
      io.microraft.model.log.RaftGroupMembersView view) {
    RaftCodec.Endpoint self = new RaftCodec.Endpoint(NodeId.of(0, 0, 0));
    RaftJournal<Stored> journal = NuKVJournal.open(store, codec);
    journal.persistAndFlushLocalEndpoint(models.createRaftEndpointPersistentStateBuilder().setLocalEndpoint(self)
        .setVoting(true).build());
    journal.persistAndFlushInitialGroupMembers(view);
    journal.persistAndFlushTerm(models.createRaftTermPersistentStateBuilder().setTerm(1).setVotedFor(self).build());
    return journal;
  }

  private io.microraft.model.log.SnapshotChunk bigChunk(long index, int chunk, int count, int keys,
      io.microraft.model.log.RaftGroupMembersView view) {
    SnapshotPart.Builder part = SnapshotPart.newBuilder();
    if (chunk == 0) {
      part.addSv(index).addSv(0);
    }
    for (int k = 0; k < keys; k++) {
      part.addOps(Op.newBuilder().setKey(index + "/" + chunk + "/" + k).setVersion(Version.newBuilder()
          .setValue(com.google.protobuf.ByteString.copyFromUtf8("value-" + k)).setT(index * 1_000_000 + k).setDc(0)
          .setIdx(index)));
    }
    return models.createSnapshotChunkBuilder().setIndex(index).setTerm(1).setOperation(part.build().toByteString())
        .setSnapshotChunkIndex(chunk).setSnapshotChunkCount(count).setGroupMembersView(view).build();
  }

  private io.microraft.model.log.SnapshotChunk chunk(long index, int chunk, int count, String key,
      io.microraft.model.log.RaftGroupMembersView view) {
    SnapshotPart.Builder part = SnapshotPart.newBuilder().addOps(Op.newBuilder().setKey(key));
    if (chunk == 0) {
      part.addSv(index).addSv(0);
    }
    return models.createSnapshotChunkBuilder().setIndex(index).setTerm(1).setOperation(part.build().toByteString())
        .setSnapshotChunkIndex(chunk).setSnapshotChunkCount(count).setGroupMembersView(view).build();
  }

  /** A started journal with entries 1..60 persisted, then a 5-chunk snapshot at index 50 (completing it). */
  private RaftJournal<Stored> sixtyEntriesAndASnapshotAt50(InMemoryStore<Stored> store,
      io.microraft.model.log.RaftGroupMembersView view) throws Exception {
    RaftJournal<Stored> journal = started(store, view);
    for (long i = 1; i <= 60; i++) {
      journal.persistLogEntries(List.of(entry(i, 1, "k" + i)));
    }
    for (int c = 0; c < 5; c++) {
      journal.persistSnapshotChunk(bigChunk(50, c, 5, 10, view));
    }
    return journal;
  }

  /** The part a snapshot chunk's operation holds (its encoding). */
  private static SnapshotPart part(Object operation) {
    try {
      return SnapshotPart.parseFrom((com.google.protobuf.ByteString) operation);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError("a snapshot part does not parse", e);
    }
  }
}
