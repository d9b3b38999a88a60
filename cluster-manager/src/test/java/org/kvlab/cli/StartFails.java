package org.kvlab.cli;

import java.util.Map;
import org.kvlab.api.Handlers;
import org.kvlab.api.ParameterException;
import org.kvlab.api.Server;
import org.kvlab.testing.KitVariant;
import org.kvlab.testing.kit.KitRecord;

/**
 * A protocol whose servers never start, for {@code kvlab sim}'s tests (registered for tests only, in
 * {@code src/test/resources/META-INF/services}): with {@code failWith=bug} (the default) each server's start throws an
 * {@link IllegalStateException}, as a protocol bug would; with {@code failWith=refusal} it refuses its parameters with
 * a {@link ParameterException} that its {@code checkParameters} (the default: accept all) did not raise first.
 */
public final class StartFails extends KitVariant {
  public StartFails() {
    super("startfails", StartFails::server, null,
        Map.of("failWith", "bug | refusal, default bug: how the servers fail to start"));
  }

  private static Server<KitRecord> server() {
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
}
