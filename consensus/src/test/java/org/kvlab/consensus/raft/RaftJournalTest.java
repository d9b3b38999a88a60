package org.kvlab.consensus.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.StringValue;
import io.microraft.model.RaftModelFactory;
import io.microraft.model.impl.DefaultRaftModelFactory;
import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.persistence.RestoredRaftState;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.store.InMemoryStore;

/**
 * A journal in a store that holds only it ({@link RaftJournal#entries}): what MicroRaft persisted restores after a
 * restart; a replica's own snapshot is held until written, then the journal is compacted down to it and the entries
 * after it, the superseded records pruned a few with each later record. (NuKV's journal tests cover the rest.)
 */
class RaftJournalTest {
  private final RaftModelFactory models = new DefaultRaftModelFactory();
  private final RaftCodec codec = new RaftCodec(models, StringValue.parser());
  private final RaftCodec.Endpoint self = new RaftCodec.Endpoint(NodeId.of(0, 0, 0));
  private final InMemoryStore<JournalEntry> store = new InMemoryStore<>(RaftLog.RECORD);

  private RaftJournal<JournalEntry> open() {
    return new RaftJournal<>(store, RaftLog.FORMAT, codec);
  }

  private RaftJournal<JournalEntry> started() {
    RaftJournal<JournalEntry> j = open();
    List<io.microraft.RaftEndpoint> members = List.of(self, new RaftCodec.Endpoint(NodeId.of(0, 0, 1)));
    j.persistAndFlushLocalEndpoint(models.createRaftEndpointPersistentStateBuilder().setLocalEndpoint(self)
        .setVoting(true).build());
    j.persistAndFlushInitialGroupMembers(view(members));
    j.persistAndFlushTerm(models.createRaftTermPersistentStateBuilder().setTerm(3).setVotedFor(self).build());
    return j;
  }

  private RaftGroupMembersView view(List<io.microraft.RaftEndpoint> members) {
    return models.createRaftGroupMembersViewBuilder().setLogIndex(0).setMembers(members).setVotingMembers(members)
        .build();
  }

  private LogEntry entry(long index) {
    return models.createLogEntryBuilder().setIndex(index).setTerm(3).setOperation(StringValue.of("v" + index))
        .build();
  }

  @Test
  void when_entriesAndTermArePersisted_then_aRestartRestoresThemWithTruncationsApplied() {
    assertNull(open().restored(), "nothing persisted: a fresh start");
    RaftJournal<JournalEntry> j = started();
    for (long i = 1; i <= 10; i++) {
      j.persistLogEntries(List.of(entry(i)));
    }
    j.truncateLogEntriesFrom(8);
    RestoredRaftState r = open().restored();
    assertEquals(3, r.getTermPersistentState().getTerm());
    assertEquals(self, r.getTermPersistentState().getVotedFor());
    assertEquals(self, r.getLocalEndpointPersistentState().getLocalEndpoint());
    assertEquals(7, r.getLogEntries().size());
    assertEquals(StringValue.of("v7"), r.getLogEntries().get(6).getOperation());
  }

  @Test
  void when_aHeldSnapshotIsWritten_then_theJournalKeepsOnlyItAndTheEntriesAfterIt() {
    RaftJournal<JournalEntry> j = started();
    for (long i = 1; i <= 30; i++) {
      j.persistLogEntries(List.of(entry(i)));
    }
    j.taking(20);
    for (int c = 0; c < 3; c++) {
      j.persistSnapshotChunk(models.createSnapshotChunkBuilder().setIndex(20).setTerm(3)
          .setOperation(ByteString.copyFromUtf8("part " + c)).setSnapshotChunkIndex(c).setSnapshotChunkCount(3)
          .setGroupMembersView(view(List.of(self))).build());
    }
    assertEquals(3, j.held(), "held in the snapshot's turn");
    RestoredRaftState before = open().restored();
    assertNull(before.getSnapshotEntry(), "a crash now restarts from the whole log");
    assertEquals(30, before.getLogEntries().size());
    assertEquals(2, j.writeHeld(1), "at least one chunk a turn");
    assertEquals(0, j.writeHeld(Long.MAX_VALUE));
    assertEquals(1, j.checkpoints());
    for (long i = 31; j.superseded() > 0; i++) {
      j.persistLogEntries(List.of(entry(i)));
    }
    RestoredRaftState after = open().restored();
    assertEquals(20, after.getSnapshotEntry().getIndex());
    assertEquals(21, after.getLogEntries().get(0).getIndex());
    assertTrue(j.records() < 3 + 3 + 30, "compacted: " + j.records() + " records");
  }
}
