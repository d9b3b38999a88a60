package org.kvlab.protocols.accf;

import com.google.protobuf.Message;
import org.kvlab.api.Client;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Server;

/** ACCF with a rule of Alg 7.2 broken on purpose, for the mutation tests. */
final class Mutants {
  private Mutants() {}

  static Protocol variant(AccfServer.Variant v) {
    return new Protocol() {
      @Override public String name() { return "accf-" + v.name().toLowerCase(); }
      @Override public String summary() { return "broken on purpose: " + v; }
      @Override public MessageTypes messages() { return Accf.MESSAGES; }
      @Override public RecordType<? extends Message> record() { return Accf.RECORD; }
      @Override public Server<? extends Message> newServer() { return new AccfServer(v); }
      @Override public Client newClient() { return new AccfClient(); }
    };
  }
}
