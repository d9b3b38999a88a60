package org.kvlab.protocols.gentlerain;

import com.google.protobuf.Message;
import org.kvlab.api.Client;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Server;

/**
 * Mutant: GET ignores GST and returns the newest version (Alg 8.1's visibility rule dropped): remote versions visible
 * before their dependencies. GentleRainScenarioTest and GentleRainExploreTest must catch it.
 */
final class GetIgnoresGst implements Protocol {
  @Override
  public String name() {
    return "gentlerain-get-ignores-gst";
  }

  @Override
  public String summary() {
    return "broken on purpose";
  }

  @Override
  public MessageTypes messages() {
    return GentleRain.MESSAGES;
  }

  @Override
  public RecordType<? extends Message> record() {
    return GentleRain.RECORD;
  }

  @Override
  public Server<? extends Message> newServer() {
    return new GentleRainServer() {
      @Override
      boolean visible(Record d) {
        return true; // BUG
      }
    };
  }

  @Override
  public Client newClient() {
    return new GentleRainClient();
  }
}
