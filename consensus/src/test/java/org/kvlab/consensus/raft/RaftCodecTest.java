package org.kvlab.consensus.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import com.google.protobuf.StringValue;
import io.microraft.RaftEndpoint;
import io.microraft.model.RaftModelFactory;
import io.microraft.model.impl.DefaultRaftModelFactory;
import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.log.SnapshotChunk;
import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.InstallSnapshotRequest;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;

/**
 * MicroRaft's messages, entries and snapshot chunks through kvlab's wire and journal records: an application's
 * operation and a new leader's marker come back as they went, a snapshot part as its bytes, the members with them.
 */
class RaftCodecTest {
  private final RaftModelFactory models = new DefaultRaftModelFactory();
  private final RaftCodec codec = new RaftCodec(models, StringValue.parser());
  private final List<RaftEndpoint> members = List.of(new RaftCodec.Endpoint(NodeId.of(0, 0, 0)),
      new RaftCodec.Endpoint(NodeId.of(0, 0, 1)), new RaftCodec.Endpoint(NodeId.of(0, 0, 2)));
  private final RaftGroupMembersView view = models.createRaftGroupMembersViewBuilder().setLogIndex(3)
      .setMembers(members).setVotingMembers(members).build();

  private LogEntry entry(long index, Object op) {
    return models.createLogEntryBuilder().setIndex(index).setTerm(2).setOperation(op).build();
  }

  @Test
  void when_anAppendEntriesRequestCarriesOperationsAndANewTermMarker_then_theFollowerDecodesThemAsTheyWere()
      throws Exception {
    AppendEntriesRequest req = models.createAppendEntriesRequestBuilder().setGroupId("g").setSender(members.get(0))
        .setTerm(2).setPreviousLogTerm(1).setPreviousLogIndex(6).setCommitIndex(6)
        .setLogEntries(List.of(entry(7, new RaftCodec.NewTerm("0_0#1@5")), entry(8, StringValue.of("x"))))
        .setQuerySequenceNumber(0).setFlowControlSequenceNumber(4).build();
    Raft wire = Raft.parseFrom(codec.encode(req).toByteArray());
    AppendEntriesRequest back = assertInstanceOf(AppendEntriesRequest.class, codec.decode(wire));
    assertEquals(new RaftCodec.NewTerm("0_0#1@5"), back.getLogEntries().get(0).getOperation());
    assertEquals(StringValue.of("x"), back.getLogEntries().get(1).getOperation());
    assertEquals(8, back.getLogEntries().get(1).getIndex());
    assertEquals(members.get(0), back.getSender());
    assertEquals(6, back.getCommitIndex());
  }

  @Test
  void when_anEntrysOperationDoesNotParse_then_decodingFailsNamingTheEntry() {
    Entry bad = Entry.newBuilder().setIndex(9).setTerm(1).setOp(ByteString.copyFrom(new byte[] {(byte) 0xff})).build();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> codec.logEntry(bad));
    assertEquals(true, e.getMessage().startsWith("log entry 9"), e.getMessage());
  }

  @Test
  void when_anInstallSnapshotRequestCarriesAPart_then_theFollowerGetsItsBytesAndTheMembers() throws Exception {
    ByteString part = ByteString.copyFromUtf8("the application's state, part 2");
    SnapshotChunk chunk = models.createSnapshotChunkBuilder().setIndex(40).setTerm(2).setOperation(part)
        .setSnapshotChunkIndex(1).setSnapshotChunkCount(3).setGroupMembersView(view).build();
    InstallSnapshotRequest req = models.createInstallSnapshotRequestBuilder().setGroupId("g")
        .setSender(members.get(0)).setTerm(2).setSenderLeader(true).setSnapshotTerm(2).setSnapshotIndex(40)
        .setTotalSnapshotChunkCount(3).setSnapshotChunk(chunk).setSnapshottedMembers(members)
        .setGroupMembersView(view).setQuerySequenceNumber(1).setFlowControlSequenceNumber(1).build();
    Raft wire = Raft.parseFrom(codec.encode(req).toByteArray());
    assertEquals(part, wire.getChunk().getPart());
    InstallSnapshotRequest back = assertInstanceOf(InstallSnapshotRequest.class, codec.decode(wire));
    assertEquals(part, back.getSnapshotChunk().getOperation());
    assertEquals(1, back.getSnapshotChunk().getSnapshotChunkIndex());
    assertEquals(3, back.getSnapshotChunk().getGroupMembersView().getMembers().size());
    assertEquals(members, List.copyOf(back.getSnapshottedMembers()));
  }
}
