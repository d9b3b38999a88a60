package org.kvlab.protocols.nukv;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
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
import java.util.Objects;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;

/**
 * MicroRaft's messages to and from kvlab's wire ({@link Raft}, one flattened protobuf message), and the
 * endpoints: a replica's endpoint is its kvlab {@link NodeId}; snapshot chunks carry {@link SnapshotPart}s.
 * Membership changes are off, so only the messages of a fixed group occur.
 */
final class RaftCodec {
  private final RaftModelFactory models;

  RaftCodec(RaftModelFactory models) {
    this.models = models;
  }

  /** A replica of a Raft group, identified by its server id. */
  record Endpoint(NodeId id) implements RaftEndpoint {
    @Override
    public Object getId() {
      return id;
    }

    @Override
    public String toString() {
      return id.toString();
    }
  }

  static NodeId node(RaftEndpoint e) {
    return (NodeId) e.getId();
  }

  static Endpoint endpoint(String text) {
    return new Endpoint(NodeId.parse(text));
  }

  Raft encode(RaftMessage m) {
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
      Invariants.check(false, "NuKV cannot send MicroRaft message %s (membership changes are off)",
          m.getClass().getSimpleName());
    }
    return b.build();
  }

  /** Decodes a message from a peer; throws IllegalArgumentException on one that makes no sense. */
  RaftMessage decode(Raft m) {
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

  static Entry entry(LogEntry e) {
    Object op = e.getOperation();
    Invariants.check(op instanceof Op, "NuKV log entry %s holds %s, not a NuKV operation", e.getIndex(),
        op == null ? "null" : op.getClass().getName());
    return Entry.newBuilder().setIndex(e.getIndex()).setTerm(e.getTerm()).setOp((Op) op).build();
  }

  LogEntry logEntry(Entry e) {
    return models.createLogEntryBuilder().setIndex(e.getIndex()).setTerm(e.getTerm())
        .setOperation(Objects.requireNonNull(e.getOp())).build();
  }

  /**
   * A snapshot chunk as the journal and the InstallSnapshot message carry it. A part that {@link SnapshotSource} handed
   * over as its encoding ({@link EncodedPart}) goes out as those bytes, as field {@value Chunk#PART_FIELD_NUMBER}
   * (with the members, field {@value Chunk#MEMBERS_FIELD_NUMBER}, after it) in the message's unknown fields: protobuf
   * writes them as they are, after the known fields, in field order, so the chunk's encoding is byte for byte what
   * {@code setPart} would give (an embedded message is a length-delimited field), without encoding the part's Ops
   * again. Whatever parses it (a restart, a follower) gets the part as a SnapshotPart; an unparsed chunk built here is
   * read with {@link #operation} and {@link #members(Chunk)}, never with {@code getPart}.
   */
  static Chunk chunk(SnapshotChunk c) {
    Object part = c.getOperation();
    Invariants.check(part instanceof SnapshotPart || part instanceof EncodedPart, "NuKV snapshot chunk %s/%s holds %s,"
        + " not a NuKV snapshot part", c.getIndex(), c.getSnapshotChunkIndex(),
        part == null ? "null" : part.getClass().getName());
    Chunk.Builder b = Chunk.newBuilder().setIndex(c.getIndex()).setTerm(c.getTerm())
        .setChunkIndex(c.getSnapshotChunkIndex()).setChunkCount(c.getSnapshotChunkCount());
    if (part instanceof SnapshotPart p) {
      b.setPart(p);
      if (c.getGroupMembersView() != null) {
        b.setMembers(members(c.getGroupMembersView()));
      }
    } else {
      UnknownFieldSet.Builder fields = UnknownFieldSet.newBuilder().addField(Chunk.PART_FIELD_NUMBER,
          UnknownFieldSet.Field.newBuilder().addLengthDelimited(((EncodedPart) part).bytes()).build());
      if (c.getGroupMembersView() != null) {
        fields.addField(Chunk.MEMBERS_FIELD_NUMBER, UnknownFieldSet.Field.newBuilder()
            .addLengthDelimited(members(c.getGroupMembersView()).toByteString()).build());
      }
      b.setUnknownFields(fields.build());
    }
    return b.build();
  }

  /**
   * The part a chunk holds: its SnapshotPart if it was parsed or built with one, else (a chunk {@link #chunk} built
   * from an {@link EncodedPart}, not parsed since) that EncodedPart.
   */
  static Object operation(Chunk c) {
    if (c.hasPart()) {
      return c.getPart();
    }
    List<ByteString> encoded = c.getUnknownFields().getField(Chunk.PART_FIELD_NUMBER).getLengthDelimitedList();
    Invariants.check(encoded.size() <= 1, "NuKV snapshot chunk %s/%s holds %s encoded parts", c.getIndex(),
        c.getChunkIndex(), encoded.size());
    return encoded.isEmpty() ? SnapshotPart.getDefaultInstance() : new EncodedPart(encoded.get(0));
  }

  /** The members a chunk carries (see {@link #operation}), or null if none. */
  static Members members(Chunk c) {
    if (c.hasMembers()) {
      return c.getMembers();
    }
    List<ByteString> encoded = c.getUnknownFields().getField(Chunk.MEMBERS_FIELD_NUMBER).getLengthDelimitedList();
    if (encoded.isEmpty()) {
      return null;
    }
    try {
      return Members.parseFrom(encoded.get(encoded.size() - 1));
    } catch (InvalidProtocolBufferException e) {
      throw new Invariants.InvariantViolation("NuKV snapshot chunk " + c.getIndex() + "/" + c.getChunkIndex()
          + " holds members that do not parse: " + e.getMessage());
    }
  }

  SnapshotChunk snapshotChunk(Chunk c) {
    if (c.getChunkCount() < 1 || c.getChunkIndex() < 0 || c.getChunkIndex() >= c.getChunkCount()) {
      throw new IllegalArgumentException("snapshot chunk " + c.getChunkIndex() + " of " + c.getChunkCount());
    }
    Members m = members(c);
    return models.createSnapshotChunkBuilder().setIndex(c.getIndex()).setTerm(c.getTerm()).setOperation(operation(c))
        .setSnapshotChunkIndex(c.getChunkIndex()).setSnapshotChunkCount(c.getChunkCount())
        .setGroupMembersView(m == null ? null : view(m)).build();
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
