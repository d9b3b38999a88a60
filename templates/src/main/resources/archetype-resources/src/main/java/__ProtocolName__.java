package ${package};

import java.util.Map;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.RecordType;
import org.kvlab.api.VersionKey;

/** The ${ProtocolName} plug-in: its name in cluster files, its messages, how versions are ordered, its server and client. */
public final class ${ProtocolName} extends BaseProtocol {

  /** Every message type that crosses the wire; a type's wire id is its position here. */
  static final MessageTypes MESSAGES =
      MessageTypes.of(GetReq.class, GetReply.class, PutReq.class, PutReply.class, Replicate.class);
  /** Versions of one key are ordered by (ut, sr); the largest is the newest. Two versions must never compare equal. */
  static final RecordType<Record> RECORD = RecordType.of(Record.class, r -> VersionKey.of(r.getUt(), r.getSr()));

  public ${ProtocolName}() { // ServiceLoader needs a public no-argument constructor
    super("${protocolName}",
        "TODO one line: the guarantee (the demo benchmarks protocols whose line says causal)",
        MESSAGES, RECORD, ${ProtocolName}Server::new, ${ProtocolName}Client::new);
  }

  /**
   * Every parameter the server or client reads from the cluster file's params: section (others are refused). Check
   * their values by overriding checkParameters(Params, Topology) too (docs/writing-a-protocol.md, "Parameters").
   */
  @Override
  public Map<String, String> parameters() {
    return Map.of(); // TODO e.g. "heartbeat", "duration, default 10ms: ..."
  }
}
