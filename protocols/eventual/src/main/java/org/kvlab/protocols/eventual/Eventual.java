package org.kvlab.protocols.eventual;

import org.kvlab.api.Client;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Server;
import org.kvlab.api.VersionKey;

/** The Eventual protocol plug-in: last-writer-wins, asynchronous replication. */
public final class Eventual implements Protocol {
  static final MessageTypes MESSAGES =
      MessageTypes.of(GetReq.class, GetReply.class, PutReq.class, PutReply.class, Replicate.class);
  static final RecordType<Record> RECORD = RecordType.of(Record.class, r -> VersionKey.of(r.getUt(), r.getSr()));

  @Override
  public String name() {
    return "eventual";
  }

  @Override
  public String summary() {
    return "eventual consistency: last writer wins by (timestamp, datacenter), asynchronous replication (baseline)";
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
    return new EventualServer();
  }

  @Override
  public Client newClient() {
    return new EventualClient();
  }
}
