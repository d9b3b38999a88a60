package org.kvlab.protocols.nukv;

import com.google.protobuf.Message;
import java.util.Map;
import java.util.Set;
import org.kvlab.api.Client;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Server;

/** NuKV with a client that drops one rule of Alg 4.1, so that one guarantee silently does not hold. */
final class Mutants {
  private Mutants() {}

  static Protocol dropping(NuKVClient.Drop drop) {
    return new Protocol() {
      @Override
      public String name() {
        return "nukv-without-" + drop.name().toLowerCase();
      }

      @Override
      public String summary() {
        return "broken on purpose: the client ignores " + drop;
      }

      @Override
      public MessageTypes messages() {
        return NuKV.MESSAGES;
      }

      @Override
      public RecordType<? extends Message> record() {
        return NuKV.RECORD;
      }

      @Override
      public Server<? extends Message> newServer() {
        return new NuKVServer();
      }

      @Override
      public Client newClient() {
        return new NuKVClient(Set.of(drop));
      }

      @Override
      public Map<String, String> parameters() {
        return NuKVParams.DECLARED;
      }
    };
  }
}
