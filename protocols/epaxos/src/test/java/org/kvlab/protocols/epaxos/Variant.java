package org.kvlab.protocols.epaxos;

import com.google.protobuf.Message;
import java.util.function.Supplier;
import org.kvlab.api.Client;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Server;

/** EPaxos's plug-in with another server class (a mutant, or one that records what it executes). */
record Variant(String name, Supplier<EPaxosServer> servers) implements Protocol {
  @Override
  public String summary() {
    return "EPaxos variant for tests";
  }

  @Override
  public MessageTypes messages() {
    return EPaxos.MESSAGES;
  }

  @Override
  public RecordType<? extends Message> record() {
    return EPaxos.RECORD;
  }

  @Override
  public Server<? extends Message> newServer() {
    return servers.get();
  }

  @Override
  public Client newClient() {
    return new EPaxosClient();
  }
}
