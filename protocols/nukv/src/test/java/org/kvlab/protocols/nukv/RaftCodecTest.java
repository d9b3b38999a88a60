package org.kvlab.protocols.nukv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.microraft.RaftEndpoint;
import io.microraft.model.RaftModelFactory;
import io.microraft.model.impl.DefaultRaftModelFactory;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.log.SnapshotChunk;
import io.microraft.model.message.InstallSnapshotRequest;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;

/**
 * A snapshot chunk whose part is handed over as its encoding ({@link EncodedPart}, issue 15) goes to the journal and
 * to followers as exactly the bytes the parsed part would give, and comes back as that part.
 */
class RaftCodecTest {
  private final RaftModelFactory models = new DefaultRaftModelFactory();
  private final RaftCodec codec = new RaftCodec(models);
  private final List<RaftEndpoint> members = List.of(new RaftCodec.Endpoint(NodeId.of(0, 0, 0)),
      new RaftCodec.Endpoint(NodeId.of(0, 0, 1)), new RaftCodec.Endpoint(NodeId.of(0, 0, 2)));
  private final RaftGroupMembersView view = models.createRaftGroupMembersViewBuilder().setLogIndex(3)
      .setMembers(members).setVotingMembers(members).build();
  private final SnapshotPart part = SnapshotPart.newBuilder().addSv(40).addSv(7)
      .addOps(Op.newBuilder().setKey("a").setVersion(Version.newBuilder().setT(5).setDc(1).setIdx(6)
          .setValue(ByteString.copyFromUtf8("x"))).setLocalIdx(3).setLocalT(4))
      .addOps(Op.newBuilder().setKey("b").setVersion(Version.newBuilder().setT(9).setDc(0).setIdx(40)))
      .build();

  private SnapshotChunk chunk(Object operation, RaftGroupMembersView v) {
    return models.createSnapshotChunkBuilder().setIndex(40).setTerm(2).setOperation(operation)
        .setSnapshotChunkIndex(1).setSnapshotChunkCount(3).setGroupMembersView(v).build();
  }

  @Test
  void when_aChunkHoldsAnEncodedPart_then_itIsWrittenAsTheParsedPartWouldBeAndReadBackAsIt() throws Exception {
    EncodedPart encoded = new EncodedPart(part.toByteString());
    for (RaftGroupMembersView v : new RaftGroupMembersView[] {view, null}) {
      Chunk asBytes = RaftCodec.chunk(chunk(encoded, v));
      Chunk asParsed = RaftCodec.chunk(chunk(part, v));
      assertEquals(asParsed.toByteString(), asBytes.toByteString(), "members " + v);
      assertEquals(asParsed, Chunk.parseFrom(asBytes.toByteString()));
      // Unparsed (the journal's mirror, the simulator's messages): read back through the codec, not getPart.
      SnapshotChunk back = codec.snapshotChunk(asBytes);
      assertEquals(encoded, back.getOperation());
      assertEquals(v == null ? null : v.getMembers(), back.getGroupMembersView() == null ? null
          : back.getGroupMembersView().getMembers());
      assertEquals(part, EncodedPart.part(codec.snapshotChunk(Chunk.parseFrom(asBytes.toByteArray())).getOperation()));
    }
  }

  @Test
  void when_anInstallSnapshotRequestCarriesAnEncodedPart_then_theFollowerDecodesThePart() throws Exception {
    InstallSnapshotRequest req = models.createInstallSnapshotRequestBuilder().setGroupId("g")
        .setSender(members.get(0)).setTerm(2).setSenderLeader(true).setSnapshotTerm(2).setSnapshotIndex(40)
        .setTotalSnapshotChunkCount(3).setSnapshotChunk(chunk(new EncodedPart(part.toByteString()), view))
        .setSnapshottedMembers(members).setGroupMembersView(view).setQuerySequenceNumber(1)
        .setFlowControlSequenceNumber(1).build();
    Raft wire = Raft.parseFrom(codec.encode(req).toByteArray());
    InstallSnapshotRequest decoded = assertInstanceOf(InstallSnapshotRequest.class, codec.decode(wire));
    assertEquals(part, decoded.getSnapshotChunk().getOperation());
    assertEquals(1, decoded.getSnapshotChunk().getSnapshotChunkIndex());
    assertEquals(3, decoded.getSnapshotChunk().getGroupMembersView().getMembers().size());
    assertTrue(wire.getChunk().hasPart());
  }
}
