package org.kvlab.protocols.nukv;

import io.microraft.RaftEndpoint;
import io.microraft.model.RaftModelFactory;
import io.microraft.model.log.LogEntry;
import io.microraft.model.message.AppendEntriesFailureResponse;
import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.AppendEntriesSuccessResponse;
import io.microraft.model.message.PreVoteRequest;
import io.microraft.model.message.PreVoteResponse;
import io.microraft.model.message.RaftMessage;
import io.microraft.model.message.TriggerLeaderElectionRequest;
import io.microraft.model.message.VoteRequest;
import io.microraft.model.message.VoteResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;

/**
 * MicroRaft's messages to and from kvlab's wire ({@link Raft}, one flattened protobuf message), and the
 * endpoints: a replica's endpoint is its kvlab {@link NodeId}. Snapshots are switched off (see
 * {@link RaftGroup}), so InstallSnapshot messages never occur; encoding one is an invariant violation.
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
    } else {
      Invariants.check(false, "NuKV cannot send MicroRaft message %s (snapshots and membership changes are off)",
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
}
