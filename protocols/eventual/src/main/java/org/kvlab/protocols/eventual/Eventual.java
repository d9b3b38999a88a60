package org.kvlab.protocols.eventual;

import java.util.Map;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.VersionKey;

/** The Eventual protocol plug-in: last-writer-wins, asynchronous replication. */
public final class Eventual extends BaseProtocol {

  static final MessageTypes MESSAGES =
      MessageTypes.of(GetReq.class, GetReply.class, PutReq.class, PutReply.class, Replicate.class);
  static final RecordType<Record> RECORD = RecordType.of(Record.class, r -> VersionKey.of(r.getUt(), r.getSr()));

  public Eventual() {
    super("eventual",
        "eventual consistency: last writer wins by (timestamp, datacenter), asynchronous replication (baseline)",
        MESSAGES, RECORD, EventualServer::new, EventualClient::new);
  }

  /** Eventual reads no parameters: a cluster file that sets any is refused. */
  @Override
  public Map<String, String> parameters() {
    return Map.of();
  }
}
