package org.kvlab.protocols.nukv;

import java.util.Map;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.RecordType;
import org.kvlab.api.VersionKey;

/**
 * NuKV's per-key session guarantees (seed 003 chapter 4): each partition of each datacenter is a Raft
 * group (MicroRaft; the cluster file's {@code replicas}), clients choose MR/RYW for reads and MW/WFR for
 * writes per operation, and leaders stamp writes with a hybrid logical clock so they never wait.
 */
public final class NuKV extends BaseProtocol {
  static final MessageTypes MESSAGES = MessageTypes.of(GetReq.class, GetReply.class, PutReq.class, PutReply.class,
      Raft.class, Replicate.class, ReplicateAck.class);
  /** User versions by (t, dc); the Raft journal (one reserved key) by its sequence number. */
  static final RecordType<Stored> RECORD = RecordType.of(Stored.class,
      s -> s.hasJournal() ? VersionKey.of(s.getSeq()) : VersionKey.of(s.getVersion().getT(), s.getVersion().getDc()));

  public NuKV() {
    super("nukv",
        "NuKV per-key session guarantees (MR, RYW, MW, WFR per operation) over a Raft group per partition per"
            + " datacenter, HLC wait-free writes",
        MESSAGES, RECORD, NuKVServer::new, NuKVClient::new);
  }

  @Override
  public Map<String, String> parameters() {
    return NuKVParams.DECLARED;
  }
}
