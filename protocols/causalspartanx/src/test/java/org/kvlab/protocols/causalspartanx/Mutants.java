package org.kvlab.protocols.causalspartanx;

import com.google.protobuf.Message;
import org.kvlab.api.Client;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Server;

/** CausalSpartanX with another GET visibility rule (Alg 5.2 line 3), for mutation and §4.6 tests. */
final class Mutants {
  private Mutants() {}

  static Protocol variant(CausalSpartanXServer.Variant v) {
    return new Protocol() {
      @Override public String name() { return "causalspartanx-" + v.name().toLowerCase(); }
      @Override public String summary() { return "broken on purpose: " + v; }
      @Override public MessageTypes messages() { return CausalSpartanX.MESSAGES; }
      @Override public RecordType<? extends Message> record() { return CausalSpartanX.RECORD; }
      @Override public Server<? extends Message> newServer() { return new CausalSpartanXServer(v); }
      @Override public Client newClient() { return new CausalSpartanXClient(); }
    };
  }
}
