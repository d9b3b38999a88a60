package org.kvlab.protocols.gentlerain;

import org.kvlab.api.MessageTypes;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.VersionKey;

/** The GentleRain plug-in (Du et al., SoCC 2014): causal consistency with a scalar Global Stable Time. */
public final class GentleRain extends BaseProtocol {

  static final MessageTypes MESSAGES = MessageTypes.of(GetReq.class, GetReply.class, PutReq.class, PutReply.class,
      RotxReq.class, RotxReply.class, SliceReq.class, SliceReply.class, Replicate.class, Heartbeat.class,
      VVMessage.class, GSTMessage.class);
  static final RecordType<Record> RECORD = RecordType.of(Record.class, r -> VersionKey.of(r.getUt(), r.getSr()));

  public GentleRain() {
    super("gentlerain",
        "causal consistency with physical clocks and a global stable time (GST); PUT waits out clock skew",
        MESSAGES, RECORD, GentleRainServer::new, GentleRainClient::new);
  }
}
