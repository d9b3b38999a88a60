package org.kvlab.consensus.raft;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import io.microraft.RaftEndpoint;
import io.microraft.model.RaftModelFactory;
import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.log.SnapshotChunk;
import io.microraft.model.message.AppendEntriesFailureResponse;
import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.AppendEntriesSuccessResponse;
import io.microraft.model.message.InstallSnapshotRequest;
import io.microraft.model.message.InstallSnapshotResponse;
import io.microraft.model.message.PreVoteRequest;
import io.microraft.model.message.PreVoteResponse;
import io.microraft.model.message.RaftMessage;
import io.microraft.model.message.TriggerLeaderElectionRequest;
import io.microraft.model.message.VoteRequest;
import io.microraft.model.message.VoteResponse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;

/**
 * MicroRaft's messages to and from kvlab's wire ({@link Raft}, one flattened protobuf message), its log entries and
 * snapshot chunks to and from journal records, and the endpoints: a replica's endpoint is its kvlab {@link NodeId}.
 * In memory a log entry's operation is the application's protobuf message (or a {@link NewTerm} marker) and a
 * snapshot chunk's operation is a {@link ByteString}, the application's encoding of one part of its state; on the
 * wire and in the journal both are bytes. Membership changes are off, so only the messages of a fixed group occur.
 */
public final class RaftCodec {
  private final RaftModelFactory models;
  private final Parser<? extends Message> operations;

  /** {@code operations} parses the application's operations (the messages it proposes). */
  public RaftCodec(RaftModelFactory models, Parser<? extends Message> operations) {
    this.models = models;
    this.operations = operations;
  }

  /** A replica of a Raft group, identified by its server id. */
  public record Endpoint(NodeId id) implements RaftEndpoint {
    @Override
    public Object getId() {
      return id;
    }

    @Override
    public String toString() {
      return id.toString();
    }
  }

  /** The entry a new leader appends (MicroRaft's new-term operation), named so that the leader knows its own. */
  record NewTerm(String marker) {}

  public RaftModelFactory models() {
    return models;
  }

  public static NodeId node(RaftEndpoint e) {
    return (NodeId) e.getId();
  }

  public static Endpoint endpoint(String text) {
    return new Endpoint(NodeId.parse(text));
  }

  public Raft encode(RaftMessage m) {
    Raft.Builder b = Raft.newBuilder().setGroup(m.getGroupId().toString()).setSender(m.getSender().getId().toString())
        .setTerm(m.getTerm());
    if (m instanceof PreVoteRequest r) {
      b.setKind(Raft.Kind.PRE_VOTE_REQ).setLastLogTerm(r.getLastLogTerm()).setLastLogIndex(r.getLastLogIndex());
    } else if (m instanceof PreVoteResponse r) {
      b.setKind(Raft.Kind.PRE_VOTE_RESP).setGranted(r.isGranted());
    } else if (m instanceof VoteRequest r) {
      b.setKind(Raft.Kind.VOTE_REQ).setLastLogTerm(r.getLastLogTerm()).setLastLogIndex(r.getLastLogIndex())
          .setSticky(r.isSticky());
    } else if (m instanceof VoteResponse r) {
      b.setKind(Raft.Kind.VOTE_RESP).setGranted(r.isGranted());
    } else if (m instanceof AppendEntriesRequest r) {
      b.setKind(Raft.Kind.APPEND_REQ).setPrevLogTerm(r.getPreviousLogTerm()).setPrevLogIndex(r.getPreviousLogIndex())
          .setCommitIndex(r.getCommitIndex()).setQuerySeq(r.getQuerySequenceNumber())
          .setFlowSeq(r.getFlowControlSequenceNumber());
      for (LogEntry e : r.getLogEntries()) {
        b.addEntries(entry(e));
      }
    } else if (m instanceof AppendEntriesSuccessResponse r) {
      b.setKind(Raft.Kind.APPEND_OK).setLastLogIndex(r.getLastLogIndex()).setQuerySeq(r.getQuerySequenceNumber())
          .setFlowSeq(r.getFlowControlSequenceNumber());
    } else if (m instanceof AppendEntriesFailureResponse r) {
      b.setKind(Raft.Kind.APPEND_FAIL).setExpectedNextIndex(r.getExpectedNextIndex())
          .setQuerySeq(r.getQuerySequenceNumber()).setFlowSeq(r.getFlowControlSequenceNumber());
    } else if (m instanceof TriggerLeaderElectionRequest r) {
      b.setKind(Raft.Kind.TRIGGER_ELECTION).setLastLogTerm(r.getLastLogTerm()).setLastLogIndex(r.getLastLogIndex());
    } else if (m instanceof InstallSnapshotRequest r) {
      b.setKind(Raft.Kind.INSTALL_SNAPSHOT_REQ).setSenderLeader(r.isSenderLeader()).setSnapshotTerm(r.getSnapshotTerm())
          .setSnapshotIndex(r.getSnapshotIndex()).setTotalChunks(r.getTotalSnapshotChunkCount())
          .addAllSnapshottedMembers(ids(r.getSnapshottedMembers())).setQuerySeq(r.getQuerySequenceNumber())
          .setFlowSeq(r.getFlowControlSequenceNumber());
      if (r.getSnapshotChunk() != null) {
        b.setChunk(chunk(r.getSnapshotChunk()));
      }
      if (r.getGroupMembersView() != null) {
        b.setMembersView(members(r.getGroupMembersView()));
      }
    } else if (m instanceof InstallSnapshotResponse r) {
      b.setKind(Raft.Kind.INSTALL_SNAPSHOT_RESP).setSnapshotIndex(r.getSnapshotIndex())
          .setRequestedChunk(r.getRequestedSnapshotChunkIndex()).setQuerySeq(r.getQuerySequenceNumber())
          .setFlowSeq(r.getFlowControlSequenceNumber());
    } else {
      Invariants.check(false, "A Raft group cannot send MicroRaft message %s (membership changes are off)",
          m.getClass().getSimpleName());
    }
    return b.build();
  }

  /** Decodes a message from a peer; throws IllegalArgumentException on one that makes no sense. */
  public RaftMessage decode(Raft m) {
    Endpoint sender = endpoint(m.getSender());
    String group = m.getGroup();
    switch (m.getKind()) {
      case PRE_VOTE_REQ:
        return models.createPreVoteRequestBuilder().setGroupId(group).setSender(sender).setTerm(m.getTerm())
            .setLastLogTerm(m.getLastLogTerm()).setLastLogIndex(m.getLastLogIndex()).build();
      case PRE_VOTE_RESP:
        return models.createPreVoteResponseBuilder().setGroupId(group).setSender(sender).setTerm(m.getTerm())
            .setGranted(m.getGranted()).build();
      case VOTE_REQ:
        return models.createVoteRequestBuilder().setGroupId(group).setSender(sender).setTerm(m.getTerm())
            .setLastLogTerm(m.getLastLogTerm()).setLastLogIndex(m.getLastLogIndex()).setSticky(m.getSticky()).build();
      case VOTE_RESP:
        return models.createVoteResponseBuilder().setGroupId(group).setSender(sender).setTerm(m.getTerm())
            .setGranted(m.getGranted()).build();
      case APPEND_REQ: {
        List<LogEntry> entries = new ArrayList<>(m.getEntriesCount());
        for (Entry e : m.getEntriesList()) {
          entries.add(logEntry(e));
        }
        return models.createAppendEntriesRequestBuilder().setGroupId(group).setSender(sender).setTerm(m.getTerm())
            .setPreviousLogTerm(m.getPrevLogTerm()).setPreviousLogIndex(m.getPrevLogIndex())
            .setCommitIndex(m.getCommitIndex()).setLogEntries(entries).setQuerySequenceNumber(m.getQuerySeq())
            .setFlowControlSequenceNumber(m.getFlowSeq()).build();
      }
      case APPEND_OK:
        return models.createAppendEntriesSuccessResponseBuilder().setGroupId(group).setSender(sender)
            .setTerm(m.getTerm()).setLastLogIndex(m.getLastLogIndex()).setQuerySequenceNumber(m.getQuerySeq())
            .setFlowControlSequenceNumber(m.getFlowSeq()).build();
      case APPEND_FAIL:
        return models.createAppendEntriesFailureResponseBuilder().setGroupId(group).setSender(sender)
            .setTerm(m.getTerm()).setExpectedNextIndex(m.getExpectedNextIndex())
            .setQuerySequenceNumber(m.getQuerySeq()).setFlowControlSequenceNumber(m.getFlowSeq()).build();
      case TRIGGER_ELECTION:
        return models.createTriggerLeaderElectionRequestBuilder().setGroupId(group).setSender(sender)
            .setTerm(m.getTerm()).setLastLogTerm(m.getLastLogTerm()).setLastLogIndex(m.getLastLogIndex()).build();
      case INSTALL_SNAPSHOT_REQ:
        return models.createInstallSnapshotRequestBuilder().setGroupId(group).setSender(sender).setTerm(m.getTerm())
            .setSenderLeader(m.getSenderLeader()).setSnapshotTerm(m.getSnapshotTerm())
            .setSnapshotIndex(m.getSnapshotIndex()).setTotalSnapshotChunkCount(m.getTotalChunks())
            .setSnapshotChunk(m.hasChunk() ? snapshotChunk(m.getChunk()) : null)
            .setSnapshottedMembers(endpoints(m.getSnapshottedMembersList()))
            .setGroupMembersView(m.hasMembersView() ? view(m.getMembersView()) : null)
            .setQuerySequenceNumber(m.getQuerySeq()).setFlowControlSequenceNumber(m.getFlowSeq()).build();
      case INSTALL_SNAPSHOT_RESP:
        return models.createInstallSnapshotResponseBuilder().setGroupId(group).setSender(sender).setTerm(m.getTerm())
            .setSnapshotIndex(m.getSnapshotIndex()).setRequestedSnapshotChunkIndex(m.getRequestedChunk())
            .setQuerySequenceNumber(m.getQuerySeq()).setFlowControlSequenceNumber(m.getFlowSeq()).build();
      default:
        throw new IllegalArgumentException("unknown Raft message kind " + m.getKind());
    }
  }

  /** A log entry as the journal and an AppendEntries request carry it. */
  public Entry entry(LogEntry e) {
    Object op = e.getOperation();
    Entry.Builder b = Entry.newBuilder().setIndex(e.getIndex()).setTerm(e.getTerm());
    if (op instanceof NewTerm n) {
      return b.setNewTerm(n.marker()).build();
    }
    Invariants.check(op instanceof Message, "Raft log entry %s holds %s, not a protobuf operation", e.getIndex(),
        op == null ? "null" : op.getClass().getName());
    return b.setOp(((Message) op).toByteString()).build();
  }

  /** Throws IllegalArgumentException if the operation does not parse. */
  public LogEntry logEntry(Entry e) {
    Object op;
    if (!e.getNewTerm().isEmpty()) {
      op = new NewTerm(e.getNewTerm());
    } else {
      try {
        op = operations.parseFrom(e.getOp());
      } catch (InvalidProtocolBufferException x) {
        throw new IllegalArgumentException("log entry " + e.getIndex() + ": its operation does not parse: "
            + x.getMessage(), x);
      }
    }
    return models.createLogEntryBuilder().setIndex(e.getIndex()).setTerm(e.getTerm()).setOperation(op).build();
  }

  /** A snapshot chunk as the journal and the InstallSnapshot message carry it: its part is the application's bytes. */
  public static Chunk chunk(SnapshotChunk c) {
    Object part = c.getOperation();
    Invariants.check(part instanceof ByteString, "Raft snapshot chunk %s/%s holds %s, not the bytes of a part",
        c.getIndex(), c.getSnapshotChunkIndex(), part == null ? "null" : part.getClass().getName());
    Chunk.Builder b = Chunk.newBuilder().setIndex(c.getIndex()).setTerm(c.getTerm())
        .setChunkIndex(c.getSnapshotChunkIndex()).setChunkCount(c.getSnapshotChunkCount()).setPart((ByteString) part);
    if (c.getGroupMembersView() != null) {
      b.setMembers(members(c.getGroupMembersView()));
    }
    return b.build();
  }

  public SnapshotChunk snapshotChunk(Chunk c) {
    if (c.getChunkCount() < 1 || c.getChunkIndex() < 0 || c.getChunkIndex() >= c.getChunkCount()) {
      throw new IllegalArgumentException("snapshot chunk " + c.getChunkIndex() + " of " + c.getChunkCount());
    }
    return models.createSnapshotChunkBuilder().setIndex(c.getIndex()).setTerm(c.getTerm()).setOperation(c.getPart())
        .setSnapshotChunkIndex(c.getChunkIndex()).setSnapshotChunkCount(c.getChunkCount())
        .setGroupMembersView(c.hasMembers() ? view(c.getMembers()) : null).build();
  }

  static Members members(RaftGroupMembersView v) {
    return Members.newBuilder().setLogIndex(v.getLogIndex()).addAllMembers(ids(v.getMembers()))
        .addAllVotingMembers(ids(v.getVotingMembers())).build();
  }

  RaftGroupMembersView view(Members m) {
    return models.createRaftGroupMembersViewBuilder().setLogIndex(m.getLogIndex())
        .setMembers(endpoints(m.getMembersList())).setVotingMembers(endpoints(m.getVotingMembersList())).build();
  }

  static List<String> ids(Collection<RaftEndpoint> endpoints) {
    List<String> out = new ArrayList<>(endpoints == null ? 0 : endpoints.size());
    if (endpoints != null) {
      for (RaftEndpoint e : endpoints) {
        out.add(e.getId().toString());
      }
    }
    return out;
  }

  static List<RaftEndpoint> endpoints(List<String> ids) {
    List<RaftEndpoint> out = new ArrayList<>(ids.size());
    for (String id : ids) {
      out.add(endpoint(id));
    }
    return out;
  }
}
