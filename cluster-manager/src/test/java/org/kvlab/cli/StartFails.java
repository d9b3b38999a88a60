package org.kvlab.cli;

import java.util.Map;
import org.kvlab.api.Client;
import org.kvlab.api.Handlers;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.ParameterException;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Server;
import org.kvlab.testing.Testkit;
import org.kvlab.testing.kit.KitRecord;

/**
 * A protocol whose servers never start, for {@code kvlab sim}'s tests (registered for tests only, in
 * {@code src/test/resources/META-INF/services}): with {@code failWith=bug} (the default) each server's start throws an
 * {@link IllegalStateException}, as a protocol bug would; with {@code failWith=refusal} it refuses its parameters with
 * a {@link ParameterException} that its {@link #checkParameters} (the default: accept all) did not raise first.
 * Testkit's messages, records and client otherwise.
 */
public final class StartFails implements Protocol {
  private final Testkit kit = new Testkit();

  @Override
  public String name() {
    return "startfails";
  }

  @Override
  public String summary() {
    return "test protocol: its servers throw when they start";
  }

  @Override
  public MessageTypes messages() {
    return kit.messages();
  }

  @Override
  public RecordType<KitRecord> record() {
    return kit.record();
  }

  @Override
  public Map<String, String> parameters() {
    return Map.of("failWith", "bug | refusal, default bug: how the servers fail to start");
  }

  @Override
  public Server<KitRecord> newServer() {
    return new Server<>() {
      @Override
      protected void register(Handlers on) {
      }

      @Override
      protected void onStart() {
        if (params().string("failWith", "bug").equals("refusal")) {
          throw new ParameterException("failWith", "'refusal' is refused by the server", "use bug");
        }
        throw new IllegalStateException("store not opened");
      }
    };
  }

  @Override
  public Client newClient() {
    return kit.newClient();
  }
}
