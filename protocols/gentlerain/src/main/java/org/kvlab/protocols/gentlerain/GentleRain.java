package org.kvlab.protocols.gentlerain;

import org.kvlab.api.Client;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Server;
import org.kvlab.api.VersionKey;

/** The GentleRain plug-in (Du et al., SoCC 2014): causal consistency with a scalar Global Stable Time. */
public final class GentleRain implements Protocol {
  static final MessageTypes MESSAGES = MessageTypes.of(GetReq.class, GetReply.class, PutReq.class, PutReply.class,
      RotxReq.class, RotxReply.class, SliceReq.class, SliceReply.class, Replicate.class, Heartbeat.class,
      VVMessage.class, GSTMessage.class);
  static final RecordType<Record> RECORD = RecordType.of(Record.class, r -> VersionKey.of(r.getUt(), r.getSr()));

  @Override
  public String name() {
    return "gentlerain";
  }

  @Override
  public String summary() {
    return "causal consistency with physical clocks and a global stable time (GST); PUT waits out clock skew";
  }

  @Override
  public MessageTypes messages() {
    return MESSAGES;
  }

  @Override
  public RecordType<Record> record() {
    return RECORD;
  }

  @Override
  public Server<Record> newServer() {
    return new GentleRainServer();
  }

  @Override
  public Client newClient() {
    return new GentleRainClient();
  }
}
