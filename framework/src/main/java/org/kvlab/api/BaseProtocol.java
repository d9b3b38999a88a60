package org.kvlab.api;

import com.google.protobuf.Message;
import java.util.function.Supplier;

/**
 * The usual way to write a {@link Protocol} plug-in: pass its parts to the constructor.
 *
 * <pre>{@code
 * public final class Eventual extends BaseProtocol {
 *   public Eventual() {
 *     super("eventual", "last writer wins, asynchronous replication",
 *         MessageTypes.of(GetReq.class, GetReply.class, PutReq.class, PutReply.class, Replicate.class),
 *         RecordType.of(Record.class, r -> VersionKey.of(r.getUt(), r.getSr())),
 *         EventualServer::new, EventualClient::new);
 *   }
 * }
 * }</pre>
 *
 * The subclass needs a public no-argument constructor, for {@link java.util.ServiceLoader}.
 */
public abstract class BaseProtocol implements Protocol {
  private final String name;
  private final String summary;
  private final MessageTypes messages;
  private final RecordType<? extends Message> record;
  private final Supplier<? extends Server<? extends Message>> servers;
  private final Supplier<? extends Client> clients;

  protected BaseProtocol(String name, String summary, MessageTypes messages, RecordType<? extends Message> record,
      Supplier<? extends Server<? extends Message>> servers, Supplier<? extends Client> clients) {
    this.name = name;
    this.summary = summary;
    this.messages = messages;
    this.record = record;
    this.servers = servers;
    this.clients = clients;
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final String summary() {
    return summary;
  }

  @Override
  public final MessageTypes messages() {
    return messages;
  }

  @Override
  public final RecordType<? extends Message> record() {
    return record;
  }

  @Override
  public final Server<? extends Message> newServer() {
    return servers.get();
  }

  @Override
  public final Client newClient() {
    return clients.get();
  }
}
