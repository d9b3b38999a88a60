package org.kvlab.protocols.nukv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.microraft.model.RaftModelFactory;
import io.microraft.model.impl.DefaultRaftModelFactory;
import io.microraft.model.log.LogEntry;
import io.microraft.persistence.RestoredRaftState;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.store.InMemoryStore;

/** The Raft journal in kvlab's store: what MicroRaft persisted is what a restart restores, truncations included. */
class JournalRaftStoreTest {
  private final RaftModelFactory models = new DefaultRaftModelFactory();
  private final RaftCodec codec = new RaftCodec(models);

  private LogEntry entry(long index, int term, String key) {
    return models.createLogEntryBuilder().setIndex(index).setTerm(term)
        .setOperation(Op.newBuilder().setKey(key).build()).build();
  }

  @Test
  void when_entriesTermAndMembersArePersisted_then_aRestartRestoresThemWithTruncationsApplied() throws Exception {
    InMemoryStore<Stored> store = new InMemoryStore<>(NuKV.RECORD);
    assertNull(JournalRaftStore.restore(store, models, codec), "nothing persisted: a fresh start");
    RaftCodec.Endpoint self = new RaftCodec.Endpoint(NodeId.of(0, 0, 1));
    List<io.microraft.RaftEndpoint> members = List.of(new RaftCodec.Endpoint(NodeId.of(0, 0, 0)), self,
        new RaftCodec.Endpoint(NodeId.of(0, 0, 2)));
    JournalRaftStore journal = new JournalRaftStore(store);
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

    JournalRaftStore reopened = new JournalRaftStore(store); // continues the journal's numbering
    reopened.persistLogEntries(List.of(entry(5, 3, "e")));
    RestoredRaftState r = JournalRaftStore.restore(store, models, codec);
    assertEquals(NodeId.of(0, 0, 1), r.getLocalEndpointPersistentState().getLocalEndpoint().getId());
    assertEquals(3, r.getInitialGroupMembers().getMembers().size());
    assertEquals(3, r.getTermPersistentState().getTerm());
    assertNull(r.getTermPersistentState().getVotedFor());
    assertEquals(List.of("a", "b", "c2", "d", "e"),
        r.getLogEntries().stream().map(e -> ((Op) e.getOperation()).getKey()).toList());
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L), r.getLogEntries().stream().map(LogEntry::getIndex).toList());
    assertEquals(3, r.getLogEntries().get(2).getTerm());
  }
}
