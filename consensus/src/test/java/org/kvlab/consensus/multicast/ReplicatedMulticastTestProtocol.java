package org.kvlab.consensus.multicast;

import org.kvlab.api.BaseProtocol;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.RecordType;
import org.kvlab.consensus.multicast.proto.CastReply;
import org.kvlab.consensus.multicast.proto.CastSend;
import org.kvlab.consensus.raft.JournalEntry;
import org.kvlab.consensus.raft.Raft;
import org.kvlab.consensus.raft.RaftJournal;

/**
 * A protocol that only multicasts across replicated groups, for checking {@link ReplicatedMulticast} in the
 * simulator: every group's leader multicasts on its own timer ({@link ReplicatedMulticastTestServer}); what the
 * groups multicast and every replica delivers goes to one {@link CastRecorder} per run. Run it with one idle scripted
 * session and no final reads.
 */
final class ReplicatedMulticastTestProtocol extends BaseProtocol {
  static final String JOURNAL = "\u0000casttest.raft";
  static final RaftJournal.Format<JournalEntry> FORMAT = RaftJournal.entries(JOURNAL);

  ReplicatedMulticastTestProtocol(CastRecorder recorder) {
    super("cast-test", "groups replicated by Raft multicast to random groups; nothing for clients",
        MessageTypes.of(CastSend.class, CastReply.class, Raft.class),
        RecordType.of(JournalEntry.class, e -> RaftJournal.versionKey(e.getSeq())),
        () -> new ReplicatedMulticastTestServer(recorder), SkeenTestProtocol.NoClient::new);
  }
}
